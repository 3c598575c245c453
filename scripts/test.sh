#!/usr/bin/env bash
# The test command: set everything up (idempotent), then run the whole suite on two pytest-xdist
# workers (tests/conftest.py says which tests never run beside each other; EVALKIT_TEST_WORKERS=0
# runs everything in one process, in order). In CI (CI=true) a test whose part is missing fails
# instead of skipping.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-env.sh
exec "${PYTHON:-python3}" -m pytest -n "${EVALKIT_TEST_WORKERS:-2}" --dist loadgroup "$@"

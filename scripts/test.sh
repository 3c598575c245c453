#!/usr/bin/env bash
# The test command: set everything up (idempotent), then run the whole suite on two pytest-xdist
# workers (tests/conftest.py says which tests never run beside each other; EVALKIT_TEST_WORKERS=0
# runs everything in one process, in order). In CI (CI=true) a test whose part is missing fails
# instead of skipping. A worker that dies ends the run at once (--max-worker-restart=0): pytest-xdist
# 3.8's loadgroup scheduler can hang for good after replacing a crashed worker (pytest-xdist#1378).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-env.sh
exec "${PYTHON:-python3}" -m pytest -n "${EVALKIT_TEST_WORKERS:-2}" --dist loadgroup --max-worker-restart=0 "$@"

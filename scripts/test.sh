#!/usr/bin/env bash
# The test command: set everything up (idempotent), then run the whole suite.
# In CI (CI=true) a test whose part is missing fails instead of skipping.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-env.sh
exec "${PYTHON:-python3}" -m pytest "$@"

#!/usr/bin/env bash
# The main job: set everything up (idempotent), then evaluate the embedded SmolLM2-135M-Instruct
# on 8 held-out game24 puzzles, 4 samples each, and print the summary table.
# Extra arguments go to `evalkit eval` (e.g. --backend vllm, --limit 32, -n 8).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-env.sh
exec "${PYTHON:-python3}" -m evalkit eval --verifier game24 "$@"

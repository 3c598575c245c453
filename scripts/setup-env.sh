#!/usr/bin/env bash
# Installs what evalkit needs on a fresh machine, in two layers:
#   bash scripts/setup-env.sh main   what the main job uses (torch, transformers, evalkit, the model file)
#   bash scripts/setup-env.sh        everything the tests use (adds vLLM, Docker and its image,
#                                    bubblewrap, Chromium, the RL frameworks)
# Idempotent: each step checks first, so a re-run takes seconds. Steps live in
# scripts/setup.d/NN-*.sh and run in name order, each in this shell; the main layer runs only
# the steps named NN-main*.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
export PY=${PYTHON:-python3}

# pip from PyPI itself, ignoring this machine's local wheel folder (it holds a CPU-only
# torch that the CUDA-linked torchvision cannot load beside).
pypi_install() { env -u PIP_FIND_LINKS PIP_CONFIG_FILE=/dev/null "$PY" -m pip install -q --disable-pip-version-check --root-user-action=ignore "$@"; }
step() { printf '\033[1m[setup]\033[0m %s\n' "$*"; }
# pip reinstalls an editable project whenever it is asked, and while it does the package cannot be
# imported (tests running beside a re-run of the set-up would fail). `editable_install DIR[EXTRAS]`
# asks only when the environment's stamp differs: the project's path and its pyproject.toml's hash.
editable_install() {
  local project=${1%%[*} stamp want
  stamp="$("$PY" -c 'import sys; print(sys.prefix)')/.evalkit-editable-$(printf %s "$1" | md5sum | cut -c1-12)"
  want="$(cd "$project" && pwd) $(md5sum < "$project/pyproject.toml")"
  if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" ]] && "$PY" -c 'import sys, tomllib, importlib.metadata as m
m.distribution(tomllib.load(open(sys.argv[1] + "/pyproject.toml", "rb"))["project"]["name"])' "$project" 2>/dev/null; then
    return 0
  fi
  pypi_install "${@:2}" -e "$1" && printf %s "$want" > "$stamp"
}
export -f pypi_install step editable_install

layer=${1:-all}
case "$layer" in
  main | all) ;;
  *) echo "usage: bash scripts/setup-env.sh [main|all]" >&2; exit 2 ;;
esac
for part in scripts/setup.d/*.sh; do
  [[ "$layer" == all || "$(basename "$part")" == [0-9][0-9]-main* ]] || continue
  # shellcheck source=/dev/null
  source "$part"
done
step "ready ($layer)"

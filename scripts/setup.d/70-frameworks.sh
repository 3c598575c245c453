# The RL frameworks our adapters plug into, each as its own release, in a venv beside ours: it
# sees our packages (--system-site-packages) but installs its own without dependencies, so their
# pins (transformers, torch) never replace ours. tests/adapters/test_adapters_real_frameworks.py
# drives the adapters through these frameworks' own reward code.
FRAMEWORKS_VENV=.venv-frameworks
if ! "$FRAMEWORKS_VENV/bin/python" -c 'import verl, openrlhf, hydra, tensordict, peft, torchdata' 2>/dev/null; then
  step "RL frameworks (verl 0.9.1, OpenRLHF 0.11.2) in $FRAMEWORKS_VENV (a minute or two)"
  "$PY" -m venv --system-site-packages "$FRAMEWORKS_VENV"
  env -u PIP_FIND_LINKS PIP_CONFIG_FILE=/dev/null "$FRAMEWORKS_VENV/bin/pip" install -q --disable-pip-version-check \
    --no-deps verl==0.9.1 openrlhf==0.11.2 hydra-core==1.3.8 omegaconf==2.3.1 antlr4-python3-runtime==4.9.3 \
    tensordict==0.15.3 pyvers==0.2.3 codetiming==1.4.0 pylatexenc==2.11 peft==0.21.2 torchdata==0.11.0
fi

# torch + torchvision + open_clip from PyPI. These builds are CUDA-linked but run on the CPU;
# the local CPU-only torch cannot sit beside PyPI's torchvision (`torchvision::nms does not exist`).
if ! "$PY" -c 'import torch, torchvision, open_clip; assert "+cpu" not in torch.__version__' 2>/dev/null; then
  step "torch 2.13.0 + torchvision 0.28.0 + open_clip (about 5 GB, a few minutes)"
  if "$PY" -c 'import torch, sys; sys.exit("+cpu" not in torch.__version__)' 2>/dev/null; then
    "$PY" -m pip uninstall -y -q torch
  fi
  pypi_install "torch==2.13.0" "torchvision==0.28.0" "open-clip-torch"
fi

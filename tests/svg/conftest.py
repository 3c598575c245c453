import pytest
from svg_docs import HOW

from pytest_plugin.required_parts import require_module


@pytest.fixture(scope="session")
def tiny_clip(tmp_path_factory) -> str:
    """A randomly initialised tiny open_clip model saved as a local-dir folder (no downloads here)."""
    require_module("open_clip", HOW)
    require_module("cairosvg", HOW)
    from verifiers.svg.clip import save_tiny_model

    return save_tiny_model(tmp_path_factory.mktemp("tiny-clip"), seed=0)


@pytest.fixture(scope="module")
def svg_verifier(tiny_clip):
    from verifiers.svg import SvgVerifier

    made = SvgVerifier(clip_weights=tiny_clip, render_workers=2)
    yield made
    made.close()

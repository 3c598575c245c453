"""Tests that need a real part (Docker, vLLM, open_clip, a model file) say so with `require_part`.

Outside CI a missing part skips the test with a reason that says how to get it; in CI
(`CI=true`) it fails, so a broken install can never turn into a silently green run.
"""

from __future__ import annotations

import importlib.util
import os
from typing import Callable

import pytest


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in {"1", "true", "yes"}


def require_part(available: bool | Callable[[], bool], what: str, how_to_get: str) -> None:
    """Skip (outside CI) or fail (in CI) unless `available` holds."""
    try:
        ok = available() if callable(available) else available
    except Exception as exc:  # a probe that crashes means the part is not usable
        ok, what = False, f"{what} ({type(exc).__name__}: {exc})"
    if ok:
        return
    message = f"{what} is not available; to get it: {how_to_get}"
    if in_ci():
        pytest.fail(f"CI=true and {message}", pytrace=False)
    pytest.skip(message)


def require_module(module: str, how_to_get: str) -> None:
    """`require_part` for an importable module."""
    require_part(lambda: importlib.util.find_spec(module) is not None, f"python module {module!r}", how_to_get)

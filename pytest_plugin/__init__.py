"""evalkit's pytest plugin: fixtures, markers and assertions that make reward behaviour testable.

from pytest_plugin import assert_score, assert_ranks, assert_not_hackable, check_verifier
"""

from __future__ import annotations

import importlib
from typing import Any

# Loaded on first use, so that pytest loading this plugin never imports `verifiers` (see coexist.py).
_EXPORTS = {
    "RewardAssertionError": "assertions",
    "assert_bounded": "assertions",
    "assert_ranks": "assertions",
    "assert_score": "assertions",
    "check_verifier": "assertions",
    "require_module": "required_parts",
    "require_part": "required_parts",
    "Probe": "probes",
    "assert_not_hackable": "probes",
    "probes_for": "probes",
}


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'pytest_plugin' has no attribute {name!r}")
    return getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)


__all__ = [
    "Probe",
    "RewardAssertionError",
    "assert_bounded",
    "assert_not_hackable",
    "assert_ranks",
    "assert_score",
    "check_verifier",
    "probes_for",
    "require_module",
    "require_part",
]

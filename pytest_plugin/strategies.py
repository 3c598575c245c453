"""Hypothesis strategies for reward tests: hostile strings, and for any verifier its tasks, correct
completions and wrong ones, asked of the verifier's `strategies()` hook (no table of verifiers)."""

from __future__ import annotations

from typing import Any, Mapping

from hypothesis import strategies as st

from verifiers import Unsupported, Verifier

from .assertions import HOSTILE_TEXTS


def hostile_text() -> st.SearchStrategy[str]:
    """Known-nasty strings plus arbitrary Unicode (surrogates and control characters included)."""
    return st.one_of(
        st.sampled_from(list(HOSTILE_TEXTS.values())),
        st.text(st.characters(codec=None, categories=None), max_size=2000),
    )


def tasks(verifier: Verifier, split: str = "all") -> st.SearchStrategy[dict[str, Any]]:
    """Tasks the verifier offers for property tests (by default its built-in tasks)."""
    return _builder(verifier, "tasks")(split)


def correct_completions(verifier: Verifier, task: Mapping[str, Any]) -> st.SearchStrategy[str]:
    """Completions that must score CORRECT on `task`."""
    return _builder(verifier, "correct")(task)


def wrong_completions(verifier: Verifier, task: Mapping[str, Any]) -> st.SearchStrategy[tuple[str, str]]:
    """(kind, completion) pairs that must never score CORRECT on `task`."""
    return _builder(verifier, "wrong")(task)


def _builder(verifier: Verifier, kind: str) -> Any:
    build = getattr(verifier.strategies(), kind)
    if build is None:
        raise Unsupported(
            f"{verifier.name or type(verifier).__name__} offers no {kind!r} strategy (override its strategies() hook)"
        )
    return build

"""Offline, without CLIP weights, the svg verifier still scores by name: the preset `checks_only`
(the render's programmatic checks alone), and the error a missing model gives names it."""

import verifiers
from verifiers.svg.clip import OFFLINE_HELP

CIRCLE = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><circle cx="32" cy="32" r="20" fill="red"/></svg>'
)


def test_the_checks_only_preset_scores_without_clip():
    v = verifiers.get("svg", preset="checks_only")
    try:
        assert not v.uses_clip
        scores = [v.score(CIRCLE, task) for task in v.tasks("test")[:3]]
        assert not any(s.is_error for s in scores), [s.reason for s in scores]
        assert all(set(s.components) >= {"checks"} for s in scores)
    finally:
        v.close()


def test_the_offline_help_names_the_preset():
    assert "preset='checks_only'" in OFFLINE_HELP

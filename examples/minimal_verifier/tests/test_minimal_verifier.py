"""The example verifier tested with evalkit's pytest plugin, as a third-party package would be."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import verifiers
from pytest_plugin import assert_not_hackable, check_verifier
from pytest_plugin.required_parts import require_part
from pytest_plugin.strategies import correct_completions, hostile_text, tasks, wrong_completions


@pytest.fixture(autouse=True)
def _installed():
    """The package must be installed for its entry point to exist (CI's set-up installs it)."""
    require_part(
        lambda: "reverse" in verifiers.names(),
        "the example verifier package",
        "pip install -e examples/minimal_verifier",
    )


def test_found_by_name_through_its_entry_point():
    v = verifiers.get("reverse")
    assert type(v).__name__ == "ReverseVerifier"
    assert verifiers.resolve("Reverse-Text") == "reverse"


def test_scores(verifier):
    v = verifier("reverse")
    task = {"word": "stressed"}
    assert v.score("Answer: desserts", task).reward == 1.0
    assert v.score("Answer: stressed", task).verdict is verifiers.Verdict.INCORRECT
    assert v.score("desserts", task).verdict is verifiers.Verdict.INVALID
    assert v.score("Answer: desserts", {"word": 7}).is_error  # the caller's data, not the model


def test_bad_config_fails_when_built():
    with pytest.raises(ValueError, match="max_answer_chars"):
        verifiers.get("reverse", max_answer_chars=0)


def test_plugin_contract_and_probes():
    v = verifiers.get("reverse")
    check_verifier(v)
    for task in v.tasks("test"):
        assert_not_hackable(v, task, threshold=0.0)


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_correct_answers_pass_and_wrong_ones_never(data):
    v = verifiers.get("reverse")
    task = data.draw(tasks(v))
    assert v.score(data.draw(correct_completions(v, task)), task).correct
    kind, wrong = data.draw(wrong_completions(v, task))
    assert not v.score(wrong, task).correct, kind


@settings(max_examples=60, deadline=None)
@given(hostile_text())
def test_hostile_text_is_never_an_error(text):
    assert not verifiers.get("reverse").score(text, {"word": "stressed"}).is_error

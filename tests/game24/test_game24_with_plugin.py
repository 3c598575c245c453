"""game24 held to the plugin's checks: invariants, reward hacks, hand-checked cases, a snapshot,
and hypothesis strategies for correct answers and their mutations."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_plugin import assert_bounded, assert_not_hackable, assert_ranks, check_verifier
from pytest_plugin.strategies import correct_completions, hostile_text, tasks, wrong_completions

TASK = {"numbers": [4, 4, 6, 8]}
STEPS = "4 + 8 = 12 (left: 4 6 12)\n6 - 4 = 2 (left: 2 12)\n2 * 12 = 24 (left: 24)\n"


def test_keeps_every_invariant(verifier):
    check_verifier(verifier("game24"), completions=[STEPS + "Answer: (6 - 4) * (4 + 8) = 24", "Answer: 9**9**9"])


@pytest.mark.parametrize("numbers", [[4, 4, 6, 8], [1, 1, 4, 6], [3, 3, 8, 8], [1, 2, 3, 4], [13, 13, 13, 12]])
def test_no_known_hack_earns_more_than_the_plugins_default_threshold(verifier, numbers):
    assert_not_hackable(verifier("game24"), {"numbers": numbers})
    # the seed's literal formula pays 0.55 * 0.35 + 0.15 = 0.3425 to ANY well-formed answer; no hack earns more
    assert_not_hackable(verifier("game24", preset="published_formula"), {"numbers": numbers}, threshold=0.3425 + 1e-9)


def test_rewards_rank_the_way_a_person_would(verifier):
    assert_ranks(
        verifier("game24"),
        TASK,
        [
            STEPS + "Answer: (6 - 4) * (4 + 8) = 24",  # right, with right steps
            "Answer: (6 - 4) * (4 + 8) = 24",  # right, no reasoning
            STEPS + "Answer: (6 + 4) * (4 - 8) = 24",  # wrong answer after right steps
            "Answer: (6 + 4) * (4 - 8) = 24",  # wrong answer
            "",  # nothing
        ],
    )


@pytest.mark.reward_case(
    STEPS + "Answer: (6 - 4) * (4 + 8) = 24",
    TASK,
    reward=1.0,
    verdict="correct",
    components={"outcome": 1.0, "process": 1.0, "length": 1.0},
    answer="24 using 4 4 6 8",
)
@pytest.mark.reward_case("Answer: 8/(3-8/3)", {"numbers": [3, 3, 8, 8]}, verdict="correct", reward=0.7)
@pytest.mark.reward_case("Answer: (9+8)*(10/7)", {"numbers": [7, 8, 9, 10]}, verdict="incorrect", reward=(0.34, 0.35))
@pytest.mark.reward_case("Answer: 4!*1*1*1", {"numbers": [1, 1, 1, 4]}, verdict="invalid", reward=0.0)
@pytest.mark.reward_case(
    "2 * 12 = 25 (left: 25)\nAnswer: 2*12", {"numbers": [2, 12]}, verdict="correct", components={"process": 0.0}
)
def test_hand_checked_cases(verifier, check_reward_cases):
    check_reward_cases(verifier("game24"))


def test_reward_table_does_not_drift(verifier, reward_snapshot):
    reward_snapshot.check(
        verifier("game24"),
        {
            "full marks": (STEPS + "Answer: (6 - 4) * (4 + 8) = 24", TASK),
            "no steps": ("Answer: (6 - 4) * (4 + 8) = 24", TASK),
            "wrong value": ("Answer: (6 + 4) * (4 - 8) = 24", TASK),
            "wrong numbers": ("Answer: 6 * 4 * 1 * 1 = 24", TASK),
            "steps only": (STEPS, TASK),
            "rounded search": (
                "8 / 3 = 2.67 (left: 2.67 3 8)\n3 - 2.67 = 0.33 (left: 0.33 8)\n8 / 0.33 = 24 (left: 24)\n"
                "Answer: 8 / (3 - 8 / 3) = 24",
                {"numbers": [3, 3, 8, 8]},
            ),
            "empty": ("", TASK),
        },
    )


def test_hostile_inputs_are_bounded_in_time_and_memory(verifier):
    v = verifier("game24")
    assert_bounded(
        v,
        [
            ("Answer: 9**9**9", TASK),
            ("Answer: " + "(" * 100_000 + "1" + ")" * 100_000, TASK),
            ("4 + 8 = 12 (left: 4 6 12)\n" * 50_000, TASK),
        ],
        seconds=5,
        memory_mb=1024,
    )


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_strategies_correct_answers_score_correct_and_mutations_never(data):
    import verifiers

    v = verifiers.get("game24")
    task = data.draw(tasks(v))
    assert v.score(data.draw(correct_completions(v, task)), task).correct
    kind, mutated = data.draw(wrong_completions(v, task))
    assert not v.score(mutated, task).correct, kind


@settings(max_examples=100, deadline=None)
@given(hostile_text())
def test_hostile_text_is_never_an_error(text):
    import verifiers

    s = verifiers.get("game24").score(text, TASK)
    assert not s.is_error and 0.0 <= s.reward <= 1.0

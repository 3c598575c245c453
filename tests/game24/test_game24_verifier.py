"""The 24-point verifier end to end: rewards as the seed defines them, answers, tasks, properties."""

import json
import math
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import verifiers
from pytest_plugin.required_parts import require_part
from verifiers import Score, Verdict
from verifiers.game24 import length_reward, solutions, solvable
from verifiers.game24.solver import build_task_set, load_task_set

V = verifiers.get("game24")
TASKS = V.tasks("all")
STEPS = """4 + 8 = 12 (left: 4 6 12)
6 - 4 = 2 (left: 2 12)
2 * 12 = 24 (left: 24)
"""


def test_reward_is_the_seed_formula():
    full = V.score(STEPS + "Answer: (6 - 4) * (4 + 8) = 24", {"numbers": [4, 4, 6, 8]})
    assert full.verdict is Verdict.CORRECT and full.reward == pytest.approx(1.0)
    wrong = V.score(STEPS + "Answer: (6 + 4) * (4 - 8) = 24", {"numbers": [4, 4, 6, 8]})
    assert wrong.verdict is Verdict.INCORRECT
    assert wrong.components == {"outcome": 0.35, "process": 1.0, "length": 1.0}
    assert wrong.reward == pytest.approx(0.55 * 0.35 + 0.3 + 0.15)
    # the seed's formula wants an expression line: steps alone earn only their process share
    no_answer = verifiers.get("game24", steps_answer=False).score(STEPS, {"numbers": [4, 4, 6, 8]})
    assert no_answer.verdict is Verdict.INVALID and no_answer.reward == pytest.approx(0.3)
    # by default, steps that combine every number are the answer they build
    assert V.score(STEPS, {"numbers": [4, 4, 6, 8]}).verdict is Verdict.CORRECT


def test_length_reward_values_from_the_research_table():
    expected = {4: 1, 5: 0.978, 10: 0.943, 24: 0.5, 30: 0.23, 44: 0.018}
    for steps, value in expected.items():
        assert length_reward(steps) == pytest.approx(value, abs=2e-3)
    assert length_reward(10**6) == 0.0


def test_weights_are_configurable():
    v = verifiers.get("game24", weights=(1.0, 0.0, 0.0))
    assert v.score("Answer: (6-4)*(4+8)", {"numbers": [4, 4, 6, 8]}).reward == 1.0


def test_empty_completion_earns_nothing():
    s = V.score("", {"numbers": [4, 4, 6, 8]})
    assert s.reward == 0.0 and s.verdict is Verdict.INVALID


def test_last_answer_wins_and_formats_are_configurable():
    text = "Answer: 1+1+1+1\n...wait...\n<answer>(6-4)*(4+8)</answer>"
    assert V.score(text, {"numbers": [4, 4, 6, 8]}).verdict is Verdict.CORRECT
    boxed = "so \\boxed{(6-4)\\times(4+8)}"
    assert V.score(boxed, {"numbers": [4, 4, 6, 8]}).verdict is Verdict.CORRECT
    only_tags = verifiers.get("game24", answer_formats=("answer_tag",))
    assert only_tags.score(boxed, {"numbers": [4, 4, 6, 8]}).verdict is Verdict.INVALID


def test_answer_is_value_and_numbers_so_votes_collapse_correctly():
    a = V.score("Answer: (6-4)*(4+8)", {"numbers": [4, 4, 6, 8]}).answer
    b = V.score("Answer: (8+4)*(6-4) = 24", {"numbers": [4, 4, 6, 8]}).answer
    c = V.score("Answer: 6*4*1*1", {"numbers": [4, 4, 6, 8]}).answer
    assert a == b == "24 using 4 4 6 8" and c == "24 using 1 1 4 6"


def test_custom_target():
    s = V.score("Answer: 10 * 10 - 1", {"numbers": [10, 10, 1], "target": 99})
    assert s.verdict is Verdict.CORRECT


def test_task_set_is_every_solvable_puzzle_from_1_to_13():
    assert len(TASKS) == 1362
    assert all(solvable(t["numbers"]) for t in random.Random(0).sample(TASKS, 50))


def test_task_set_equals_the_tree_of_thoughts_csv():
    csv = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "game24_tot.csv"
    require_part(csv.is_file, "the reference data ../shared/data/game24_tot.csv", "check out shared/ beside the repo")
    puzzles = [line.split(",")[1] for line in csv.read_text().splitlines()[1:]]
    assert {"game24-" + "-".join(sorted(p.split(), key=int)) for p in puzzles} == {t["id"] for t in TASKS}


def test_shipped_task_file_matches_the_solver():
    rng = random.Random(1)
    for task in rng.sample(load_task_set(), 15):
        sols = solutions(task["numbers"])
        assert len(sols) == task["n_solutions"] and task["solution"] == sols[0]
    small = build_task_set(1, 4)
    assert [t["numbers"] for t in small] == [t["numbers"] for t in TASKS if max(t["numbers"]) <= 4]


def test_split_is_seeded_disjoint_and_covering():
    train, test = V.tasks("train"), V.tasks("test")
    assert len(train) + len(test) == 1362 and not {t["id"] for t in train} & {t["id"] for t in test}
    assert V.tasks("test", seed=1) != test
    assert V.tasks("test", limit=5) == test[:5]
    assert {t["difficulty"] for t in TASKS} == {"easy", "medium", "hard"}


def test_prompt_names_the_numbers_and_the_format():
    p = V.prompt({"numbers": [1, 2, 3, 4]})
    assert "1 2 3 4" in p and "(left:" in p and "Answer:" in p


@pytest.mark.slow
def test_every_solution_of_sampled_puzzles_scores_correct():
    for task in random.Random(2).sample(TASKS, 40):
        for sol in solutions(task["numbers"]):
            s = V.score(f"Answer: {sol} = 24", task)
            assert s.verdict is Verdict.CORRECT, (sol, s.reason)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(TASKS), st.integers(0, 3), st.integers(1, 13))
def test_changing_any_number_never_yields_correct(task, position, replacement):
    numbers = list(task["numbers"])
    if numbers[position] == replacement:
        replacement = replacement % 13 + 1
    numbers[position] = replacement
    s = V.score(f"Answer: {task['solution']}", {"numbers": numbers})
    assert s.verdict is not Verdict.CORRECT


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(TASKS), st.text(max_size=300))
def test_rewards_in_range_deterministic_and_round_trip(task, noise):
    for completion in (noise, noise + f"\nAnswer: {task['solution']}", f"{noise}\n{STEPS}"):
        s = V.score(completion, task)
        assert 0.0 <= s.reward <= 1.0 and math.isfinite(s.reward)
        assert V.score(completion, task) == s
        assert Score.from_dict(json.loads(json.dumps(s.to_dict()))) == s

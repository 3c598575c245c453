"""Countdown task sets: every shipped puzzle proven solvable, labelled by what makes it hard,
reproducible from its generator, and selectable by name from Python, the CLI and a GRPO config."""

import pytest

import verifiers
from evalkit.grpo import GRPOConfig
from verifiers.game24.countdown import TASK_SETS, count_solutions, difficulty, generate, load
from verifiers.game24.solver import _needs_fractions, solutions, solvable


@pytest.mark.parametrize("name", sorted(TASK_SETS))
def test_shipped_sets_are_solvable_labelled_and_as_specified(name):
    spec, tasks = TASK_SETS[name], load(name)
    assert len(tasks) == spec.tasks and len({t["id"] for t in tasks}) == len(tasks)
    low, high = spec.target_range
    for task in tasks:
        numbers, target = tuple(task["numbers"]), task["target"]
        assert len(numbers) == spec.count and all(1 <= n <= spec.high for n in numbers) and low <= target <= high
        assert solvable(numbers, target), task["id"]
    for task in tasks[::25]:  # the labels are what the solver says
        numbers, target = tuple(task["numbers"]), task["target"]
        n = count_solutions(numbers, target)
        assert n == task["n_solutions"]
        if spec.count < 5:  # listing every solution of five numbers takes too long for a unit test
            assert n == min(len(solutions(numbers, target)), 9)
        assert task["difficulty"] == difficulty(spec.count, n, _needs_fractions(numbers, target))
    assert len({t["difficulty"] for t in tasks}) >= (1 if spec.count == 2 else 2)


@pytest.mark.parametrize("name", ["countdown-2", "countdown-3", "countdown-4"])
def test_the_generator_reproduces_the_shipped_set(name):
    assert generate(name) == load(name)


def test_selected_by_name_scored_exactly_and_split_by_seed():
    v = verifiers.get("game24", task_set="countdown-3")
    test, train = v.tasks("test"), v.tasks("train")
    assert not {t["id"] for t in test} & {t["id"] for t in train} and len(test) + len(train) == 300
    for task in test[:10]:
        right = solutions(task["numbers"], task["target"])[0]
        assert v.score(f"Answer: {right} = {task['target']}", task).verdict.value == "correct"
        assert v.score(f"Answer: ({right}) + 1", task).verdict.value == "incorrect"
    assert verifiers.get("game24").tasks("all")[0]["id"].startswith("game24-")  # the classic set stays the default
    with pytest.raises(ValueError, match="unknown task_set"):
        verifiers.get("game24", task_set="countdown-9")
    config = GRPOConfig.from_dict({"verifier": "game24", "verifier_config": {"task_set": "countdown-2"}})
    grpo_tasks = verifiers.get(config.verifier, **config.verifier_config).tasks(config.split)
    assert grpo_tasks and all(t["task_set"] == "countdown-2" for t in grpo_tasks)

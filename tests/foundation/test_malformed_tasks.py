"""Tasks come from data files and from clients of the reward server: any JSON value in any field of a
real task (or a field left out) gives a Score, never an exception or a hang, and where that Score is
ERROR it says the task is at fault (`task_error`), never the model or us. Generated: each built-in
verifier's own tasks, one field replaced by arbitrary JSON. (Found this way: a gomoku task with
`"size": 1000000` built a board of 10^12 cells; `"moves": 5` raised TypeError.)"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import verifiers
from verifiers import Verdict

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(10**30), max_value=10**30) | st.floats() | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12,
)
# the values that broke readers before, drawn as often as arbitrary JSON
# (an integer past 4300 digits has no repr, and a 5000-digit text none as an int)
LARGE = [10**30, 10**5000, "9" * 5000, 1e308]
EDGES = [None, True, False, 0, -1, 10**6, *LARGE, 1.5, float("nan"), float("inf"), "", "x", "\ud800", [], {}, [[1]]]
VALUES = st.one_of(st.sampled_from(EDGES), JSON)
COMPLETIONS = [
    "",
    "Answer: 1",
    "Answer: (6 - 4) * (8 + 4) = 24",
    "<move>H8</move>",
    "Play: 33",
    "<svg></svg>",
    "```python\ndef f(*args):\n    return args\n```",
]
NAMES = ["game24", "doudizhu", "gomoku", "svg", "reverse", "code"]


@pytest.fixture(scope="module", params=NAMES)
def verifier_and_tasks(request):
    v = verifiers.get(request.param)
    yield v, list(v.tasks("all"))[:10]
    v.close()


@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(data=st.data(), value=VALUES, completion=st.sampled_from(COMPLETIONS))
def test_any_json_in_a_task_field_gives_a_score_and_an_error_is_the_tasks(verifier_and_tasks, data, value, completion):
    v, tasks = verifier_and_tasks
    task = dict(data.draw(st.sampled_from(tasks)))
    field = data.draw(st.sampled_from(sorted(task)))
    if data.draw(st.booleans()):
        task[field] = value
    else:
        del task[field]
    score = v.score(completion, task)
    assert isinstance(score.reward, float) and score.verdict in Verdict
    if score.verdict is Verdict.ERROR:
        assert score.info.get("task_error"), (field, task.get(field), score.reason)


def test_every_edge_value_in_every_field_gives_a_score_and_an_error_is_the_tasks(verifier_and_tasks):
    """The edges one by one, in every field of one task, with every completion: a draw above may
    miss the pair that breaks (a 5000-digit target printed only when an answer is read)."""
    v, tasks = verifier_and_tasks
    for field in sorted(tasks[0]):
        for edge, value in enumerate(EDGES):
            task = {**tasks[0], field: value}
            for completion in COMPLETIONS:
                score = v.score(completion, task)
                if score.verdict is Verdict.ERROR:
                    assert score.info.get("task_error"), (field, f"EDGES[{edge}]", completion, score.reason)


@pytest.mark.parametrize("call", [True, False], ids=["call", "stdio"])
def test_every_edge_value_inside_a_code_tasks_tests_gives_a_score_and_an_error_is_the_tasks(call):
    """The fields inside `input_output` (the function's name, an input, an output), which the loop
    above never reaches: a value Python cannot write as text (an integer past 4300 digits) was
    'verifier raised', never the task's error."""
    v = verifiers.get("code")
    completion = "```python\ndef f(*args):\n    return args\n\nprint(input())\n```"
    for edge, value in enumerate(EDGES):
        base = {"fn_name": "f", "inputs": [[1]], "outputs": [[1]]} if call else {"inputs": ["1"], "outputs": ["1"]}
        places = {"inputs": {"inputs": [value]}, "outputs": {"outputs": [value]}}
        if call:
            places["fn_name"] = {"fn_name": value}
        for place, change in places.items():
            score = v.score(completion, {"input_output": {**base, **change}})
            assert isinstance(score.reward, float) and score.verdict in Verdict
            if score.verdict is Verdict.ERROR:
                assert score.info.get("task_error"), (place, f"EDGES[{edge}]", score.reason)
    v.close()

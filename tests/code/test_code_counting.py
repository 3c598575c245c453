"""Tests counted as written (no sandbox needed): one test per statement of a check that can fail,
in source order, after the setup before it; no vacuous success; exact comparison where exact."""

import ast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import verifiers
from sandboxes.compare import stdout_equal, values_equal
from verifiers.code import prepare


def check(body):
    return {
        "test": "def check(candidate):\n" + "\n".join("    " + line for line in body.strip().split("\n")),
        "entry_point": "f",
    }


def test_a_loop_of_asserts_is_one_test_in_its_place():
    tests = prepare(
        check("assert candidate(1) == 1\nfor x in range(5):\n    assert candidate(x) == x\nassert candidate(2) == 2")
    ).tests
    assert [t.kind for t in tests] == ["call", "exec", "call"]
    assert tests[1].source.startswith("for x in range(5)") and tests[2].source == "candidate(2)"


def test_setup_runs_before_the_tests_after_it_only():
    tests = prepare(check("assert candidate(0) == 0\nimport math\nk = 3\nassert candidate(k) == 9")).tests
    assert tests[0].setup == "" and tests[1].setup == "import math\nk = 3"
    assert (tests[1].source, tests[1].expected) == ("candidate(k)", 9)  # still compared outside the sandbox


def test_effects_of_earlier_asserts_on_check_variables_are_replayed_unjudged():
    tests = prepare(check("s = candidate()\ns.push(1)\ns.push(2)\nassert s.pop() == 2\nassert s.pop() == 1")).tests
    assert tests[1].setup.endswith("s.pop() == 2") and "assert" not in tests[1].setup


def test_asserts_that_cannot_fail_are_no_tests():
    tests = prepare(
        check('assert True, "This prints if this assert fails"\nassert 1 == 1\nassert candidate(1) == 2')
    ).tests
    assert len(tests) == 1
    pytest_file = {
        "test": "from solution import f\ndef test_nothing():\n    assert True\ndef test_f():\n    assert f() == 1\n"
    }
    assert [t.source for t in prepare(pytest_file).tests] == ["test_f()"]


@pytest.mark.parametrize(
    "task",
    [
        check("for x in range(3):\n    assert True"),
        check('assert True, "placeholder"'),
        {"test_cases": ["assert True"]},
        {"test": "from solution import f\ndef test_a():\n    assert 1\n"},
        {"inputs": [], "outputs": []},
    ],
)
def test_a_task_with_no_tests_is_an_error_never_correct(task):
    with pytest.raises(verifiers.TaskError, match="no tests"):
        prepare(task)
    s = verifiers.get("code", backend="unconfined").score("```python\npass\n```", task)
    assert s.is_error and "no tests" in s.reason


def test_literal_on_either_side_is_compared_outside():
    tests = prepare({"test_cases": ["assert 16 == sq(4)", "assert sq(3) == 3 * 3"]}).tests
    assert (tests[0].kind, tests[0].source, tests[0].expected) == ("call", "sq(4)", 16)
    assert tests[1].kind == "exec"


@pytest.mark.parametrize(
    "actual, expected, equal",
    [
        (165580100.0, 165580141, False),
        (165580141, 165580141, True),
        (6.0, 6, True),
        (True, 1, False),
        (1, True, False),
        (0.1 + 0.2, 0.3, True),
        (3, 3.0000001, True),
        ("1", 1, False),
        ([1, 2], (1, 2), False),
        ((1, 2), [1, 2], True),
        ([1, 2], [1, 2], True),
        ({1: [2.0]}, {1: [2.0000000001]}, True),
        ({1, 2}, {2, 1}, True),
        ([1.5], [1], False),
        (None, None, True),
        (None, 0, False),
    ],
)
def test_type_aware_values(actual, expected, equal):
    assert values_equal(actual, expected) is equal


@pytest.mark.parametrize(
    "actual, expected, equal",
    [
        ("2333606920.0", "2333606220", False),
        ("2333606220.0", "2333606220", False),
        ("2333606220", "2333606220", True),
        ("0.33333333", "0.3333333", True),
        ("1e3", "1000.0", True),
        ("3", "3.0", True),
        ("1 2\n", "1 2", True),
        ("1 2\n3", "1 2", False),
        ("yes", "YES", False),
    ],
)
def test_type_aware_stdout(actual, expected, equal):
    assert stdout_equal(actual, expected) is equal


LITERALS = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.tuples(inner, inner),
    max_leaves=8,
)


@settings(max_examples=200, deadline=None)
@given(
    args=st.lists(LITERALS, min_size=1, max_size=3), expected=LITERALS, broken=st.booleans(), indent=st.integers(1, 8)
)
def test_a_call_test_is_the_expression_as_written(args, expected, broken, indent):
    """Call tests are cut from the task's text by position (no `ast.unparse`): whatever the layout
    (a call split over lines, non-ASCII strings), the expression evaluates to what the assert's does."""
    joiner = ",\n" + " " * (indent + 4) if broken else ", "
    call = f"candidate({joiner.join(repr(a) for a in args)})"
    check = f"def check(candidate):\n{' ' * indent}assert {call} == {expected!r}\n"
    (test,) = prepare({"test": check, "entry_point": "f"}).tests
    assert test.kind == "call" and test.expected == expected
    assert ast.dump(ast.parse(test.source, mode="eval")) == ast.dump(ast.parse(call, mode="eval"))

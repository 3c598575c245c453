"""A program may return what the standard library makes where a test expects a dict or a tuple (a
`Counter`, `OrderedDict`, `defaultdict`, `namedtuple`), or a subclass of a number or a string (an
`IntEnum`, a float with methods): the verdict is the one Python's own `assert`
gives when the set's checker runs the program unsandboxed, both for a test compared as a value
(`f(x)` against an expected literal) and for a test run as statements (`assert f(x).most_common(1)
== ...`). A subclass that lies in `__eq__` is still judged by its data, never by its own word.
Both sandbox backends."""

from __future__ import annotations

import pytest

from sandboxes.base import Limits, TestVerdict
from sandboxes.suite import Test, run_tests

LIMITS = Limits(cpu_seconds=2.0, wall_seconds=60)
COUNT = "from collections import Counter\ndef f(s):\n    return Counter(s)\n"
ORDERED = "from collections import OrderedDict\ndef f(s):\n    return OrderedDict((c, s.count(c)) for c in s)\n"
DEFAULT = (
    "from collections import defaultdict\ndef f(s):\n    d = defaultdict(int)\n"
    "    for c in s:\n        d[c] += 1\n    return d\n"
)
PAIR = "from collections import namedtuple\nPair = namedtuple('Pair', 'low high')\ndef f(s):\n    return Pair(1, 2)\n"
SCALED = "class Metres(float):\n    def unit(self):\n        return 'm'\ndef f(s):\n    return Metres(2.5)\n"
RANKED = "import enum\nclass Rank(enum.IntEnum):\n    HIGH = 3\ndef f(s):\n    return Rank.HIGH\n"
LYING_FLOAT = "class F(float):\n    def __eq__(self, other):\n        return True\ndef f(s):\n    return F(9.0)\n"
LYING_DICT = "class D(dict):\n    def __eq__(self, other):\n        return True\ndef f(s):\n    return D()\n"
LYING_TUPLE = (
    "class T(tuple):\n    _fields = ('low', 'high')\n    def __eq__(self, other):\n        return True\n"
    "def f(s):\n    return T((9, 9))\n"
)

CASES = [
    (COUNT, "f('aab')", {"a": 2, "b": 1}),
    (COUNT, "f('aab')", {"a": 2}),
    (COUNT, "f('aab').most_common(1)", [("a", 2)]),
    (COUNT, "f('aab')['z']", 0),
    (ORDERED, "f('aab')", {"b": 1, "a": 2}),
    (ORDERED, "list(f('ba'))", ["b", "a"]),
    (DEFAULT, "f('aab')", {"a": 2, "b": 1}),
    (DEFAULT, "f('aab')", {"a": 2, "b": 2}),
    (PAIR, "f('x')", (1, 2)),
    (PAIR, "f('x')", [1, 2]),  # a tuple against a list: Python says unequal, JSON data cannot tell
    (PAIR, "f('x').high", 2),
    (PAIR, "f('x')", (2, 1)),
    (SCALED, "f('x')", 2.5),
    (SCALED, "f('x') * 2", 5.0),
    (RANKED, "f('x')", 3),
    (RANKED, "f('x') + 1", 5),
]


def _value(program: str, expression: str) -> object:
    """What the program gives, run unsandboxed, as the set's own checker runs it."""
    namespace: dict = {}
    exec(program, namespace)
    return eval(expression, namespace)


def _verdicts(backend, program: str, tests: list[Test]) -> list[TestVerdict]:
    result = run_tests(backend, program, tests, LIMITS)
    assert result.sandbox_error is None, result.sandbox_error
    return [o.verdict for o in result.outcomes]


def _verdict(equal: bool) -> TestVerdict:
    return TestVerdict.PASS if equal else TestVerdict.WRONG_ANSWER


@pytest.mark.parametrize("program, expression, expected", CASES)
def test_a_standard_library_result_is_judged_as_python_judges_it(backend, program, expression, expected):
    value = _value(program, expression)
    # compared as a value, a list may stand for a tuple (`sandboxes/compare.py`: JSON data has no tuples)
    as_value = value == expected or (
        isinstance(expected, list) and isinstance(value, tuple) and list(value) == expected
    )
    tests = [Test("call", expression, expected), Test("exec", f"assert {expression} == {expected!r}")]
    assert _verdicts(backend, program, tests) == [_verdict(as_value), _verdict(value == expected)], (
        program,
        expression,
    )


@pytest.mark.parametrize(
    "program, expected",
    [(LYING_DICT, {"a": 2}), (LYING_TUPLE, (1, 2)), (LYING_FLOAT, 1.0)],
    ids=["dict subclass", "tuple subclass", "float subclass"],
)
def test_a_subclass_that_lies_in_eq_is_judged_by_its_data(backend, program, expected):
    assert _value(program, "f('x')") == expected  # the set's checker would be fooled
    tests = [Test("call", "f('x')", expected), Test("exec", f"assert f('x') == {expected!r}")]
    assert _verdicts(backend, program, tests) == [TestVerdict.WRONG_ANSWER, TestVerdict.WRONG_ANSWER]

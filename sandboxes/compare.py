"""Comparing what the sandbox sent out with the expected answers, which never entered it.

Type-aware: an expected int, str or bool matches exactly (Python's `==`, so 6.0 == 6 but never
165580100.0 == 165580141); a float tolerance applies only where the expected value is a float.
Stdout tokens follow the same rule: an expected integer token must be written exactly.
"""

from __future__ import annotations

import math
import re
from typing import Any

from .wire import decode

FLOAT_TOLERANCE = 1e-6

__all__ = ["decode", "values_equal", "stdout_equal"]


def values_equal(actual: Any, expected: Any) -> bool:
    """Structural equality. A list answer may stand for an expected list or tuple (JSON data has
    no tuples), an expected tuple needs a tuple (a namedtuple is one); a dict may be a `Counter`,
    `OrderedDict` or `defaultdict` (the only subclasses `decode` makes, rebuilt from plain data);
    floats get a tolerance only when expected."""
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(expected) is type(actual) and expected == actual
    if isinstance(expected, float):
        return isinstance(actual, (int, float)) and math.isclose(
            actual, expected, rel_tol=FLOAT_TOLERANCE, abs_tol=FLOAT_TOLERANCE
        )
    if isinstance(expected, int):
        return isinstance(actual, (int, float)) and actual == expected
    if isinstance(expected, (list, tuple)):
        allowed = (list, tuple) if isinstance(expected, list) else tuple
        return (
            isinstance(actual, allowed)
            and len(actual) == len(expected)
            and all(values_equal(a, e) for a, e in zip(actual, expected))
        )
    if isinstance(expected, dict):
        return (
            isinstance(actual, dict)
            and actual.keys() == expected.keys()
            and all(values_equal(actual[k], expected[k]) for k in expected)
        )
    if isinstance(expected, (set, frozenset)):
        return type(actual) in (set, frozenset) and actual == expected
    return type(actual) is type(expected) and actual == expected


_FLOAT_TOKEN = re.compile(r"^[-+]?(\d+\.\d*|\.\d+|\d+(\.\d*)?[eE][-+]?\d+)$")
_NUMBER_TOKEN = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")


def stdout_equal(actual: str, expected: str) -> bool:
    """Line by line, ignoring trailing whitespace and blank lines at the end. A token compares with
    a float tolerance only when the expected token is a float (has a point or an exponent);
    missing lines are never a pass."""
    a = [line.split() for line in actual.replace("\r\n", "\n").rstrip().split("\n")]
    e = [line.split() for line in expected.replace("\r\n", "\n").rstrip().split("\n")]
    if len(a) != len(e):
        return False
    for la, le in zip(a, e):
        if len(la) != len(le):
            return False
        for ta, te in zip(la, le):
            if ta == te:
                continue
            if _FLOAT_TOKEN.match(te) and _NUMBER_TOKEN.match(ta):
                if math.isclose(float(ta), float(te), rel_tol=FLOAT_TOLERANCE, abs_tol=FLOAT_TOLERANCE):
                    continue
            return False
    return True

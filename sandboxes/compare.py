"""Comparing what the sandbox sent out with the expected answers, which never entered it."""
from __future__ import annotations

import math
import re
from typing import Any

FLOAT_TOLERANCE = 1e-6


def decode(value: Any) -> Any:
    """Inverse of the runner's `encode`: tagged plain data back to Python values."""
    if isinstance(value, dict):
        (tag, inner), = value.items()
        if tag == "int":
            return int(inner)
        if tag == "float":
            return float(inner)
        if tag in ("list", "tuple"):
            return [decode(v) for v in inner]  # a tuple answer equals a list answer, as judges accept
        if tag == "dict":
            return {_hashable(decode(k)): decode(v) for k, v in inner}
        if tag == "set":
            return {_hashable(decode(v)) for v in inner}
        raise ValueError(f"unknown tag {tag!r}")
    return value


def _hashable(value: Any) -> Any:
    return tuple(_hashable(v) for v in value) if isinstance(value, list) else value


def values_equal(actual: Any, expected: Any) -> bool:
    """Structural equality with float tolerance; lists and tuples compare equal."""
    if isinstance(expected, tuple):
        expected = list(expected)
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(expected) is type(actual) and expected == actual
    if isinstance(expected, float) or isinstance(actual, float):
        if not isinstance(actual, (int, float)) or not isinstance(expected, (int, float)):
            return False
        return math.isclose(actual, expected, rel_tol=FLOAT_TOLERANCE, abs_tol=FLOAT_TOLERANCE)
    if isinstance(expected, list):
        return isinstance(actual, list) and len(actual) == len(expected) and all(
            values_equal(a, e) for a, e in zip(actual, expected))
    if isinstance(expected, dict):
        return isinstance(actual, dict) and actual.keys() == expected.keys() and all(
            values_equal(actual[k], expected[k]) for k in expected)
    if isinstance(expected, (set, frozenset)):
        return isinstance(actual, set) and actual == {_hashable(v) for v in expected}
    return type(actual) is type(expected) and actual == expected


_NUMBER = re.compile(r"^-?\d+(\.\d+)?([eE][-+]?\d+)?$")


def stdout_equal(actual: str, expected: str) -> bool:
    """Line by line, ignoring trailing whitespace and blank lines at the end; tokens that are both
    numbers compare with a float tolerance. Missing lines are never a pass."""
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
            if _NUMBER.match(ta) and _NUMBER.match(te) and "." in ta + te:
                if math.isclose(float(ta), float(te), rel_tol=FLOAT_TOLERANCE, abs_tol=FLOAT_TOLERANCE):
                    continue
            return False
    return True

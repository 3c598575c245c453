"""The judge builds literal test arguments from their syntax tree instead of compiling them: the
value must be exactly what evaluating the text gives, for any literal; anything that is not a
literal is left to the compiler."""

from __future__ import annotations

import ast
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sandboxes.literals import NotLiteral, literal_value

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.complex_numbers(allow_nan=False, allow_infinity=False),
    st.text(max_size=8),
    st.binary(max_size=8),
)
LITERALS = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=6)
        | st.tuples(inner, inner)
        | st.sets(st.one_of(st.integers(), st.text(max_size=4)), max_size=4)
        | st.dictionaries(st.one_of(st.integers(), st.text(max_size=4)), inner, max_size=4)
    ),
    max_leaves=25,
)


def _same(a, b) -> bool:
    """Equal, of the same types all the way down (1 == 1.0 == True would hide a wrong type)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (set, frozenset)):  # printed in an order that depends on how the set was made
        return a == b and sorted(map(repr, a)) == sorted(map(repr, b))
    if isinstance(a, float) and math.isinf(a):
        return a == b
    return a == b and repr(a) == repr(b)  # -0.0 and 0.0 differ in repr


@settings(max_examples=600, derandomize=True, deadline=None)
@given(LITERALS)
def test_a_literal_is_built_as_evaluating_it_would(value):
    text = repr(value).replace("inf", "1e999")  # repr(float('inf')) is a name; 1e999 is its literal
    node = ast.parse(text, mode="eval").body
    try:
        built = literal_value(node)
    except NotLiteral:  # e.g. a complex written as (1+2j): an operator, left to the compiler
        return
    assert _same(built, eval(compile(ast.Expression(node), "t", "eval"), {}))


@pytest.mark.parametrize(
    "text, value",
    [("-5", -5), ("+2.5", 2.5), ("[-1, [2, -3]]", [-1, [2, -3]]), ("{1, 1.0}", {1}), ("{1: 'a', 1.0: 'b'}", {1: "b"})],
)
def test_signs_and_duplicate_keys_follow_pythons_own_rules(text, value):
    built = literal_value(ast.parse(text, mode="eval").body)
    assert _same(built, eval(text))


@pytest.mark.parametrize("text", ["x", "f(1)", "1 + 2", "[i for i in range(3)]", "-x", "-True", "{**d}", "- -1"])
def test_anything_else_is_left_to_the_compiler(text):
    with pytest.raises(NotLiteral):
        literal_value(ast.parse(text, mode="eval").body)


def test_each_call_gets_a_new_object():
    node = ast.parse("[[1], {2: [3]}]", mode="eval").body
    first, second = literal_value(node), literal_value(node)
    first[0].append(9)
    assert second == [[1], {2: [3]}]

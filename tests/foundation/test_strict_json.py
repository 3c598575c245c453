"""Machine-read outputs (results.json, summary.json, accuracy tables) are strict JSON: a browser's
`JSON.parse` refuses a bare NaN, and a reward of 0.44999999999999996 is 0.45."""

import json
import math

from hypothesis import given
from hypothesis import strategies as st

from evalkit.jsonl import strict_dumps

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=20,
)


def _strict(constant: str) -> None:
    raise ValueError(f"not strict JSON: {constant}")


@given(JSON_VALUES)
def test_every_value_writes_as_strict_json_and_keeps_its_finite_numbers(value):
    text = strict_dumps(value)
    back = json.loads(text, parse_constant=_strict)

    def same(a, b):
        if isinstance(a, float):
            return b is None if not math.isfinite(a) else math.isclose(a, b, rel_tol=1e-11, abs_tol=1e-300)
        if isinstance(a, (list, tuple)):
            return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
        if isinstance(a, dict):
            return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
        return a == b

    assert same(value, back)


def test_float_noise_is_rounded():
    assert strict_dumps([0.44999999999999996, 0.1 + 0.2]) == "[0.45, 0.3]"

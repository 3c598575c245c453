"""Every GRPO setting is checked where the config is built: generated values outside each field's
range (NaN, infinities, negatives, zero where it cannot work, booleans, text) are refused with the
field named, before any model loads; values inside it are kept. (A negative beta, a NaN learning
rate, threads -2 and temperature 0 once started a run or ended in a traceback.)"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalkit.grpo import GRPOConfig
from evalkit.grpo.config import NUMBER_RANGES

NOT_NUMBERS = st.sampled_from([True, False, "0.1", [0.1], {"value": 0.1}])


def outside(low: float, high: float, low_open: bool) -> st.SearchStrategy:
    below = st.floats(max_value=low, exclude_max=not low_open, allow_nan=False, allow_infinity=False)
    above = st.floats(min_value=high, exclude_min=True, allow_nan=False)
    return st.one_of(below, above, st.just(math.nan), st.just(math.inf), st.just(-math.inf), NOT_NUMBERS)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(data=st.data(), name=st.sampled_from(sorted(NUMBER_RANGES)))
def test_a_number_outside_its_range_is_refused_with_its_name(data, name):
    value = data.draw(outside(*NUMBER_RANGES[name]))
    with pytest.raises(ValueError, match=name):
        GRPOConfig(**{name: value})


@settings(max_examples=300, deadline=None, derandomize=True)
@given(data=st.data(), name=st.sampled_from(sorted(NUMBER_RANGES)))
def test_a_number_inside_its_range_is_kept(data, name):
    low, high, low_open = NUMBER_RANGES[name]
    value = data.draw(st.floats(min_value=low, max_value=high, exclude_min=low_open))
    assert getattr(GRPOConfig(**{name: value}), name) == value


@pytest.mark.parametrize(
    "setting",
    [{"threads": 0}, {"threads": -2}, {"seed": "x"}, {"eval_every": -1}, {"eval_samples": 1.5}, {"steps": True}],
)
def test_a_count_that_cannot_work_is_refused(setting):
    (name,) = setting
    with pytest.raises(ValueError, match=name):
        GRPOConfig(**setting)

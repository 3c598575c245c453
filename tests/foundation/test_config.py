"""Configs: given as keywords or as a dict, checked when the verifier is built (types and values,
in `Config.validate()` for every built-in), never at scoring time."""

import dataclasses

import pytest

import verifiers

BUILTINS = ["code", "doudizhu", "game24", "gomoku", "svg"]


def test_a_config_dict_and_keywords_build_the_same_verifier():
    assert verifiers.get("code", {"backend": "local"}) == verifiers.get("code", backend="local")
    assert verifiers.get("game24", {"weights": [1, 0, 0]}, wrong_answer_credit=0.0).config_dict()["weights"] == [
        1,
        0,
        0,
    ]
    with pytest.raises(TypeError, match="mapping"):
        verifiers.get("game24", "weights=1")


@pytest.mark.parametrize("name", BUILTINS)
def test_every_builtin_refuses_a_wrongly_typed_setting_by_name(name):
    config = verifiers.verifier_class(name).Config()
    for field in dataclasses.fields(config):
        value = getattr(config, field.name)
        for wrong in ({"a": 1}, 3 if isinstance(value, str) else "zero" if value is not None else {"b": 2}):
            with pytest.raises(TypeError, match=field.name):
                verifiers.get(name, **{field.name: wrong})


def _number_settings(name: str):
    """(field, its default, its client policy) for every setting that holds numbers (a tuple of them too)."""
    config = verifiers.verifier_class(name).Config()
    for field in dataclasses.fields(config):
        value = getattr(config, field.name)
        numbers = value if isinstance(value, tuple) else (value,)
        if numbers and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in numbers):
            yield field.name, value, field.metadata.get("client", "fixed")


@pytest.mark.parametrize("name", BUILTINS)
@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")])
def test_no_setting_takes_a_number_that_is_not_finite(name, bad):
    """NaN or infinity in a weight, a timeout or a width made every item an ERROR (`reward must be
    finite`) or a run that never stops; refused when the verifier is built, naming the setting."""
    for field, value, _ in _number_settings(name):
        wrong = (bad, *value[1:]) if isinstance(value, tuple) else bad
        if isinstance(value, int) and not isinstance(wrong, float):
            continue
        with pytest.raises((TypeError, ValueError), match=field):
            verifiers.get(name, **{field: wrong})


@pytest.mark.parametrize("name", BUILTINS)
def test_no_limit_is_negative(name):
    """A limit or a cost (a setting a client may only lower) below 0 is refused, for the operator too."""
    limits = [(field, value) for field, value, client in _number_settings(name) if client == "at_most"]
    assert limits or name == "svg"
    for field, value in limits:
        with pytest.raises(ValueError, match=field):
            verifiers.get(name, **{field: -1 if isinstance(value, int) else -0.5})


@pytest.mark.parametrize(
    "name, config, message",
    [
        ("game24", {"weights": [1, -0.5, 0]}, "weights must be >= 0"),
        ("game24", {"wrong_answer_credit": 1.0}, "wrong_answer_credit"),
        ("game24", {"length_slope": -0.2}, "length_slope"),
        ("doudizhu", {"target_width": 0.0}, "target_width"),
        ("gomoku", {"target_width": -0.1}, "target_width"),
        ("gomoku", {"engine_timeout": 0.0}, "engine_timeout"),
        ("svg", {"clip_cosine_range": [0.3, 0.3]}, "clip_cosine_range"),
        ("svg", {"contrastive_temperature": -1.0}, "contrastive_temperature"),
    ],
)
def test_a_setting_that_would_invert_or_void_every_reward_is_refused(name, config, message):
    with pytest.raises(ValueError, match=message):
        verifiers.get(name, config)


@pytest.mark.parametrize(
    "name, config, message",
    [
        ("code", {"reward": "binary"}, "reward must be one of"),
        ("code", {"packages": ["sortedcontainers.sortedlist"]}, "top-level import names"),
        ("game24", {"prompt_style": "long"}, "prompt_style"),
        ("gomoku", {"estimator": "oracle"}, "estimator must be one of"),
        ("doudizhu", {"rollouts": 0}, "rollouts"),
        ("svg", {"renderer": "inkscape"}, "renderer must be one of"),
    ],
)
def test_every_builtin_checks_its_values_in_validate(name, config, message):
    assert callable(getattr(verifiers.verifier_class(name).Config, "validate", None))
    with pytest.raises(ValueError, match=message):
        verifiers.get(name, config)


def test_one_item_timeout_default_on_every_route():
    import inspect

    from evalkit.adapters import core, trl
    from evalkit.pipeline import evaluate
    from verifiers.batch import score_batch
    from verifiers.score import ITEM_TIMEOUT_SECONDS

    routes = [score_batch, verifiers.Verifier.score_batch, evaluate, core.score_labelled, trl.trl_reward]
    defaults = {f.__qualname__: inspect.signature(f).parameters["timeout"].default for f in routes}
    assert defaults == {name: ITEM_TIMEOUT_SECONDS for name in defaults}


@pytest.mark.parametrize("name", ["code", "doudizhu", "gomoku", "svg"])
def test_every_verifier_that_can_be_slow_declares_its_time_budget(name):
    """A batch never kills an item before the verifier's own limits do (its TIMEOUT, not an ERROR)."""
    assert verifiers.get(name).time_budget() >= 10.0

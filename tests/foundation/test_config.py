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

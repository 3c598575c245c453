"""The score API: Score round trips, config round trips, the registry, never-raising score()."""

import dataclasses
import json

import pytest

import verifiers
from verifiers import Score, Verdict, Verifier


def test_score_round_trips_through_json():
    s = Score(0.75, Verdict.PARTIAL, {"outcome": 0.5}, answer="24", reason="why", info={"steps": [1, 2]})
    back = Score.from_dict(json.loads(json.dumps(s.to_dict())))
    assert back == s
    assert back.verdict is Verdict.PARTIAL


def test_score_rejects_non_finite_reward():
    with pytest.raises(ValueError):
        Score(float("nan"), Verdict.CORRECT)


def test_error_scores_are_flagged_not_zeroed_silently():
    s = Score.error("sandbox down")
    assert s.is_error and s.verdict is Verdict.ERROR and "sandbox" in s.reason


def test_registry_lists_builtins_and_rejects_unknown_names():
    assert {"game24", "code", "svg", "gomoku", "doudizhu"} <= set(verifiers.names())
    with pytest.raises(verifiers.UnknownVerifier, match="unknown verifier 'nope'"):
        verifiers.get("nope")


def test_config_round_trips_through_a_plain_dict():
    v = verifiers.get("game24", weights=(0.5, 0.3, 0.2))
    as_json = json.loads(json.dumps(v.config_dict()))
    assert verifiers.get("game24", **as_json) == v
    assert verifiers.from_spec(json.loads(v.spec_json())) == v
    assert v.config.weights == (0.5, 0.3, 0.2)


def test_unknown_config_key_is_a_clear_error():
    with pytest.raises(TypeError, match="unknown config key"):
        verifiers.get("game24", weigths=(1, 0, 0))


def test_register_and_entry_point_group(monkeypatch):
    @verifiers.register("echo-test")
    class Echo(Verifier):
        def evaluate(self, completion, task):
            return Score(1.0 if completion == task["want"] else 0.0, Verdict.CORRECT)

    assert "echo-test" in verifiers.names()
    assert verifiers.get("echo-test").score("x", {"want": "x"}).reward == 1.0

    class FakeEntryPoint:
        name = "from-plugin"

        def load(self):
            return Echo

    monkeypatch.setattr(
        verifiers.registry,
        "entry_points",
        lambda group: [FakeEntryPoint()] if group == verifiers.ENTRY_POINT_GROUP else [],
    )
    assert "from-plugin" in verifiers.names()
    assert isinstance(verifiers.get("from-plugin"), Echo)


def test_a_broken_third_party_verifier_does_not_break_lookup(monkeypatch):
    class BrokenEntryPoint:
        name = "broken-plugin"

        def load(self):
            raise ModuleNotFoundError("No module named 'broken_plugin'")

    monkeypatch.setattr(
        verifiers.registry,
        "entry_points",
        lambda group: [BrokenEntryPoint()] if group == verifiers.ENTRY_POINT_GROUP else [],
    )
    with pytest.warns(UserWarning, match="broken-plugin"):
        assert verifiers.resolve("24GAME") == "game24"
    with pytest.warns(UserWarning, match="broken-plugin"):
        assert "outcome" in verifiers.all_components()


def test_score_never_raises_and_reports_verifier_bugs_as_error():
    class Buggy(Verifier):
        name = "buggy"

        def evaluate(self, completion, task):
            return {"not": "a score"} if completion == "dict" else 1 / 0

    v = Buggy()
    assert v.score("x", {}).verdict is Verdict.ERROR
    assert "ZeroDivisionError" in v.score("x", {}).reason
    assert v.score("dict", {}).verdict is Verdict.ERROR
    assert v.score(None, {}).verdict is Verdict.INVALID  # type: ignore[arg-type]


def test_bad_task_is_error_not_invalid():
    s = verifiers.get("game24").score("Answer: 1+2", {"numbers": "a b"})
    assert s.verdict is Verdict.ERROR and "bad task" in s.reason


def test_default_config_matches_dataclass_defaults():
    cls = verifiers.verifier_class("game24")
    assert cls.default_config() == verifiers.get("game24").config_dict()
    assert dataclasses.is_dataclass(cls.Config)

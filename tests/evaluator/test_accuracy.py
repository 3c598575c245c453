"""The reward-accuracy study (`evalkit accuracy`): error figures on hand-made scores, and the command
on real LeetCode programs, where fewer tests can only pass more programs, never fewer."""

import json
import subprocess
import sys

import pytest

from evalkit.accuracy import compare
from verifiers import Score, Verdict


def _s(verdict, reward):
    return Score(reward, Verdict(verdict))


def test_false_pass_false_fail_and_reward_error():
    full = [_s("correct", 1.0), _s("partial", 0.5), _s("incorrect", 0.0), _s("correct", 1.0), _s("error", 0.0)]
    cheap = [_s("correct", 1.0), _s("correct", 1.0), _s("incorrect", 0.0), _s("partial", 0.5), _s("correct", 1.0)]
    figures = compare(cheap, full)  # the ERROR item is left out of every figure
    assert figures["false_pass"] == pytest.approx(1 / 2)  # of the 2 wrong programs, 1 called correct
    assert figures["false_fail"] == pytest.approx(1 / 2)  # of the 2 correct ones, 1 not
    assert figures["reward_mae"] == pytest.approx((0 + 0.5 + 0 + 0.5) / 4)
    assert figures["reward_differs"] == pytest.approx(2 / 4)


def test_the_command_on_real_leetcode_programs(tmp_path):
    from verifiers.code import leetcode

    problems = [p for p in leetcode.load_problems() if len(p["test"]) < 6000][:2]
    programs = leetcode.program_mix(mutants_per_problem=2, seed=1, problems=problems)
    rows = [{"completion": p.completion(), **leetcode.as_task(p.problem)} for p in programs]
    data = tmp_path / "programs.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "accuracy.json"
    args = ["--verifier", "code", "--knob", "max_tests", "--values", "1,4", "--config", '{"backend": "local"}']
    r = subprocess.run(
        [sys.executable, "-m", "evalkit", "accuracy", str(data), *args, "-o", str(out), "--workers", "1"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    assert "false pass" in r.stdout
    result = json.loads(out.read_text())
    assert [row["value"] for row in result] == [1, 4, None]
    assert all(row["false_fail"] == 0 and row["errors"] == 0 for row in result)  # a subset of passing tests passes
    assert result[-1]["false_pass"] == 0 and result[-1]["reward_mae"] == 0  # the full budget against itself
    assert result[0]["false_pass"] >= result[1]["false_pass"]


def test_the_command_refuses_a_bad_knob_in_one_line(tmp_path):
    data = tmp_path / "x.jsonl"
    data.write_text(json.dumps({"completion": "Answer: 1", "numbers": [1]}) + "\n")
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "evalkit",
            "accuracy",
            str(data),
            "--verifier",
            "game24",
            "--knob",
            "tests",
            "--values",
            "2",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 2 and "unknown config key" in r.stderr and r.stderr.strip().count("\n") == 0

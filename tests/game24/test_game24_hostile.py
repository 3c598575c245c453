"""Hostile completions: each bounded in time, none raising, none rewarded as correct."""

import time

import pytest

import verifiers
from verifiers import Verdict

V = verifiers.get("game24")
TASK = {"numbers": [4, 4, 6, 8]}

HOSTILE = {
    "power tower": "Answer: 9**9**9",
    "caret": "Answer: 2^3*3*1",
    "factorial": "Answer: 4!*1*1*1",
    "division by zero": "Answer: 6*4/(1-1)",
    "leading zero": "Answer: 08*3*1*1",
    "int truncation": "Answer: (9+8)*(10/7)",
    "right value, wrong numbers": "Answer: 6*4*1*1 = 24",
    "one megabyte": "Answer: " + "1+" * 500_000 + "1",
    "megabyte of steps": "4 + 8 = 12 (left: 4 6 12)\n" * 40_000,
    "100k nested parentheses": "Answer: " + "(" * 100_000 + "24" + ")" * 100_000,
    "superscript digits": "Answer: (6-4)²*6 = 24",
    "code injection": "Answer: __import__('os').system('id')",
    "empty": "",
    "lone surrogate": "Answer: \ud800",
    "null bytes": "Answer: (6-4)*(4+8)\x00",
    "a megabyte of blank lines": "\n" * 1_000_000,
    "a megabyte of symbol lines": "!\n" * 500_000 + "Answer: 24",
    # a run of spaces after a sentence's answer (the inline path's longest text): a pattern that opened
    # with spaces, searched for, took n² steps (16 k spaces: 8 s in the trainer's thread)
    "spaces after a sentence's answer": "(8 - 4) * 6, so" + " " * 16_000 + "x",
    # words that turn from an answer to another, repeated: each searched for on the answer's line
    "turning words": "Answer: (8 - 4) * 6" + ", or rather — sorry, I mean (oops) ->" * 400 + " 24 - 0 * 4 * 4",
}


# The bounds are in this process's CPU seconds: a bound against a scan that grows faster than the
# text, which other work on a busy machine must not trip (wall clocks did, beside a full suite)
@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_completion_is_bounded_and_not_correct(name):
    start = time.process_time()
    s = V.score(HOSTILE[name], TASK)
    elapsed = time.process_time() - start
    assert elapsed < 5, f"{name} took {elapsed:.1f} s"
    assert s.verdict in (Verdict.INVALID, Verdict.INCORRECT), (name, s.verdict, s.reason)
    assert s.reason


def test_hostile_batch_is_bounded_in_worker_processes():
    scores = V.score_batch(list(HOSTILE.values()), [TASK] * len(HOSTILE), workers=2, timeout=10)
    assert all(s.verdict in (Verdict.INVALID, Verdict.INCORRECT) for s in scores)
    V.close()


@pytest.mark.parametrize("flood", ["\n", " \n", "!\n", "\t\n", "-\n"])
def test_a_flood_of_blank_or_symbol_lines_before_a_right_answer_is_bounded_and_correct(flood):
    """Degenerate models print long runs of empty lines: scanning them for steps once took n² steps
    (64 kB: 43 s, past the batch timeout, so a right answer lost its reward)."""
    start = time.process_time()
    s = V.score(flood * (1_000_000 // len(flood)) + "Answer: (6 - 4) * (4 + 8) = 24", TASK)
    elapsed = time.process_time() - start
    assert elapsed < 5, f"took {elapsed:.1f} s"
    assert s.verdict is Verdict.CORRECT, s.reason

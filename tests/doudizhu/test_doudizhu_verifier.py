"""The Dou Dizhu verifier end to end: spellings of a play, illegal plays with reasons, hostile
text, exact and adaptive modes, cards that read two ways, bans, determinism across processes,
and the built-in tasks and prompt."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import verifiers
from pytest_plugin import assert_bounded, assert_score, check_verifier
from verifiers.doudizhu import State, hand_from_text, legal_moves
from verifiers.doudizhu.position import state_from_task
from verifiers.doudizhu.tasks import as_task, generate, generate_played, load_all

LEAD = {"hand": "3 3 T T J Q K A 2 B R", "opponent": "4 4 5 5 6"}
FOLLOW = {"hand": "K K 3", "opponent": "4", "to_beat": "Q Q"}
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def dd():
    return verifiers.get("doudizhu", mode="rollout", rollouts=64)


@pytest.mark.parametrize(
    "completion, answer",
    [
        ("<move>33</move>", "3 3"),
        ("<move>3 3</move>", "3 3"),
        ("<move>3,3</move>", "3 3"),
        ("<move>**3 3**</move>", "3 3"),
        ("<move>10 10</move>", "T T"),
        ("<move>1010</move>", "T T"),
        ("<move>t t</move>", "T T"),
        ("<move>１０ １０</move>", "T T"),
        ("<move>10JQKA</move>", "T J Q K A"),
        ("<move>10 j q k a</move>", "T J Q K A"),
        ("<move>BR</move>", "B R"),
        ("<move>小王 大王</move>", "B R"),
        ("<move>black joker, red joker</move>", "B R"),
        ("<move>BJ RJ</move>", "B R"),
        ("<move>B</move>", "B"),
        ("Thinking...\nMove: 3 3", "3 3"),
        ("answer: 33", "3 3"),
        ("33", "3 3"),
        ("出牌：3 3", "3 3"),
        ("<move>3</move> no, better: <move>3 3</move>", "3 3"),  # the last play wins
        ("<move>3 3</move>\nMove: 3 3", "3 3"),  # a label that restates the tag's play
        ("I would play the pair of threes, I think, because it is safe.", "3 3"),  # named by count in words
        ("<move>3♠ 3♥</move>", "3 3"),  # suits have no rank
    ],
)
def test_spellings_of_a_play(dd, completion, answer):
    assert_score(dd, completion, LEAD, answer=answer)


@pytest.mark.parametrize(
    "completion", ["<move>PASS</move>", "pass", "Pass.", "<move>不要</move>", "要不起", "Move: pass"]
)
def test_spellings_of_pass(dd, completion):
    # they lead 4 and win: every rollout lost, which rollouts do not prove (half a playout off 0.0)
    assert_score(dd, completion, FOLLOW, answer="PASS", reward=0.5 / 65)


@pytest.mark.parametrize(
    "completion, task, reason",
    [
        ("<move>3 3 3</move>", LEAD, "not in your hand"),
        ("<move>3 T</move>", LEAD, "not a valid combination"),
        ("<move>PASS</move>", LEAD, "PASS is not allowed when leading"),
        ("<move>x</move>", LEAD, "'X' is not a card"),
        ("I would play the safe one, I think, because it is safe.", LEAD, "no play found"),
        ("<move></move>", LEAD, "no cards named"),
        ("<move>3</move>", FOLLOW, "does not beat Q Q (pair)"),
        ("<move>" + "3" * 500 + "</move>", LEAD, "longer than"),
    ],
)
def test_illegal_plays_are_invalid_with_a_reason(dd, completion, task, reason):
    s = assert_score(dd, completion, task, verdict="invalid", reward=0.0)
    assert reason in s.reason


def test_banned_combinations(dd):
    banned = verifiers.get("doudizhu", banned=("pair",))
    assert "pair is banned" in assert_score(banned, "<move>K K</move>", FOLLOW, verdict="invalid").reason
    trio = {"hand": "3 3 3 9 5", "opponent": "4 4"}
    assert (
        "trio single is banned"
        in assert_score(verifiers.get("doudizhu", banned=("31",)), "<move>3339</move>", trio, verdict="invalid").reason
    )
    assert_score(dd, "<move>3 3 3 9</move>", {**trio, "banned": ["31"]}, verdict="invalid")  # bans in the task too
    assert "Banned combinations: trio single." in dd.prompt({**trio, "banned": ["31"]})
    with pytest.raises(ValueError, match="unknown combination kinds"):
        verifiers.get("doudizhu", banned=("quintet",))


def test_exact_mode_and_verdicts(dd):
    exact = verifiers.get("doudizhu", mode="exact")
    task = {"hand": "A 3", "opponent": "K"}
    assert_score(exact, "<move>A</move>", task, verdict="correct", reward=1.0)
    assert_score(exact, "<move>3</move>", task, verdict="incorrect", reward=0.0)
    # A then 3 whatever happens: every rollout wins, yet only a proof scores 1.0
    assert_score(dd, "<move>A</move>", task, verdict="partial", reward=1.0 - 0.5 / 65)
    # after 3 a random opponent plays K (and wins) or passes (and loses) with equal chance
    s = assert_score(dd, "<move>3</move>", task, verdict="partial", reward=(0.3, 0.7))
    assert s.info["rollouts"] == 64 and s.info["ci95"][0] <= 0.5 <= s.info["ci95"][1] and not s.info["exact"]
    assert 0.05 < s.info["stderr"] < 0.07
    listed = {**task, "winning_moves": ["A"]}
    assert_score(dd, "<move>A</move>", listed, verdict="correct")
    assert_score(dd, "<move>3</move>", listed, verdict="incorrect")
    # other rules: the key does not apply, so the solver decides (auto mode, a small endgame)
    assert_score(verifiers.get("doudizhu", banned=("bomb",)), "<move>3</move>", listed, verdict="incorrect", reward=0.0)
    assert_score(
        verifiers.get("doudizhu", mode="rollout", banned=("bomb",)), "<move>3</move>", listed, verdict="partial"
    )
    assert_score(dd, "<move>3 3</move>", {"hand": "3 3", "opponent": "4"}, reward=1.0, verdict="correct")  # goes out
    big = {"hand": "3 4 5 6 8 8 9 J Q K 2 2", "opponent": "4 5 7 7 T T J A 2 B R 3"}
    assert_score(verifiers.get("doudizhu", mode="exact", exact_budget=10), "<move>3</move>", big, verdict="error")


def test_cards_that_read_two_ways_score_the_better_reading():
    exact = verifiers.get("doudizhu", mode="exact")
    task = {"hand": "3 3 3 4 4 4 5 5 5 6 6 6 K", "opponent": "7 7 7 8 8 8 9 9 9 J Q A"}
    s = assert_score(exact, "<move>333444555666</move>", task, reward=1.0, verdict="correct")
    # as a 4-trio airplane nothing follows it; as a 3-trio airplane with wings 777888999+JQA does
    assert sorted((r["kind"], r["win_rate"]) for r in s.info["readings"]) == [
        ("airplane", 1.0),
        ("airplane_singles", 0.0),
        ("airplane_singles", 0.0),
    ]
    assert s.info["kind"] == "airplane"


def test_adaptive_mode_stops_at_the_target_width():
    task = {"hand": "3 5 5 8 K 2", "opponent": "4 4 9 J A"}
    wide = verifiers.get("doudizhu", mode="rollout", target_width=0.2).score("<move>3</move>", task)
    narrow = verifiers.get("doudizhu", mode="rollout", target_width=0.05).score("<move>3</move>", task)
    for s, width in ((wide, 0.2), (narrow, 0.05)):
        low, high = s.info["ci95"]
        assert high - low <= width
    assert wide.info["rollouts"] < narrow.info["rollouts"] < 5000


HOSTILE = [
    "<move>" * 100_000,
    "</move>" * 100_000,
    "<move>" + "3" * 1_000_000 + "</move>",
    "Move: " + "3 " * 100_000,
    "10" * 500_000,
    "大王" * 100_000,
    "\n" * 1_000_000,
    "move:" * 200_000,
    "<move>PASS</move>" * 10_000,
    "\x00<move>\ud800</move>",
    "<move>" + "(" * 100 + "3" + ")" * 100 + "</move>",
    "Move: " + "move: " * 50_000,
    "Play: 3" + ", or rather — sorry, I mean (oops) ->" * 25_000 + " 3",  # words that turn to another, repeated
]


def test_hostile_move_strings_are_bounded(dd):
    """Bounded, not fast (bench/ measures speed): a scan quadratic in these texts takes minutes, and
    2 s a text failed on a busy 2-core machine (the suite's other worker, and more, beside it)."""
    for text in HOSTILE:
        start = time.perf_counter()
        s = dd.score(text, LEAD)
        assert time.perf_counter() - start < 10 and not s.is_error, (text[:40], s.reason)
    assert_bounded(dd, [(text, FOLLOW) for text in HOSTILE], seconds=10)


def test_invariants(dd):
    task = dd.tasks("test", limit=1)[0]
    check_verifier(dd, completions=[f"<move>{task['winning_moves'][0]}</move>", "<move>PASS</move>"], samples=2)


SCRIPT = """
import json, verifiers
v = verifiers.get("doudizhu", mode="rollout", rollouts=300, seed=5)
tasks = v.tasks("all", limit=6)
print(json.dumps([v.score("<move>" + t["winning_moves"][-1] + "</move>", t).to_dict() for t in tasks]))
"""


def test_same_input_same_reward_in_any_process():
    v = verifiers.get("doudizhu", mode="rollout", rollouts=300, seed=5)
    tasks = v.tasks("all", limit=6)
    here = [v.score("<move>" + t["winning_moves"][-1] + "</move>", t).to_dict() for t in tasks]
    for hash_seed in ("1", "777"):
        out = subprocess.run(
            [sys.executable, "-c", SCRIPT],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=ROOT,
            env={**os.environ, "PYTHONHASHSEED": hash_seed},
            check=True,
        )
        assert json.loads(out.stdout) == here
    other_seed = verifiers.get("doudizhu", mode="rollout", rollouts=300, seed=6)
    rewards = [other_seed.score("<move>" + t["winning_moves"][-1] + "</move>", t).reward for t in tasks]
    assert rewards != [s["reward"] for s in here]  # the base seed matters


def test_candidate_moves_share_the_random_stream():
    """Common random numbers: the stream is seeded from the position, never the move, so the
    difference between two plays' rewards is far less noisy than with independent streams."""
    task = {"hand": "3 4 6 K 2", "opponent": "3 5 5 8 8"}
    shared, independent = [], []
    for seed in range(100):
        v, w = (
            verifiers.get("doudizhu", mode="rollout", rollouts=64, seed=seed),
            verifiers.get("doudizhu", mode="rollout", rollouts=64, seed=seed + 1000),
        )
        three = v.score("<move>3</move>", task).reward
        shared.append(three - v.score("<move>4</move>", task).reward)
        independent.append(three - w.score("<move>4</move>", task).reward)
    assert np.var(shared) < 0.5 * np.var(independent)


def test_builtin_tasks():
    v = verifiers.get("doudizhu")
    tasks = load_all()
    assert len({t["id"] for t in tasks}) == len(tasks) >= 200
    test, train = v.tasks("test"), v.tasks("train")
    assert {t["id"] for t in test} | {t["id"] for t in train} == {t["id"] for t in tasks}
    assert not {t["id"] for t in test} & {t["id"] for t in train} and 0.1 < len(test) / len(tasks) < 0.3
    following = [t for t in tasks if t.get("to_beat")]
    assert len(following) >= 20 and any("PASS" in t["winning_moves"] for t in following)
    # every task has a winning and a losing play, by the solver, now as when it was generated
    for task in tasks[::9]:
        state = state_from_task(task)
        again = as_task(state)
        assert again is not None and again["winning_moves"] == task["winning_moves"], task["id"]
    assert [t["hand"] for t in tasks[:4]] == [t["hand"] for t in generate(5, 4)]
    assert [t["id"] for t in generate_played(8, 3)] == [t["id"] for t in tasks if t["id"].startswith("doudizhu8p")][:3]
    prompt = v.prompt(following[0])
    assert following[0]["hand"] in prompt and f"just played {following[0]['to_beat']}" in prompt
    assert "<move>PASS</move>" in prompt and "PASS is not allowed" in v.prompt(tasks[0])


def test_bad_tasks_are_errors(dd):
    for task in (
        {"hand": "3 3"},
        {"hand": "3 3 3 3 3", "opponent": "4"},
        {"hand": "3", "opponent": "3 3 3 3"},
        {"hand": "3", "opponent": "4", "to_beat": "5 6"},
        {"hand": "", "opponent": "4"},
        {"hand": "3", "opponent": "4", "to_beat": "5 5", "to_beat_kind": "trio"},
        {"hand": "3", "opponent": "4", "banned": ["nonsense"]},
    ):
        assert dd.score("<move>3</move>", task).is_error, task
    assert State(hand_from_text("3"), hand_from_text("4"), None).canonical() == "3|4|lead"


def test_default_reward_ranks_every_winning_play_above_every_losing_play():
    """Random-play value can rank a losing play first (doudizhu5-025: the losing 5 scored 0.83
    under rollouts, the winning plays 0.80 and 0.72); the default (auto: exact when affordable) never does."""
    v = verifiers.get("doudizhu")
    tasks = load_all()
    sample = [t for t in tasks if t["id"] == "doudizhu5-025"] + tasks[::6]
    for task in sample:
        state = state_from_task(task)
        rewards = {}
        for move in legal_moves(state.me, state.to_beat):
            name = "PASS" if move is None else move.text()
            rewards[name] = v.score(f"<move>{name}</move>", task)
        winning = [s.reward for n, s in rewards.items() if n in task["winning_moves"]]
        losing = [s.reward for n, s in rewards.items() if n not in task["winning_moves"]]
        assert min(winning) > max(losing), task["id"]
        assert all(s.info["proven"] and (s.verdict.value == "correct") == (s.reward == 1.0) for s in rewards.values())
    rollout = verifiers.get("doudizhu", mode="rollout")  # the seed's estimator, still there by name
    task = next(t for t in tasks if t["id"] == "doudizhu5-025")
    assert not rollout.score("<move>5</move>", task).info["proven"]

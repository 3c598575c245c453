"""Both game verifiers through the plugin: invariants, hacks, hostile move strings, determinism
across processes, and the shipped task files against their generators."""

import time

import pytest

from pytest_plugin import assert_not_hackable, assert_score, check_verifier
from verifiers.doudizhu import tasks as dd_tasks
from verifiers.gomoku import tasks as gm_tasks

HOSTILE = [
    "<move>" * 100_000,
    "A1 " * 300_000,
    "(1, 1)" * 100_000,
    "<move>" + "9" * 1_000_000 + "</move>",
    "row 99999999999999 col 3",
    "\x00<move>\ud800</move>",
    "<move>PASS</move>" * 10_000,
    # the reading rules' own shapes, repeated: labels that say none, questions, rejections, quoted examples
    "Answer: none\n" * 20_000,
    "Is it right? No, " * 10_000,
    "I5 is wrong. 3 loses to 5. " * 8_000,
    "e.g. <move>E5</move> like <move>3 3</move> " * 5_000,
    "Opponent's move: A1\nLead 3: " * 8_000,
    "3 first, then 6, J, " * 10_000,
]


@pytest.mark.parametrize("name", ["gomoku", "doudizhu"])
def test_invariants(verifier, name):
    v = verifier(name, rollouts=50)
    task = v.tasks("test", limit=1)[0]
    good = f"<move>{(task.get('best_moves') or task.get('winning_moves'))[0]}</move>"
    check_verifier(v, completions=[good, "<move>PASS</move>"], samples=2)


@pytest.mark.parametrize("name", ["gomoku", "doudizhu"])
def test_hacks_earn_nothing(verifier, name):
    v = verifier(name, rollouts=50)
    for task in v.tasks("test", limit=3):
        assert_not_hackable(v, task, threshold=0.0)


@pytest.mark.parametrize("name", ["gomoku", "doudizhu"])
def test_hostile_move_strings_are_bounded(verifier, name):
    v = verifier(name, rollouts=50)
    task = v.tasks("test", limit=1)[0]
    for text in HOSTILE:
        start = time.perf_counter()
        s = v.score(text, task)
        assert time.perf_counter() - start < 5 and not s.is_error, (text[:40], s.reason)


@pytest.mark.parametrize("name", ["gomoku", "doudizhu"])
def test_same_input_same_reward_in_any_process(verifier, name):
    v = verifier(name, rollouts=100)
    tasks = v.tasks("test", limit=4)
    completions = [f"<move>{(t.get('best_moves') or t.get('winning_moves'))[0]}</move>" for t in tasks]
    assert v.score_batch(completions, tasks, workers=2) == [v.score(c, t) for c, t in zip(completions, tasks)]


def test_doudizhu_answers_and_exact_mode(verifier):
    v = verifier("doudizhu", mode="rollout")
    task = {"hand": "A 3", "opponent": "K"}
    assert_score(v, "<move>A</move>", task, verdict="partial", reward=(0.99, 1.0))  # A then 3: always wins
    # after 3, a random opponent plays K (and wins) or passes (and loses) with equal chance
    assert_score(v, "Play: 3", task, reward=(0.35, 0.65))
    auto = verifier("doudizhu")  # small enough to solve: the exact value, not random play's
    assert_score(auto, "Play: 3", task, verdict="incorrect", reward=0.0)
    assert_score(auto, "<move>A</move>", task, verdict="correct", reward=1.0)
    assert_score(v, "<move>3 3</move>", task, verdict="invalid")
    exact = verifier("doudizhu", mode="exact")
    assert_score(exact, "<move>A</move>", {**task, "winning_moves": ["A"]}, verdict="correct", reward=1.0)
    assert_score(exact, "<move>3</move>", {**task, "winning_moves": ["A"]}, verdict="incorrect", reward=0.0)
    follow = {"hand": "K K 3", "opponent": "4", "to_beat": "Q Q"}
    # every rollout wins (then 3 goes out) or loses (a pass: they lead 4 and win), yet rollouts prove
    # nothing: 1.0 and 0.0 belong to proofs, so these sit half a playout inside the ends
    won, lost = v.score("<move>K K</move>", follow), v.score("<move>不要</move>", follow)
    assert won.info["observed"] == 1.0 and won.reward == 1.0 - 0.5 / (won.info["rollouts"] + 1)
    assert lost.info["observed"] == 0.0 and lost.reward == 0.5 / (lost.info["rollouts"] + 1)
    banned = verifier("doudizhu", banned=("pair",))
    assert_score(banned, "<move>K K</move>", follow, verdict="invalid")


def test_shipped_task_files_match_their_generators():
    shipped = dd_tasks.load_all()
    fresh = list(dd_tasks.generate(5, 6))
    assert [t["hand"] for t in shipped[:6]] == [t["hand"] for t in fresh]
    assert all(t["winning_moves"] and len(t["winning_moves"]) < t["moves"] for t in shipped)
    gm = gm_tasks.load_all()
    assert [t["moves"] for t in gm[:5]] == [t["moves"] for t in gm_tasks.generate(9, 5)]
    assert {t["size"] for t in gm} == {9, 15}


def test_a_bare_list_of_cells_is_no_move_whatever_stands_on_the_board(verifier):
    """gomoku9-120: X wins at A1 beside its own B2 C3 D4 E5. A bare list of those cells is a list of
    candidates (the "many moves" probe), refused; words that say what it plays make the stones the
    position and the move the answer."""
    v = verifier("gomoku")
    task = next(t for t in v.tasks("test") if t["id"] == "gomoku9-120")
    for spray in ("A1 B2 C3 D4 E5 PASS 3 3 3", "A1 B2 C3 D4 E5", "A1, B2, C3, D4, E5"):
        assert v.score(spray, task).verdict.value == "invalid", spray
    for said in ("X wins by playing A1: A1, B2, C3, D4, E5.", "A1 completes the five B2 C3 D4 E5."):
        assert v.score(said, task).verdict.value == "correct", said


# the first task set's gomoku9-001: its only block, G3, loses to the opponent's continuous fours
LOST_BLOCK = ["E5", "D5", "G1", "C6", "H2", "I2", "I1", "I3", "E9", "G2", "H9", "C5", "F9", "H8", "F4"]


def test_a_block_the_search_proves_lost_is_no_task(verifier):
    """Every move of a lost position scores 0 and its key names a move the verifier calls wrong:
    the generator leaves such a position out, and leaving it out renames no other task."""
    from verifiers.gomoku import from_task

    position = from_task({"size": 9, "moves": LOST_BLOCK})
    kind, block = gm_tasks.classify(position)
    assert kind == "block" and gm_tasks.lost(position, block)
    v = verifier("gomoku")
    task = {"size": 9, "moves": LOST_BLOCK, "best_moves": [position.name(block[0])]}
    assert v.score(f"<move>{position.name(block[0])}</move>", task).reward == 0.0
    shipped = gm_tasks.load_all()
    assert LOST_BLOCK not in [t["moves"] for t in shipped]
    ids = [t["id"] for t in shipped]
    assert "gomoku9-001" not in ids and ids[:2] == ["gomoku9-000", "gomoku9-002"]  # the rest keep their names
    assert len(shipped) == 200 and len(set(ids)) == 200

"""Built-in Dou Dizhu endgames: seeded random deals, and positions reached from deals by random
play, kept only where the choice matters: the side to move has at least one winning and at least
one losing play by the exact solver. Shipped as tasks.json (`python -m verifiers.doudizhu.tasks`
rebuilds it in about 20 s)."""

from __future__ import annotations

import itertools
import json
import random
from functools import lru_cache
from pathlib import Path
from typing import Any

from .cards import cards_text, legal_moves
from .game import State, ends_game, move_value

DECK = [r for r in range(13) for _ in range(4)] + [13, 14]
TASKS_FILE = Path(__file__).with_name("tasks.json")


def deal(rng: random.Random, cards_each: int) -> State:
    deck = DECK[:]
    rng.shuffle(deck)
    me, them = [0] * 15, [0] * 15
    for r in deck[:cards_each]:
        me[r] += 1
    for r in deck[cards_each : 2 * cards_each]:
        them[r] += 1
    return State(tuple(me), tuple(them), None)


def move_values(state: State) -> dict[str, float]:
    """Exact value of every legal play by its text ('PASS' included); when cards read two ways
    the better reading counts, since the player may declare it."""
    values: dict[str, float] = {}
    for move in legal_moves(state.me, state.to_beat):
        name = "PASS" if move is None else move.text()
        values[name] = max(values.get(name, 0.0), move_value(state, move))
    return values


def as_task(state: State) -> dict[str, Any] | None:
    """The task for `state`, or None when every play wins or every play loses."""
    values = move_values(state)
    winning = sorted(t for t, v in values.items() if v == 1.0)
    if not winning or len(winning) == len(values):
        return None
    task: dict[str, Any] = {"hand": cards_text(state.me), "opponent": cards_text(state.them)}
    if state.to_beat is not None:
        task.update(to_beat=state.to_beat.text(), to_beat_kind=state.to_beat.kind)
    share = len(winning) / len(values)
    task.update(
        winning_moves=winning,
        moves=len(values),
        difficulty="easy" if share >= 0.5 else ("medium" if share >= 0.2 else "hard"),
    )
    return task


def _collect(states, prefix: str, count: int, attempts: int) -> tuple[dict, ...]:
    found: dict[str, dict] = {}
    for state in states:
        if len(found) >= count or attempts <= 0:
            break
        attempts -= 1
        task = as_task(state) if state is not None else None
        if task is not None:
            found.setdefault(f"{task['hand']}|{task['opponent']}|{task.get('to_beat', '')}", task)
    return tuple({"id": f"{prefix}-{i:03d}", **t} for i, t in enumerate(found.values()))


@lru_cache(maxsize=None)
def generate(cards_each: int, count: int, seed: int = 0) -> tuple[dict, ...]:
    """Fresh deals, the side to move leading."""
    rng = random.Random(f"doudizhu:{cards_each}:{seed}")
    states = (deal(rng, cards_each) for _ in itertools.count())
    return _collect(states, f"doudizhu{cards_each}", count, count * 100)


def played(rng: random.Random, cards_each: int, max_plies: int) -> State | None:
    """A deal followed by 1..max_plies uniformly random plies (None if the game ended first)."""
    state = deal(rng, cards_each)
    for _ in range(rng.randint(1, max_plies)):
        moves = legal_moves(state.me, state.to_beat)
        move = moves[rng.randrange(len(moves))]
        if ends_game(state, move):
            return None
        state = state.after(move)
    return state


@lru_cache(maxsize=None)
def generate_played(cards_each: int, count: int, seed: int = 0, max_plies: int = 6) -> tuple[dict, ...]:
    """Positions reached by random play from fresh deals: leading or following, uneven hands."""
    rng = random.Random(f"doudizhu-played:{cards_each}:{seed}")
    states = (played(rng, cards_each, max_plies) for _ in itertools.count())
    return _collect(states, f"doudizhu{cards_each}p", count, count * 100)


def build_all() -> list[dict]:
    """The built-in task set."""
    parts = (generate(5, 120), generate(8, 40), generate_played(8, 40), generate_played(10, 40))
    return [dict(t) for part in parts for t in part]


def load_all() -> list[dict]:
    return json.loads(TASKS_FILE.read_text())


if __name__ == "__main__":
    TASKS_FILE.write_text(json.dumps(build_all(), indent=0, ensure_ascii=False) + "\n")
    print(f"wrote {TASKS_FILE}")

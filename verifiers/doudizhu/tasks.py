"""Built-in Dou Dizhu endgames: seeded random deals where the choice matters, i.e. the side to
move has at least one winning and at least one losing play by the exact solver."""
from __future__ import annotations

import json
import random
from functools import lru_cache
from pathlib import Path

from .cards import cards_text, legal_moves
from .game import State, move_value

DECK = [r for r in range(13) for _ in range(4)] + [13, 14]


@lru_cache(maxsize=None)
def generate(cards_each: int, count: int, seed: int = 0) -> tuple[dict, ...]:
    rng = random.Random(f"doudizhu:{cards_each}:{seed}")
    tasks: dict[str, dict] = {}
    attempts = 0
    while len(tasks) < count and attempts < count * 100:
        attempts += 1
        deck = DECK[:]
        rng.shuffle(deck)
        me, them = [0] * 15, [0] * 15
        for r in deck[:cards_each]:
            me[r] += 1
        for r in deck[cards_each:2 * cards_each]:
            them[r] += 1
        state = State(tuple(me), tuple(them), None)
        values = {m.text(): move_value(state, m) for m in legal_moves(state.me, None) if m is not None}
        winning = sorted(t for t, v in values.items() if v == 1.0)
        if winning and len(winning) < len(values):
            key = f"{cards_text(state.me)}|{cards_text(state.them)}"
            tasks.setdefault(key, {"hand": cards_text(state.me), "opponent": cards_text(state.them),
                                   "winning_moves": winning, "moves": len(values)})
    out = []
    for i, task in enumerate(tasks.values()):
        share = len(task["winning_moves"]) / task["moves"]
        difficulty = "easy" if share >= 0.5 else ("medium" if share >= 0.2 else "hard")
        out.append({"id": f"doudizhu{cards_each}-{i:03d}", **task, "difficulty": difficulty})
    return tuple(out)



TASKS_FILE = Path(__file__).with_name("tasks.json")


def build_all() -> list[dict]:
    """The built-in task set (shipped as tasks.json: generating it takes seconds)."""
    return [dict(t) for t in generate(5, 120)] + [dict(t) for t in generate(8, 40)]


def load_all() -> list[dict]:
    return json.loads(TASKS_FILE.read_text())


if __name__ == "__main__":
    TASKS_FILE.write_text(json.dumps(build_all(), indent=0) + "\n")
    print(f"wrote {TASKS_FILE}")

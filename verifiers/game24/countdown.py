"""Countdown task sets: reach a target with 2-6 numbers, each used once, with + - * /.

The 24-point verifier scores and prompts any count of numbers and any target; these are the
tasks. A puzzle is drawn by seeded rules (numbers from 1..`high`, a target the numbers can reach
in `target_range`), then kept only when the solver proves it solvable, and labelled by what makes
it hard: the count of numbers, the size of the target, the number of distinct solutions, and
whether every solution needs a fraction along the way.

Named sets (`TASK_SETS`) are selected with the verifier's `task_set` config, from the CLI
(`--config '{"task_set": "countdown-3"}'`) or a GRPO config (`verifier_config`). The 1362 classic
24-point puzzles stay the default. The split is the verifier's usual seeded 80/20.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import random
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from pathlib import Path

from .solver import Node, _combine, _needs_fractions, _reachable

TASKS_FILE = Path(__file__).with_name("countdown.json")


@dataclass(frozen=True)
class CountdownSpec:
    count: int  # numbers per puzzle (2-6)
    tasks: int  # how many to draw
    high: int = 13  # numbers from 1..high
    target_range: tuple[int, int] = (10, 100)


TASK_SETS: dict[str, CountdownSpec] = {
    "countdown-2": CountdownSpec(2, 200, high=25, target_range=(10, 200)),
    "countdown-3": CountdownSpec(3, 300),
    "countdown-4": CountdownSpec(4, 300),
    "countdown-5": CountdownSpec(5, 200, target_range=(20, 200)),
}


def count_solutions(numbers: tuple[int, ...], target: int, cap: int = 9) -> int:
    """Distinct solutions (up to commutativity), counted up to `cap`: enough to bucket difficulty."""
    goal = Fraction(target)
    found: set[str] = set()

    def search(nodes: list[Node]) -> bool:
        if len(nodes) == 1:
            if nodes[0][0] == goal:
                found.add(nodes[0][1])
            return len(found) >= cap
        for i, j in itertools.combinations(range(len(nodes)), 2):
            rest = [n for k, n in enumerate(nodes) if k not in (i, j)]
            for node in _combine(nodes[i], nodes[j]):
                if goal not in _reachable(tuple(sorted([n[0] for n in rest] + [node[0]]))):
                    continue  # prune: this step cannot lead to the target
                if search(rest + [node]):
                    return True
        return False

    search([(Fraction(n), str(n), True) for n in numbers])
    return len(found)


def difficulty(count: int, n_solutions: int, needs_fractions: bool) -> str:
    """`c3-easy` ... `c5-hard`: the count of numbers first, then how rare the solutions are (with
    two or three numbers there are few expressions at all: two numbers are easy, three with one
    solution medium)."""
    if needs_fractions:
        level = "hard"
    elif count == 2:
        level = "easy"
    elif count == 3:
        level = "easy" if n_solutions >= 2 else "medium"
    else:
        level = "hard" if n_solutions <= 2 else ("medium" if n_solutions <= 8 else "easy")
    return f"c{count}-{level}"


def generate(name: str, seed: int = 0) -> list[dict]:
    """The task set `name`, drawn with `seed`; every puzzle proven solvable."""
    spec = TASK_SETS[name]
    rng = random.Random(f"countdown:{name}:{seed}")
    low, high = spec.target_range
    tasks: dict[str, dict] = {}
    attempts = 0
    while len(tasks) < spec.tasks and attempts < spec.tasks * 50:
        attempts += 1
        drawn = [rng.randint(1, spec.high) for _ in range(spec.count)]
        numbers = tuple(sorted(drawn))
        reachable = sorted(
            int(v)
            for v in _reachable(tuple(Fraction(n) for n in numbers))
            if v.denominator == 1 and low <= v <= high and int(v) not in numbers
        )
        if not reachable:
            continue
        target = rng.choice(reachable)
        key = f"{name}-{'-'.join(map(str, numbers))}-t{target}"
        if key in tasks:
            continue
        n_solutions = count_solutions(numbers, target)
        fractions = _needs_fractions(numbers, target)
        tasks[key] = {
            "id": key,
            "numbers": drawn,  # in the order drawn: a sorted list would make every − answer reverse it
            "target": target,
            "n_solutions": n_solutions,
            "needs_fractions": fractions,
            "difficulty": difficulty(spec.count, n_solutions, fractions),
            "task_set": name,
        }
    return list(tasks.values())


@lru_cache(maxsize=None)
def _shipped() -> dict[str, list[dict]]:
    return json.loads(TASKS_FILE.read_text())


#: The "mix" task set: countdown by count of numbers next to the classic 24 puzzles. Each task's
#: bucket (`difficulty`) is its set, in difficulty order; its own label moves to `level`. It is
#: what the main job evaluates, so the table shows accuracy falling as puzzles get harder.
MIX = {"countdown-2": "c2", "countdown-3": "c3", "countdown-4": "c4"}
MIX_CLASSIC = "24-game"


MIX_PER_SET = 200  # tasks from each set, so every bucket gets an equal share of a stratified sample


def load_mix(classic: list[dict]) -> list[dict]:
    """The mix's tasks: `MIX_PER_SET` from each set, chosen by a hash of the id (ids unchanged, so
    each task keeps its own set's train/test split)."""
    sets = [(label, load(name)) for name, label in MIX.items()] + [(MIX_CLASSIC, classic)]
    return [
        {**t, "level": t.get("difficulty"), "difficulty": label}
        for label, tasks in sets
        for t in sorted(tasks, key=_id_hash)[:MIX_PER_SET]
    ]


def _id_hash(task: dict) -> str:
    return hashlib.blake2b(str(task["id"]).encode(), digest_size=8).hexdigest()


def load(name: str) -> list[dict]:
    """The shipped tasks of set `name` (`python -m verifiers.game24.countdown` rebuilds them)."""
    if name not in TASK_SETS:
        raise ValueError(f"unknown task set {name!r}; known: classic, {', '.join(TASK_SETS)}")
    return [dict(t) for t in _shipped()[name]]


if __name__ == "__main__":
    TASKS_FILE.write_text(json.dumps({name: generate(name) for name in TASK_SETS}, indent=0) + "\n")
    print(f"wrote {TASKS_FILE}")

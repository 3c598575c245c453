"""Every solution of a puzzle, the built-in task set, and its difficulty feature.

Solutions are deduplicated up to commutativity (`a + b` and `b + a` are one solution; different
groupings are different solutions). Run `python -m verifiers.game24.solver` to rebuild the
shipped task file `tasks.json` (all solvable multisets of four numbers from 1..13: 1362 of 1820).
"""

from __future__ import annotations

import itertools
import json
from fractions import Fraction
from functools import lru_cache
from pathlib import Path

TASKS_FILE = Path(__file__).with_name("tasks.json")

Node = tuple[Fraction, str, bool]  # value, canonical text, is_atom (needs no parentheses)


def _combine(x: Node, y: Node) -> list[Node]:
    """All results of one binary operation on x and y, canonical up to commutativity."""
    (a, _, _), (b, _, _) = x, y
    pa, pb = _wrap(x), _wrap(y)
    first, second = sorted((pa, pb))
    out: list[Node] = [
        (a + b, f"{first} + {second}", False),
        (a * b, f"{first} * {second}", False),
        (a - b, f"{pa} - {pb}", False),
        (b - a, f"{pb} - {pa}", False),
    ]
    if b != 0:
        out.append((a / b, f"{pa} / {pb}", False))
    if a != 0:
        out.append((b / a, f"{pb} / {pa}", False))
    return out


def _wrap(node: Node) -> str:
    return node[1] if node[2] else f"({node[1]})"


def solutions(numbers: list[int] | tuple[int, ...], target: int = 24) -> list[str]:
    """Every distinct fully parenthesised expression over `numbers` (each once) equal to `target`."""
    found: set[str] = set()
    goal = Fraction(target)

    def search(nodes: list[Node]) -> None:
        if len(nodes) == 1:
            if nodes[0][0] == goal:
                found.add(nodes[0][1])
            return
        for i, j in itertools.combinations(range(len(nodes)), 2):
            rest = [n for k, n in enumerate(nodes) if k not in (i, j)]
            for node in _combine(nodes[i], nodes[j]):
                search(rest + [node])

    search([(Fraction(n), str(n), True) for n in numbers])
    return sorted(found)


@lru_cache(maxsize=None)
def _reachable(values: tuple[Fraction, ...]) -> frozenset[Fraction]:
    if len(values) == 1:
        return frozenset(values)
    out: set[Fraction] = set()
    for i, j in itertools.combinations(range(len(values)), 2):
        rest = tuple(v for k, v in enumerate(values) if k not in (i, j))
        a, b = values[i], values[j]
        for r in (a + b, a * b, a - b, b - a) + ((a / b,) if b else ()) + ((b / a,) if a else ()):
            out |= _reachable(tuple(sorted(rest + (r,))))
    return frozenset(out)


def solvable(numbers: list[int] | tuple[int, ...], target: int = 24) -> bool:
    """Fast yes/no (memoised over sorted states); far cheaper than listing every solution."""
    return Fraction(target) in _reachable(tuple(sorted(Fraction(n) for n in numbers)))


def _needs_fractions(numbers: tuple[int, ...], target: int) -> bool:
    """True when no solution keeps every intermediate a non-negative integer (the hardest puzzles)."""

    def integer_search(values: tuple[int, ...]) -> bool:
        if len(values) == 1:
            return values[0] == target
        for i, j in itertools.combinations(range(len(values)), 2):
            rest = tuple(v for k, v in enumerate(values) if k not in (i, j))
            a, b = values[i], values[j]
            results = {a + b, a * b, abs(a - b)}
            if b and a % b == 0:
                results.add(a // b)
            if a and b % a == 0:
                results.add(b // a)
            if any(integer_search(rest + (r,)) for r in results):
                return True
        return False

    return not integer_search(numbers)


def difficulty(n_solutions: int, needs_fractions: bool) -> str:
    """Coarse bucket: fewer distinct solutions means a harder search; fractions mean hardest."""
    if needs_fractions or n_solutions <= 2:
        return "hard"
    return "medium" if n_solutions <= 8 else "easy"


def build_task_set(low: int = 1, high: int = 13, target: int = 24) -> list[dict]:
    tasks = []
    for combo in itertools.combinations_with_replacement(range(low, high + 1), 4):
        if not solvable(combo, target):
            continue
        sols = solutions(combo, target)
        fractions_only = _needs_fractions(combo, target)
        tasks.append(
            {
                "id": "game24-" + "-".join(map(str, combo)),
                "numbers": list(combo),
                "target": target,
                "n_solutions": len(sols),
                "needs_fractions": fractions_only,
                "difficulty": difficulty(len(sols), fractions_only),
                "solution": sols[0],
            }
        )
    return tasks


def load_task_set() -> list[dict]:
    return json.loads(TASKS_FILE.read_text())


if __name__ == "__main__":
    built = build_task_set()
    TASKS_FILE.write_text(json.dumps(built, indent=0) + "\n")
    print(f"wrote {len(built)} tasks to {TASKS_FILE}")

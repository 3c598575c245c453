"""Helpers every benchmark shares: timing and writing results (JSON for machines, Markdown for people)."""

from __future__ import annotations

import json
import platform
import time
from pathlib import Path
from typing import Any, Callable

RESULTS = Path(__file__).resolve().parent / "results"


def rate(fn: Callable[[], Any], items: int, repeat: int = 3, setup: Callable[[], Any] | None = None) -> float:
    """Best-of-`repeat` items per second (the best run is the least disturbed by a noisy machine).
    `setup` runs untimed before each repeat (e.g. to empty a cache so repeats measure cold work)."""
    best = float("inf")
    for _ in range(repeat):
        if setup is not None:
            setup()
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return items / best


def rates_in_turns(
    runs: dict[str, Callable[[], Any]], items: int, rounds: int = 9, setups: dict[str, Callable[[], Any]] | None = None
) -> dict[str, float]:
    """Best-of-`rounds` items per second for each of `runs`, taken in turns (a, b, a, b, ...): a slow
    spell of a shared machine then falls on every side alike, where back-to-back repeats would charge
    it to one side's ratio. `setups[name]` runs untimed before each of that run's turns."""
    best = dict.fromkeys(runs, float("inf"))
    for _ in range(rounds):
        for name, fn in runs.items():
            if setups and name in setups:
                setups[name]()
            best[name] = min(best[name], _seconds(fn))
    return {name: items / seconds for name, seconds in best.items()}


def _seconds(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def write_results(name: str, figures: dict[str, Any], table: list[tuple[str, ...]], notes: str = "") -> None:
    """Write bench/results/NAME.json and NAME.md (a table whose first row is the header)."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    meta = {
        "machine": platform.machine(),
        "python": platform.python_version(),
        "when": time.strftime("%Y-%m-%d %H:%M:%S"),
    }
    (RESULTS / f"{name}.json").write_text(json.dumps({**figures, "meta": meta}, indent=2) + "\n")
    header, *rows = table
    lines = [f"# {name}", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    if notes:
        lines += ["", notes]
    (RESULTS / f"{name}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))

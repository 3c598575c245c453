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

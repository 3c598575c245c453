"""A rich table of how a set of scores came out: verdicts, mean reward, errors kept apart."""
from __future__ import annotations

from typing import Iterable

from rich.table import Table

from verifiers import Score, Verdict


def summary_table(scores: Iterable[Score], title: str = "") -> Table:
    scores = list(scores)
    table = Table(title=title or None)
    table.add_column("verdict")
    table.add_column("count", justify="right")
    table.add_column("share", justify="right")
    table.add_column("mean reward", justify="right")
    n = len(scores)
    for verdict in Verdict:
        group = [s for s in scores if s.verdict is verdict]
        if not group:
            continue
        mean = sum(s.reward for s in group) / len(group)
        table.add_row(verdict.value, str(len(group)), f"{len(group) / n:.1%}",
                      "n/a (verifier failed)" if verdict is Verdict.ERROR else f"{mean:.3f}")
    scored = [s for s in scores if not s.is_error]
    if scored:
        table.add_row("[bold]all but error", str(len(scored)), f"{len(scored) / n:.1%}",
                      f"[bold]{sum(s.reward for s in scored) / len(scored):.3f}")
    return table

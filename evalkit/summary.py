"""A rich table of how a set of scores came out: verdicts, mean reward, errors kept apart."""

from __future__ import annotations

from typing import Iterable

from rich.table import Table

from verifiers import Score, Verdict, verdict_counts

from .metrics import shown


def summary_table(scores: Iterable[Score], title: str = "") -> Table:
    scores = list(scores)
    table = Table(title=title or None)
    table.add_column("verdict")
    table.add_column("count", justify="right")
    table.add_column("share", justify="right")
    table.add_column("mean reward", justify="right")
    n = len(scores)
    for verdict, count in verdict_counts(scores).items():
        if not count:
            continue
        mean = sum(s.reward for s in scores if s.verdict.value == verdict) / count
        table.add_row(
            verdict,
            str(count),
            f"{count / n:.1%}",
            "n/a (verifier failed)" if verdict == Verdict.ERROR.value else f"{mean:.3f}",
        )
    scored = [s for s in scores if not s.is_error]
    if scored:
        table.add_row(
            "[bold]all but error",
            str(len(scored)),
            f"{len(scored) / n:.1%}",
            f"[bold]{sum(s.reward for s in scored) / len(scored):.3f}",
        )
    return table


def report_table(summary: dict, title: str = "") -> Table:
    """The evaluation summary as a terminal table: one row per metric, one column per group
    (all samples, then each difficulty), so it stays readable in an 80-column terminal."""
    groups = {"all": summary["overall"], **summary["by_difficulty"]}
    table = Table("metric", *groups, title=title or None)
    first = summary["overall"]

    def row(label: str, get) -> None:
        table.add_row(label, *(get(g) for g in groups.values()))

    row("tasks / samples", lambda g: f"{g['tasks']} / {g['samples']}")
    row("accuracy", lambda g: f"{g['accuracy']:.3f}")
    row("mean reward", lambda g: f"{g['mean_reward']:.3f}")
    row("  95% interval", lambda g: f"{g['reward_low']:.3f}–{g['reward_high']:.3f}")
    for k in first["pass_at"]:
        row(f"pass@{k}", lambda g, k=k: f"{g['pass_at'][k]:.3f}" if k in g["pass_at"] else "–")
    for k in first["maj_at"]:
        row(f"maj@{k}", lambda g, k=k: shown(g["maj_at"][k]) if k in g["maj_at"] else "–")
    row("incomplete (hit max tokens)", lambda g: f"{g['incompletion']:.3f}")
    row("verifier errors", lambda g: f"{g['error_rate']:.3f}")
    row("mean / p90 tokens", lambda g: f"{g['length_mean']:.0f} / {g['length_p90']:.0f}")
    return table

"""A rich table of how a set of scores came out: verdicts, mean reward, errors kept apart."""

from __future__ import annotations

from typing import Iterable

from rich.console import Group
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


LABEL_WIDTH = 13  # the longest metric label below
CELL_WIDTH = 9  # the widest figure: an interval such as 0.21–0.27


def report_table(summary: dict, title: str = "", width: int = 80) -> Group:
    """The evaluation summary for a terminal: one row per metric, one column per group (all
    samples, then each difficulty). Every figure stays whole at `width` columns: labels are short,
    intervals take their own row, and the groups are split over several tables when they do not
    fit side by side (each table repeats the metric column)."""
    groups = list({"all": summary["overall"], **summary["by_difficulty"]}.items())
    return _split_tables(groups, summary["overall"], title, width)


def suite_table(summaries: dict[str, dict], title: str = "", width: int = 80) -> Group:
    """A suite's summary (verifier × bucket): for each verifier its all-samples column, then its
    buckets, each headed by the verifier's key over the bucket, under the same width rule."""
    groups = []
    for key, summary in summaries.items():
        groups.append((f"{key}\nall", summary["overall"]))
        groups += [(f"{key}\n{bucket}", g) for bucket, g in summary["by_difficulty"].items()]
    return _split_tables(groups, next(iter(summaries.values()))["overall"], title, width)


def _split_tables(groups: list[tuple[str, dict]], first: dict, title: str, width: int) -> Group:
    cell = max([CELL_WIDTH, *(len(part) for name, _ in groups for part in name.split("\n"))])
    per_table = max(1, (width - LABEL_WIDTH - 4) // (cell + 3))
    chunks = [groups[k : k + per_table] for k in range(0, len(groups), per_table)]
    return Group(*(_metrics_table(first, chunk, title if k == 0 else "") for k, chunk in enumerate(chunks)))


def _metrics_table(first: dict, groups: list[tuple[str, dict]], title: str) -> Table:
    table = Table(title=title or None, expand=False)
    table.add_column("metric", no_wrap=True, min_width=LABEL_WIDTH)
    for name, _ in groups:
        table.add_column(str(name), justify="right", no_wrap=True, min_width=CELL_WIDTH)

    def row(label: str, get) -> None:
        table.add_row(label, *(get(g) for _, g in groups))

    row("tasks/samples", lambda g: f"{g['tasks']}/{g['samples']}")
    row("accuracy", lambda g: f"{g['accuracy']:.3f}")
    row("  95% CI", lambda g: _interval(g.get("accuracy_low"), g.get("accuracy_high")))
    row("mean reward", lambda g: f"{g['mean_reward']:.3f}")
    row("  95% CI", lambda g: _interval(g["reward_low"], g["reward_high"]))
    for k in first["pass_at"]:
        row(f"pass@{k}", lambda g, k=k: f"{g['pass_at'][k]:.3f}" if k in g["pass_at"] else "–")
    for k in first["maj_at"]:
        row(f"maj@{k}", lambda g, k=k: shown(g["maj_at"][k]) if k in g["maj_at"] else "–")
    row("truncated", lambda g: f"{g['incompletion']:.3f}")
    row("errors", lambda g: f"{g['error_rate']:.3f}")
    row("tokens μ/p90", lambda g: f"{g['length_mean']:.0f}/{g['length_p90']:.0f}")
    return table


def _interval(low: float | None, high: float | None) -> str:
    return "–" if low is None or high is None else f"{low:.2f}–{high:.2f}"

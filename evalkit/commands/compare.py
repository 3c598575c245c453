"""Show two evaluation runs side by side, metric by metric, with the difference and, for accuracy
and mean reward, its 95% interval (a bootstrap over tasks, paired where both runs hold the same
tasks: `metrics.difference_interval`); a difference whose interval holds 0 is not one the runs
resolve. `--html` also writes the comparison as a page in the report's style: the metrics and the
verdicts per bucket."""

from __future__ import annotations

import argparse
from pathlib import Path

from evalkit.commands import CommandError
from evalkit.metrics import difference_interval, shown

# metrics with a per-sample value, so that their difference gets an interval
PER_SAMPLE = {
    "accuracy": lambda record: float(record["score"]["verdict"] == "correct"),
    "mean_reward": lambda record: float(record["score"]["reward"]),
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_a", type=Path)
    parser.add_argument("run_b", type=Path)
    parser.add_argument("--html", type=Path, default=None, help="also write the comparison as an HTML page")


def run(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    from evalkit.pipeline import load_samples
    from evalkit.report import build

    full = []
    for run_dir in (args.run_a, args.run_b):
        if not (run_dir / "samples.jsonl").is_file():
            raise CommandError(f"{run_dir} has no samples.jsonl")
        full.append(build(run_dir))
    a, b = (f["overall"] for f in full)
    # short column heads (long run paths cut at 80 columns all read "runs/game24-smollm2-…"); the legend says which is which
    samples = [load_samples(run_dir) for run_dir in (args.run_a, args.run_b)]
    table = Table(
        "metric", "A", "B", "B - A [95%]", caption=f"A = {args.run_a}\nB = {args.run_b}", caption_justify="left"
    )
    metrics = [
        ("accuracy", "accuracy"),
        ("mean reward", "mean_reward"),
        ("incompletion", "incompletion"),
        ("error rate", "error_rate"),
        ("mean tokens", "length_mean"),
    ]
    metrics += [(f"pass@{k}", ("pass_at", k)) for k in a["pass_at"] if k in b["pass_at"]]
    metrics += [(f"maj@{k}", ("maj_at", k)) for k in a["maj_at"] if k in b["maj_at"]]
    rows = []
    for label, key in metrics:
        x, y = (s[key[0]][key[1]] if isinstance(key, tuple) else s[key] for s in (a, b))
        rows.append((label, shown(x), shown(y), _difference(key, x, y, samples)))
        table.add_row(*rows[-1])
    Console().print(table)
    if args.html:
        try:
            args.html.write_text(_page(args, rows, full))
        except OSError as exc:
            raise CommandError(f"cannot write {args.html}: {exc.strerror or exc}") from None
        Console().print(f"comparison: {args.html}")
    return 0


def _difference(key: object, x: float | None, y: float | None, samples: list[list[dict]]) -> str:
    """B - A, with its interval where the metric has a value per sample."""
    if x is None or y is None:
        return "n/a"
    value = PER_SAMPLE.get(key) if isinstance(key, str) else None
    if value is None:
        return f"{y - x:+.3f}"
    by_task: list[dict[str, list[float]]] = []
    for records in samples:
        groups: dict[str, list[float]] = {}
        for record in records:
            groups.setdefault(str(record["task_id"]), []).append(value(record))
        by_task.append(groups)
    low, high = difference_interval(*by_task)
    return f"{y - x:+.3f} [{low:+.3f}, {high:+.3f}]"


def _page(args: argparse.Namespace, rows: list[tuple[str, ...]], full: list[dict]) -> str:
    """The comparison in the report's style: metrics side by side, then each run's verdicts per bucket."""
    import html

    from evalkit.report import _STYLE, VERDICTS

    e = html.escape
    metric_rows = "".join("<tr>" + "".join(f"<td>{e(c)}</td>" for c in row) + "</tr>" for row in rows)
    sections = []
    for label, summary in zip("AB", full):
        groups = {"all": summary["overall"], **summary["by_difficulty"]}
        body = "".join(
            f"<tr><td>{e(name)}</td>"
            + "".join(f"<td>{g.get('verdicts', {}).get(v, 0)}</td>" for v in VERDICTS)
            + "</tr>"
            for name, g in groups.items()
        )
        sections.append(
            f"<div style='display:inline-block;vertical-align:top;margin-right:2em'><h2>{label}: "
            f"{e(summary['run'])}</h2><table><tr><th>group</th>"
            + "".join(f"<th>{v}</th>" for v in VERDICTS)
            + f"</tr>{body}</table>"
            f"<p><a href='{e(str(summary['run']))}/report.html'>report</a></p></div>"
        )
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>A vs B</title><style>{_STYLE}</style></head><body>"
        f"<h1>A vs B</h1><p>A = {e(str(args.run_a))}<br>B = {e(str(args.run_b))}</p>"
        f"<table><tr><th>metric</th><th>A</th><th>B</th><th>B - A [95%]</th></tr>{metric_rows}</table>"
        f"<h2>Verdicts per bucket</h2>{''.join(sections)}</body></html>\n"
    )

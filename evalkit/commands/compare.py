"""Show two evaluation runs side by side, metric by metric, with the difference."""
from __future__ import annotations

import argparse
from pathlib import Path

from evalkit.cli import CommandError
from evalkit.metrics import shown


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_a", type=Path)
    parser.add_argument("run_b", type=Path)


def run(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    from evalkit.report import build

    summaries = []
    for run_dir in (args.run_a, args.run_b):
        if not (run_dir / "samples.jsonl").is_file():
            raise CommandError(f"{run_dir} has no samples.jsonl")
        summaries.append(build(run_dir)["overall"])
    a, b = summaries
    # short column heads (long run paths cut at 80 columns all read "runs/game24-smollm2-…"); the legend says which is which
    table = Table("metric", "A", "B", "B - A", caption=f"A = {args.run_a}\nB = {args.run_b}", caption_justify="left")
    metrics = [("accuracy", "accuracy"), ("mean reward", "mean_reward"), ("incompletion", "incompletion"),
               ("error rate", "error_rate"), ("mean tokens", "length_mean")]
    metrics += [(f"pass@{k}", ("pass_at", k)) for k in a["pass_at"] if k in b["pass_at"]]
    metrics += [(f"maj@{k}", ("maj_at", k)) for k in a["maj_at"] if k in b["maj_at"]]
    for label, key in metrics:
        x, y = (s[key[0]][key[1]] if isinstance(key, tuple) else s[key] for s in (a, b))
        table.add_row(label, shown(x), shown(y), "n/a" if x is None or y is None else f"{y - x:+.3f}")
    Console().print(table)
    return 0

"""Rebuild a run's reports (summary.json, report.md, report.html, plots) from its samples.jsonl."""

from __future__ import annotations

import argparse
from pathlib import Path

from evalkit.commands import CommandError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "run_dir",
        type=Path,
        help="a folder written by `evalkit eval` (a suite's folder rebuilds every verifier's report)",
    )


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from evalkit.report import build
    from evalkit.suite import is_suite, rebuild
    from evalkit.summary import report_table, suite_table

    console = Console()
    if is_suite(args.run_dir):  # each verifier's report, then the suite's page
        try:
            summaries = rebuild(args.run_dir)
        except (OSError, ValueError) as exc:
            raise CommandError(f"cannot rebuild the suite {args.run_dir}: {exc}") from None
        console.print(suite_table(summaries, title=str(args.run_dir), width=console.width))
        return 0
    if not (args.run_dir / "samples.jsonl").is_file():
        raise CommandError(f"{args.run_dir} has no samples.jsonl")
    try:
        summary = build(args.run_dir)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    console.print(report_table(summary, title=str(args.run_dir), width=console.width))
    return 0

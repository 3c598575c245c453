"""How much accuracy a cheaper reward setting costs: the same completions scored at each value of a
knob (code's `max_tests`, the games' `rollouts`) and at the full budget; false-pass and false-fail
rates, reward error and seconds per score for each (see `evalkit/accuracy.py`)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from evalkit.commands import CommandError, check_count
from evalkit.jsonl import strict_dumps
from verifiers.records import json_lines


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("input", type=Path, help="JSONL with a `completion` and task fields per line (as `score`)")
    parser.add_argument("--verifier", required=True, help="verifier name (see `evalkit verifiers`)")
    parser.add_argument("--knob", required=True, help="the config field to vary, e.g. max_tests or rollouts")
    parser.add_argument("--values", required=True, help="settings to judge, comma-separated JSON values: 2,8,32")
    parser.add_argument("--full", default="null", help="the full-budget setting, as JSON (default null: no cap)")
    parser.add_argument("--config", default="{}", help="the rest of the verifier's config, as JSON or @FILE")
    parser.add_argument("--workers", type=int, default=2, help="worker processes for every setting")
    parser.add_argument("-o", "--output", type=Path, default=None, help="write the rows as JSON here")


def _json_value(text: str, what: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        raise CommandError(f"{what} {text!r} is not a JSON value") from None


def run(args: argparse.Namespace) -> int:
    import verifiers
    from evalkit.accuracy import knob_accuracy
    from evalkit.commands.score import split_record
    from evalkit.commands.verifier_options import read_config

    check_count("--workers", args.workers, least=0)
    values = [_json_value(v.strip(), "--values item") for v in args.values.split(",") if v.strip()]
    full = _json_value(args.full, "--full")
    config = read_config(args.config)
    if not args.input.is_file():
        raise CommandError(f"input file {args.input} does not exist")
    completions, tasks = [], []
    try:
        for number, record in json_lines(args.input):
            try:
                completion, task = split_record(record)
            except ValueError as exc:
                raise CommandError(f"{args.input}:{number}: {exc}") from None
            completions.append(completion)
            tasks.append(task)
    except ValueError as exc:  # a line that is not JSON: the helper names it
        raise CommandError(str(exc)) from None
    if not completions:
        raise CommandError(f"{args.input} holds no items")
    for value in [full, *values]:  # a bad knob or value fails before any scoring
        try:
            verifiers.get(args.verifier, config, **{args.knob: value}).close()
        except (verifiers.UnknownVerifier, TypeError, ValueError) as exc:
            raise CommandError(str(exc)) from None
    rows, _ = knob_accuracy(
        args.verifier,
        args.knob,
        values,
        completions,
        tasks,
        full=full,
        config=config,
        workers=args.workers,
        progress=lambda value: print(f"scored {len(completions)} items at {args.knob}={value!r}", flush=True),
    )
    print(format_table(args.knob, rows))
    if args.output is not None:
        args.output.write_text(strict_dumps([r.as_dict() for r in rows], indent=2) + "\n")
    return 0


def format_table(knob: str, rows: list[Any]) -> str:
    header = f"{knob:>10}  false pass  false fail  reward MAE  differs  ms/score  errors"
    lines = [header]
    for r in rows:
        lines.append(
            f"{json.dumps(r.value):>10}  {r.false_pass:>10.3f}  {r.false_fail:>10.3f}  {r.reward_mae:>10.3f}"
            f"  {r.reward_differs:>7.3f}  {r.seconds_per_score * 1000:>8.1f}  {r.errors:>6}"
        )
    return "\n".join(lines)

"""Score a JSONL file of completions with a verifier; a rerun resumes where the last one stopped.

Each input line is a JSON object holding `completion` and the task's fields (or a `task` object).
Each output line is the input object plus `line` (its 1-based input line number) and `score`.
Bad input lines (not JSON, no completion, or a task the verifier rejects) are reported with
their line number and skipped; the exit code is then 1.

Resuming is keyed: `OUTPUT.stamp.json` records the verifier, its config and the input; a rerun
with other settings is refused (use `--overwrite` or another `-o`). Rows that scored ERROR (the
verifier failed, e.g. a model it needs was missing) are scored again on a rerun.
"""

from __future__ import annotations

import argparse
import json
import math
import sqlite3
import sys
from pathlib import Path
from typing import Any

from evalkit.commands import CommandError, check_count
from evalkit.commands.verifier_options import read_config

CHUNK = 512  # rows scored in one call at the most
FIRST_CHUNK = 8  # rows in the first call: the rate is not known yet
FLUSH_SECONDS = 2.0  # rows reach the disk at least about this often: an interrupt loses at most that much work


def next_chunk(rows: int, seconds: float) -> int:
    """How many rows the next call scores so that it ends within about FLUSH_SECONDS, from the last
    call's `rows` in `seconds`."""
    return max(1, min(CHUNK, int(rows * FLUSH_SECONDS / max(seconds, 1e-3))))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("input", type=Path, help="JSONL with a `completion` and task fields per line")
    parser.add_argument("-o", "--output", type=Path, required=True, help="JSONL to write (appended to on resume)")
    parser.add_argument("--verifier", required=True, help="verifier name (see `evalkit verifiers`)")
    parser.add_argument("--config", default="{}", help="verifier config as JSON, or @FILE with JSON")
    parser.add_argument("--workers", type=int, default=None, help="worker processes (default: CPU count)")
    parser.add_argument(
        "--timeout",
        type=float,
        default=None,
        help="seconds per item before it is an ERROR (default: 30, as every route)",
    )
    parser.add_argument(
        "--cache",
        type=Path,
        default=None,
        help="SQLite score cache shared across runs (rescored when the scoring code changes)",
    )
    parser.add_argument("--overwrite", action="store_true", help="start afresh instead of resuming OUTPUT")


def split_record(record: Any) -> tuple[str, dict[str, Any]]:
    """(completion, task) from one input object, or ValueError saying what is wrong."""
    if not isinstance(record, dict):
        raise ValueError(f"expected a JSON object, got {type(record).__name__}")
    completion = record.get("completion")
    if not isinstance(completion, str):
        raise ValueError("no string field 'completion'")
    task = record.get("task")
    if task is None:
        task = {k: v for k, v in record.items() if k != "completion"}
    if not isinstance(task, dict):
        raise ValueError("'task' must be a JSON object")
    return completion, task


def check_arguments(args: argparse.Namespace) -> None:
    """Values argparse's types let through that cannot work: refused in one line before anything loads."""
    if not args.input.is_file():
        problem = "is a directory" if args.input.is_dir() else "does not exist"
        raise CommandError(f"input file {args.input} {problem}")
    check_count("--workers", args.workers, least=0)
    if args.timeout is not None and not (math.isfinite(args.timeout) and args.timeout > 0):
        raise CommandError(f"--timeout must be a positive number of seconds, got {args.timeout}")


def _stamp_path(output: Path) -> Path:
    return output.with_name(output.name + ".stamp.json")


def run(args: argparse.Namespace) -> int:
    import verifiers
    from evalkit.resume import StampMismatch, check_stamp, check_writable, exclusive_writer
    from verifiers.cache import ScoreCache

    check_arguments(args)
    try:
        verifier = verifiers.get(args.verifier, **read_config(args.config))
    except (verifiers.UnknownVerifier, TypeError, ValueError) as exc:
        raise CommandError(str(exc)) from None
    try:
        check_writable(args.output)
        cache = None if args.cache is None else ScoreCache(args.cache)  # opened now: a bad path fails before any work
    except OSError as exc:
        raise CommandError(f"cannot write {args.output}: {exc.strerror or exc}") from None
    except sqlite3.Error as exc:
        raise CommandError(f"cannot open the cache {args.cache}: {exc}") from None
    stamp = {"verifier": verifier.spec(), "input": str(args.input.resolve())}
    if args.overwrite:
        for path in (args.output, _stamp_path(args.output)):
            path.unlink(missing_ok=True)
    try:
        check_stamp(
            _stamp_path(args.output),
            stamp,
            str(args.output),
            "rerun with --overwrite to start afresh, or write to another -o",
        )
    except StampMismatch as exc:
        raise CommandError(str(exc)) from None
    except OSError as exc:
        raise CommandError(f"cannot write {args.output}: {exc.strerror or exc}") from None
    with exclusive_writer(args.output):
        return _score_file(args, verifier, cache)


def _score_file(args: argparse.Namespace, verifier: Any, cache: Any) -> int:
    """Score what the output does not hold yet, appending each call's rows as it finishes."""
    import time

    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from evalkit.jsonl import JsonlWriter, read_complete_records
    from evalkit.resume import rewrite_without
    from evalkit.summary import summary_table
    from verifiers import Score
    from verifiers.score import ITEM_TIMEOUT_SECONDS

    retried = rewrite_without(
        args.output,
        list(read_complete_records(args.output)),
        lambda r: (r.get("score") or {}).get("verdict") == "error",
    )
    resumed = [r for r in read_complete_records(args.output) if isinstance(r.get("line"), int)]
    done_lines = {r["line"] for r in resumed}
    scores = [Score.from_dict(r["score"]) for r in resumed]
    total = sum(1 for _ in args.input.open("rb"))
    err = Console(stderr=True)
    bad = 0
    columns = (TextColumn("[bold]scoring"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, console=err, transient=False) as progress, JsonlWriter(args.output) as out:
        bar = progress.add_task("score", total=total, completed=len(done_lines))
        batch: list[tuple[int, dict[str, Any], str, dict[str, Any]]] = []

        def skip(line_no: int, why: str) -> None:
            nonlocal bad
            bad += 1
            if bad <= 20:
                err.print(f"[yellow]line {line_no}: skipped: {why}[/]")

        chunk = FIRST_CHUNK

        def flush() -> None:
            nonlocal chunk
            start = time.monotonic()
            results = verifier.score_batch(
                [b[2] for b in batch],
                [b[3] for b in batch],
                workers=args.workers,
                timeout=ITEM_TIMEOUT_SECONDS if args.timeout is None else args.timeout,
                cache=cache,
                progress=lambda n: progress.advance(bar, n),
            )
            for (line_no, record, _c, _t), s in zip(batch, results):
                if s.is_error and s.info.get("task_error"):
                    skip(line_no, s.reason)  # the input's fault: reported, not written
                    continue
                out.write({**record, "line": line_no, "score": s.to_dict()})
                scores.append(s)
            out.flush()
            chunk = next_chunk(len(batch), time.monotonic() - start)
            batch.clear()

        with args.input.open(encoding="utf-8", errors="replace") as fh:
            for line_no, raw in enumerate(fh, start=1):
                if line_no in done_lines:
                    continue
                if not raw.strip():
                    progress.advance(bar)
                    continue
                try:
                    record = json.loads(raw)
                    completion, task = split_record(record)
                except (json.JSONDecodeError, ValueError) as exc:
                    skip(line_no, str(exc))
                    progress.advance(bar)
                    continue
                batch.append((line_no, record, completion, task))
                if len(batch) >= chunk:
                    flush()
            if batch:
                flush()
    verifier.close()
    if cache is not None:
        cache.close()
    new = len(scores) - len(resumed)
    Console().print(
        summary_table(
            scores,
            title=f"{args.verifier}: {len(scores)} rows ({new} scored now, {len(resumed)} "
            f"resumed, {retried} retried after ERROR), {bad} bad line(s)",
        )
    )
    if bad > 20:
        err.print(f"[yellow]{bad - 20} more bad line(s) not shown[/]")
    if scores and all(s.is_error for s in scores):
        print(f"evalkit score: every row scored ERROR (first: {scores[0].reason})", file=sys.stderr)
        return 1
    return 1 if bad else 0

"""Train a model with GRPO on a verifier's rewards; the run folder holds the config, a JSONL log
per step, checkpoints and plots. Running the same command again resumes from the last checkpoint."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from evalkit.commands import CommandError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--verifier", default=None, help="verifier name (default from the config: game24)")
    parser.add_argument("--model", default=None, help="local HF folder or hub id (default: the packaged SmolLM2)")
    parser.add_argument("--config", type=Path, default=None, help="JSON file with GRPOConfig fields")
    parser.add_argument("--device", default=None, help="auto (the GPU where there is one), cpu, cuda, cuda:N")
    parser.add_argument("--dtype", default=None, help="auto (bfloat16 on a GPU, float32 on the CPU), float32, bfloat16")
    parser.add_argument(
        "--set", nargs="*", default=[], metavar="KEY=VALUE", help="override config fields (JSON values)"
    )
    parser.add_argument(
        "--run-dir", type=Path, default=Path("runs/grpo"), help="the run folder (rerunning into it resumes)"
    )
    parser.add_argument("--no-resume", action="store_true", help="start over even if a checkpoint exists")
    parser.add_argument("-v", "--verbose", action="store_true", help="show third-party logs and load progress bars")


def run(args: argparse.Namespace) -> int:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from evalkit.quiet import quiet_third_party

    quiet_third_party(args.verbose)  # before transformers is imported
    from evalkit.grpo import ConfigError, GRPOConfig, train

    data = {}
    if args.config is not None:
        try:
            data = json.loads(args.config.read_text())
        except (OSError, json.JSONDecodeError) as exc:
            raise CommandError(f"cannot read --config: {exc}") from None
    saved = args.run_dir / "config.json"
    if not args.no_resume and saved.exists() and not data:
        data = json.loads(saved.read_text())
    for item in args.set:
        key, _, value = item.partition("=")
        try:
            data[key] = json.loads(value)
        except json.JSONDecodeError:
            data[key] = value
    if args.verifier:
        data["verifier"] = args.verifier
    if args.model:
        data["model"] = args.model
    for key in ("device", "dtype"):
        if getattr(args, key) is not None:
            data[key] = getattr(args, key)
    try:
        cfg = GRPOConfig.from_dict(data)
    except (TypeError, ValueError) as exc:
        raise CommandError(str(exc)) from None
    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[unit]}"),
        TimeElapsedColumn(),
    )
    with Progress(*columns) as progress:
        warm = None
        if cfg.warmup_epochs and not (args.run_dir / "warmup" / "config.json").exists():
            warm = progress.add_task("warm-up", total=cfg.warmup_epochs, unit="epochs")  # before step 1
        bar = progress.add_task("GRPO", total=cfg.steps, unit="steps")
        try:
            train(
                cfg,
                args.run_dir,
                resume=not args.no_resume,
                progress=lambda step: progress.update(bar, completed=step),
                warmup_progress=lambda line: (
                    progress.update(warm, completed=line["warmup_epoch"]) if warm is not None else None
                ),
                say=progress.console.print,
            )
        except ConfigError as exc:
            raise CommandError(str(exc)) from None
    print(f"run folder: {args.run_dir} (log.jsonl, checkpoint.pt, lengths_by_step.png, rates_by_step.png, reward.png)")
    return 0

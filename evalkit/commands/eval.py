"""Evaluate a model on a verifier's tasks: generate n samples per task, score them, report.

Writes a run folder (samples.jsonl, run.json, summary.json, report.md, report.html, PNG plots).
Running the same command again resumes the run where it stopped.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from evalkit.cli import CommandError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--verifier", default="game24", help="verifier name (default: game24)")
    parser.add_argument("--config", default="{}", help="verifier config as JSON, or @FILE")
    parser.add_argument("--model", default=None, help="local HF folder or hub id (default: the packaged SmolLM2-135M-Instruct)")
    parser.add_argument("--backend", default="transformers", choices=["transformers", "vllm", "openai"])
    parser.add_argument("--base-url", default="http://127.0.0.1:8000/v1", help="OpenAI-compatible server (backend openai)")
    parser.add_argument("--split", default="test", help="task split: train, test or all")
    parser.add_argument("--limit", type=int, default=8, help="number of tasks (default 8)")
    parser.add_argument("-n", "--samples", type=int, default=4, help="samples per task")
    parser.add_argument("--temperature", type=float, default=0.7)
    parser.add_argument("--top-p", type=float, default=0.9)
    parser.add_argument("--max-tokens", type=int, default=256)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tensor-parallel-size", type=int, default=1, help="vLLM tensor parallelism")
    parser.add_argument("--workers", type=int, default=None, help="scoring worker processes")
    parser.add_argument("--batch-prompts", type=int, default=8, help="prompts generated per batch (written per batch)")
    parser.add_argument("--run-dir", type=Path, default=None, help="default: runs/<verifier>-<model>-<backend>")


def run(args: argparse.Namespace) -> int:
    import verifiers
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from evalkit.commands.score import load_config
    from evalkit.generation import Sampling, make_backend
    from evalkit.models import DEFAULT_MODEL, ModelUnavailable
    from evalkit.pipeline import RunMismatch, evaluate
    from evalkit.report import build
    from evalkit.summary import report_table

    try:
        verifier = verifiers.get(args.verifier, **load_config(args.config))
        tasks = verifier.tasks(args.split, limit=args.limit, seed=args.seed)
    except (verifiers.UnknownVerifier, verifiers.Unsupported, TypeError, ValueError) as exc:
        raise CommandError(str(exc)) from None
    if not tasks:
        raise CommandError(f"{args.verifier} has no tasks in split {args.split!r}")
    sampling = Sampling(n=args.samples, temperature=args.temperature, top_p=args.top_p, max_tokens=args.max_tokens, seed=args.seed)
    model_label = (args.model or DEFAULT_MODEL).rstrip("/").split("/")[-1]
    run_dir = args.run_dir or Path("runs") / f"{args.verifier}-{model_label}-{args.backend}"
    console = Console(stderr=True)
    options = {"transformers": {}, "vllm": {"tensor_parallel_size": args.tensor_parallel_size},
               "openai": {"base_url": args.base_url}}[args.backend]
    with console.status(f"loading {model_label} with {args.backend}"):
        try:
            backend = make_backend(args.backend, args.model, **options)
        except (ModelUnavailable, ImportError, OSError) as exc:
            raise CommandError(f"cannot load model {model_label!r} with {args.backend}: {exc}") from None
    total = len(tasks) * sampling.n
    columns = (TextColumn("[bold]evaluating"), BarColumn(), MofNCompleteColumn(), TextColumn("samples"), TimeElapsedColumn())
    try:
        with Progress(*columns, console=console) as progress:
            bar = progress.add_task("eval", total=total)
            evaluate(verifier, tasks, backend, sampling, run_dir, workers=args.workers, prompts_per_batch=args.batch_prompts,
                     on_samples=lambda k: progress.advance(bar, k))
    except RunMismatch as exc:
        raise CommandError(str(exc)) from None
    finally:
        backend.close()
    summary = build(run_dir)
    Console().print(report_table(summary, title=f"{args.verifier} · {model_label} · {args.backend} · {total} samples"))
    Console().print(f"report: {run_dir / 'report.html'}  samples: {run_dir / 'samples.jsonl'}")
    return 0

"""Evaluate a model on a verifier's tasks: generate n samples per task, score them, report.

Writes a run folder (samples.jsonl, run.json, results.json, summary.json, report.md,
report.html, PNG plots). Everything cheap is checked before the model loads: the tasks, the
run folder (writable, and empty or holding this same run), the server (backend openai). Running
the same command again resumes the run: finished samples are kept, samples that scored ERROR are
scored again; other settings are refused (`--overwrite` starts afresh).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from evalkit.commands import CommandError

DEFAULT_LIMIT = 8
BATCH_PROMPTS = {"transformers": 1, "vllm": 64, "openai": 16}  # transformers samples one prompt at a time anyway


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--verifier", default="game24", help="verifier name (default: game24)")
    parser.add_argument("--config", default="{}", help="verifier config as JSON, or @FILE")
    parser.add_argument(
        "--tasks",
        type=Path,
        default=None,
        help="your own tasks: JSONL of task objects (optional id, difficulty, prompt)",
    )
    parser.add_argument(
        "--model", default=None, help="local HF folder or hub id (default: the packaged SmolLM2-135M-Instruct)"
    )
    parser.add_argument("--backend", default="transformers", choices=["transformers", "vllm", "openai"])
    parser.add_argument(
        "--base-url", default="http://127.0.0.1:8000/v1", help="OpenAI-compatible server (backend openai)"
    )
    parser.add_argument("--split", default="test", help="task split of the built-in tasks: train, test or all")
    parser.add_argument(
        "--limit",
        type=int,
        default=None,
        help=f"number of tasks, a seeded subset stratified by difficulty (default {DEFAULT_LIMIT} "
        "built-in tasks, or every task of --tasks)",
    )
    parser.add_argument("-n", "--samples", type=int, default=4, help="samples per task")
    parser.add_argument("--temperature", type=float, default=0.7)
    parser.add_argument("--top-p", type=float, default=0.9)
    parser.add_argument("--max-tokens", type=int, default=256)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--system-prompt", default=None, help="system message before every prompt (text, or @FILE)")
    parser.add_argument(
        "--few-shot",
        type=Path,
        default=None,
        help='JSONL of examples shown before each prompt: {"prompt": ..., "completion": ...}',
    )
    parser.add_argument(
        "--response-prefix",
        default="",
        help="text the assistant turn starts with, e.g. 'Answer:' (transformers backend)",
    )
    parser.add_argument(
        "--gen-kwargs", default="{}", help="extra generation settings as JSON (e.g. repetition_penalty)"
    )
    parser.add_argument("--threads", type=int, default=None, help="torch threads for the transformers backend")
    parser.add_argument("--tensor-parallel-size", type=int, default=1, help="vLLM tensor parallelism")
    parser.add_argument("--workers", type=int, default=None, help="scoring worker processes")
    parser.add_argument(
        "--batch-prompts",
        type=int,
        default=None,
        help="prompts per generation batch, written as each is scored (default: 1 transformers, 64 vllm, 16 openai)",
    )
    parser.add_argument("--run-dir", type=Path, default=None, help="default: runs/<verifier>-<model>-<backend>")
    parser.add_argument("--overwrite", action="store_true", help="start the run folder afresh instead of resuming")
    parser.add_argument("-v", "--verbose", action="store_true", help="show third-party logs and load progress bars")


def run(args: argparse.Namespace) -> int:
    from evalkit.quiet import quiet_third_party

    quiet_third_party(args.verbose)
    import verifiers
    from evalkit.generation import Sampling
    from evalkit.models import DEFAULT_MODEL
    from evalkit.pipeline import PromptTemplate, RunConfig, RunMismatch, prepare_run, task_id

    verifier, tasks, problems = _verifier_and_tasks(args, verifiers)
    template = PromptTemplate(_system_prompt(args.system_prompt), _shots(args.few_shot, verifier), args.response_prefix)
    if args.response_prefix and args.backend != "transformers":
        raise CommandError("--response-prefix needs --backend transformers (it starts the assistant turn)")
    sampling = Sampling(
        n=args.samples,
        temperature=args.temperature,
        top_p=args.top_p,
        max_tokens=args.max_tokens,
        seed=args.seed,
        extra=_json_object(args.gen_kwargs, "--gen-kwargs"),
    )
    if args.samples < 1 or args.max_tokens < 1:
        raise CommandError("-n and --max-tokens must be at least 1")
    model_name = args.model or ("default" if args.backend == "openai" else DEFAULT_MODEL)
    model_label = model_name.rstrip("/").split("/")[-1]
    run_dir = args.run_dir or Path("runs") / f"{args.verifier}-{model_label}-{args.backend}"
    config = RunConfig(
        verifier.spec(),
        model_name,
        args.backend,
        asdict(sampling),
        [task_id(t, i) for i, t in enumerate(tasks)],
        template.as_dict(),
    )
    if args.backend == "openai":
        _check_server(args.base_url)
    if (
        args.model
        and args.backend != "openai"
        and args.model.startswith((".", "/", "~"))
        and not Path(args.model).expanduser().exists()
    ):
        raise CommandError(f"model folder {args.model} does not exist")
    fresh = not (run_dir / "run.json").exists()
    try:
        prepare_run(run_dir, config, overwrite=args.overwrite)
    except RunMismatch as exc:
        raise CommandError(str(exc)) from None
    except OSError as exc:
        raise CommandError(f"cannot write the run folder {run_dir}: {exc.strerror or exc}") from None
    try:
        return _generate_and_report(
            args, verifier, tasks, problems, template, sampling, model_name, model_label, run_dir
        )
    except (CommandError, KeyboardInterrupt):
        samples = run_dir / "samples.jsonl"
        if fresh and (not samples.exists() or samples.stat().st_size == 0):  # nothing ran: leave nothing behind
            samples.unlink(missing_ok=True)
            (run_dir / "run.json").unlink(missing_ok=True)
            _remove_if_empty(run_dir)
        raise


def _generate_and_report(
    args: argparse.Namespace,
    verifier: Any,
    tasks: list[dict[str, Any]],
    problems: list[str],
    template: Any,
    sampling: Any,
    model_name: str,
    model_label: str,
    run_dir: Path,
) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from evalkit.generation import make_backend
    from evalkit.models import ModelUnavailable
    from evalkit.pipeline import RunMismatch, evaluate
    from evalkit.report import build
    from evalkit.runinfo import run_info
    from evalkit.summary import report_table

    console = Console(stderr=True)
    options: dict[str, Any] = {
        "transformers": {"threads": args.threads, "response_prefix": args.response_prefix},
        "openai": {"base_url": args.base_url},
        "vllm": {"tensor_parallel_size": args.tensor_parallel_size},
    }[args.backend]
    started = time.time()
    with console.status(f"loading {model_label} with {args.backend}"):
        try:
            backend = make_backend(args.backend, args.model, **options)
        except (ModelUnavailable, ImportError, OSError, ValueError) as exc:
            raise CommandError(f"cannot load model {model_label!r} with {args.backend}: {_one_line(exc)}") from None
    load_s = time.time() - started
    total = len(tasks) * sampling.n
    columns = (
        TextColumn("[bold]evaluating"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("samples"),
        TimeElapsedColumn(),
    )
    try:
        with Progress(*columns, console=console) as progress:
            bar = progress.add_task("eval", total=total)
            timing = evaluate(
                verifier,
                tasks,
                backend,
                sampling,
                run_dir,
                workers=args.workers,
                template=template,
                prompts_per_batch=args.batch_prompts or BATCH_PROMPTS[args.backend],
                on_samples=lambda k: progress.advance(bar, k),
            )
    except RunMismatch as exc:
        raise CommandError(str(exc)) from None
    except OSError as exc:
        raise CommandError(f"cannot write the run folder {run_dir}: {exc.strerror or exc}") from None
    except RuntimeError as exc:  # GenerationFailed and engine failures: one line, the run folder resumable
        raise CommandError(
            f"generation failed: {_one_line(exc)} (finished samples are kept; rerun to resume)"
        ) from None
    finally:
        backend.close()
        verifier.close()
    summary = build(run_dir)
    tokens_per_s = timing["tokens"] / timing["generate_s"] if timing["generate_s"] else None
    results = {
        **run_info(),
        "run_dir": str(run_dir),
        "verifier": verifier.spec(),
        "model": model_name,
        "backend": args.backend,
        "threads": _torch_threads() if args.backend == "transformers" else None,
        "sampling": asdict(sampling),
        "prompt_template": template.as_dict(),
        "tasks": args.tasks and str(args.tasks) or f"built-in {args.split}",
        "task_count": len(tasks),
        "timings": {"load_s": load_s, **timing, "wall_s": time.time() - started, "tokens_per_s": tokens_per_s},
        "metrics": summary["overall"],
        "by_difficulty": summary["by_difficulty"],
    }
    (run_dir / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    console = Console()
    title = f"{args.verifier} · {model_label} · {args.backend} · {total} samples"
    console.print(report_table(summary, title=title, width=console.width))
    Console().print(f"report: {run_dir / 'report.html'}  results: {run_dir / 'results.json'}")
    for problem in problems[:20]:
        print(f"evalkit eval: {args.tasks}: {problem} (skipped)", file=sys.stderr)
    if summary["overall"]["error_rate"] >= 1.0:
        print("evalkit eval: every sample scored ERROR (the verifier failed; see report.html)", file=sys.stderr)
        return 1
    return 1 if problems else 0


def _verifier_and_tasks(args: argparse.Namespace, verifiers: Any) -> tuple[Any, list[dict[str, Any]], list[str]]:
    from evalkit.commands.score import load_config
    from evalkit.taskfile import load_task_file, stratified

    if args.limit is not None and args.limit < 1:
        raise CommandError("--limit must be at least 1")
    try:
        verifier = verifiers.get(args.verifier, **load_config(args.config))
    except (verifiers.UnknownVerifier, TypeError, ValueError) as exc:
        raise CommandError(str(exc)) from None
    problems: list[str] = []
    if args.tasks is not None:
        if not args.tasks.is_file():
            raise CommandError(f"task file {args.tasks} does not exist")
        tasks, problems = load_task_file(args.tasks, verifier)
        if not tasks:
            raise CommandError(f"{args.tasks} has no usable task ({problems[0] if problems else 'it is empty'})")
        limit = args.limit or len(tasks)
    else:
        try:
            tasks = verifier.tasks(args.split)
        except verifiers.Unsupported:
            raise CommandError(f"{args.verifier} ships no tasks: pass your own with --tasks FILE.jsonl") from None
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        if not tasks:
            raise CommandError(f"{args.verifier} has no tasks in split {args.split!r}")
        limit = args.limit or DEFAULT_LIMIT
    return verifier, stratified(tasks, limit, args.seed), problems


def _torch_threads() -> int | None:
    try:
        import torch
    except ImportError:
        return None
    return torch.get_num_threads()


def _remove_if_empty(folder: Path) -> None:
    try:
        folder.rmdir()
    except OSError:
        pass


def _system_prompt(text: str | None) -> str | None:
    if text and text.startswith("@"):
        try:
            return Path(text[1:]).read_text()
        except OSError as exc:
            raise CommandError(f"--system-prompt: cannot read {text[1:]}: {exc.strerror}") from None
    return text


def _shots(path: Path | None, verifier: Any) -> tuple[tuple[str, str], ...]:
    """Few-shot pairs from a JSONL file: a `prompt` (or task fields the verifier prompts from) and a `completion`."""
    if path is None:
        return ()
    if not path.is_file():
        raise CommandError(f"--few-shot file {path} does not exist")
    shots = []
    for line_no, raw in enumerate(path.read_text().splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            record = json.loads(raw)
            completion = record["completion"]
            prompt = record.get("prompt") or verifier.prompt({k: v for k, v in record.items() if k != "completion"})
            if not isinstance(prompt, str) or not isinstance(completion, str):
                raise TypeError("prompt and completion must be text")
        except Exception as exc:  # any malformed example: say which line
            raise CommandError(f"--few-shot {path} line {line_no}: {_one_line(exc)}") from None
        shots.append((prompt, completion))
    return tuple(shots)


def _json_object(text: str, flag: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CommandError(f"{flag} is not valid JSON: {exc}") from None
    if not isinstance(value, dict):
        raise CommandError(f"{flag} must be a JSON object")
    return value


def _check_server(base_url: str) -> None:
    """Fail in one line, before anything is written, when no server answers at `base_url`."""
    import httpx

    try:
        httpx.get(base_url.rstrip("/") + "/models", timeout=5.0)
    except httpx.HTTPError as exc:
        raise CommandError(
            f"no OpenAI-compatible server answers at {base_url} ({type(exc).__name__}); start one or pass --base-url"
        ) from None


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return (text[-1] if text else type(exc).__name__)[:300]

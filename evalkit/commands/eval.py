"""Evaluate a model on a verifier's tasks: generate n samples per task, score them, report.

Writes a run folder (samples.jsonl, run.json, results.json, summary.json, report.md,
report.html, PNG plots). Everything cheap is checked before the model loads: the tasks, the
run folder (writable, and empty or holding this same run), the server (backend openai). Running
the same command again resumes the run: finished samples are kept, samples that scored ERROR are
scored again; other settings are refused (`--overwrite` starts afresh).
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from evalkit.commands import CommandError, check_count
from evalkit.commands.verifier_options import (
    VerifierEntry,
    add_verifier_arguments,
    entries_from_file,
    merged,
    read_config,
)
from evalkit.generation.base import Sampling
from evalkit.jsonl import strict_dumps
from verifiers.records import json_lines

DEFAULT_LIMIT = 8
SAMPLING = Sampling()  # each sampling option's default is the dataclass's
BATCH_PROMPTS = {"transformers": 8, "vllm": 64, "openai": 16}  # transformers: 8 prompts x n samples a `generate`


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_verifier_arguments(
        parser, "verifier name (default: game24); repeat it for a suite evaluated with one model load"
    )
    parser.add_argument(
        "--suite",
        type=Path,
        default=None,
        help='a suite as JSON: {"KEY": {"verifier": NAME, "config": {...}, "tasks": FILE}, ...}',
    )
    parser.add_argument(
        "--tasks",
        type=Path,
        default=None,
        help="your own tasks: JSONL of task objects (optional id, difficulty, prompt)",
    )
    parser.add_argument(
        "--model", default=None, help="local HF folder or hub id (default: the packaged SmolLM2-135M-Instruct)"
    )
    parser.add_argument(
        "--backend",
        default="transformers",
        choices=["transformers", "vllm", "openai"],
        help="what generates the samples",
    )
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
    parser.add_argument("-n", "--samples", type=int, default=SAMPLING.n, help="samples per task")
    parser.add_argument("--temperature", type=float, default=SAMPLING.temperature, help="0: greedy")
    parser.add_argument(
        "--top-p", type=float, default=SAMPLING.top_p, help="nucleus sampling: 1.0 samples from every token"
    )
    parser.add_argument("--max-tokens", type=int, default=SAMPLING.max_tokens, help="new tokens per sample at the most")
    parser.add_argument(
        "--seed", type=int, default=SAMPLING.seed, help="the sampling seed (each row's own seed derives from it)"
    )
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
    parser.add_argument(
        "--device", default="auto", help="transformers backend: auto (the GPU where there is one), cpu, cuda, cuda:N"
    )
    parser.add_argument(
        "--dtype",
        default="auto",
        help="auto (bfloat16 on a GPU, float32 on the CPU), float32, bfloat16 or float16 (transformers and vllm)",
    )
    parser.add_argument("--tensor-parallel-size", type=int, default=1, help="vLLM tensor parallelism")
    parser.add_argument("--workers", type=int, default=None, help="scoring worker processes")
    parser.add_argument(
        "--batch-prompts",
        type=int,
        default=None,
        help="prompts per generation batch, written as each is scored (default: 8 transformers, 64 vllm, 16 openai)",
    )
    parser.add_argument(
        "--run-dir",
        type=Path,
        default=None,
        help="default: runs/<verifier>-<model>-<backend>, then the sampling settings not at their default "
        "(-t1-n8) and a hash of any other setting that changes results (suite-<model>-... for a suite)",
    )
    parser.add_argument("--overwrite", action="store_true", help="start the run folder afresh instead of resuming")
    parser.add_argument("-v", "--verbose", action="store_true", help="show third-party logs and load progress bars")


SAMPLING_NAMES = {"n": "n", "temperature": "t", "top_p": "p", "max_tokens": "tok", "seed": "seed"}


def default_run_name(base: str, sampling: Any, template: Any, verifiers: list[Any]) -> str:
    """`base` (what is evaluated, on what model and backend), then each sampling setting that is not
    the default (`-t1-n8`), then a short hash of the rest that changes results where any is set
    (verifier configs, prompt template, extra generation settings): two runs with other settings
    never share a folder by default, and one with the same settings resumes."""
    import hashlib
    import json

    from evalkit.pipeline import PromptTemplate

    parts = [base]
    for field, short in SAMPLING_NAMES.items():
        value = getattr(sampling, field)
        if value != getattr(SAMPLING, field):
            parts.append(f"{short}{value:g}")
    changed = {
        "verifiers": [v.spec() for v in verifiers if v.spec()["config"] != _default_spec(v)["config"]],
        "template": template.as_dict() if template != PromptTemplate() else None,
        "extra": sampling.extra or None,
    }
    if any(changed.values()):
        digest = hashlib.sha256(json.dumps(changed, sort_keys=True, default=str).encode()).hexdigest()
        parts.append(f"cfg{digest[:6]}")
    return "-".join(parts)


def _default_spec(verifier: Any) -> dict[str, Any]:
    """The spec of `verifier` with its class's default config (as run.json stores it)."""
    import json

    import verifiers

    defaults = verifiers.verifier_class(verifier.spec()["verifier"]).default_config()
    return json.loads(json.dumps({"config": defaults}, default=list))


def _check_placement(args: argparse.Namespace) -> None:
    """--device, --dtype and the counts, refused in one line before any model loads."""
    from evalkit.devices import check_device, check_dtype

    for flag, value in (("--threads", args.threads), ("--batch-prompts", args.batch_prompts)):
        check_count(flag, value)
    check_count("--tensor-parallel-size", args.tensor_parallel_size)
    check_count("--workers", args.workers, least=0)
    if args.device != "auto" and args.backend != "transformers":
        raise CommandError("--device is the transformers backend's (vLLM places itself; openai is a server)")
    try:
        check_device(args.device)
        check_dtype(args.dtype)
    except ValueError as exc:
        raise CommandError(str(exc)) from None


@dataclass
class _Job:
    """One verifier of the run: its tasks and its run folder (the run's own, or RUN/<key> in a suite)."""

    entry: VerifierEntry
    verifier: Any
    tasks: list[dict[str, Any]]
    problems: list[str]
    tasks_label: str
    run_dir: Path
    fresh: bool = True


def run(args: argparse.Namespace) -> int:
    from evalkit.quiet import quiet_third_party

    quiet_third_party(args.verbose)
    from evalkit.models import DEFAULT_MODEL
    from evalkit.pipeline import PromptTemplate

    entries = _entries(args)
    suite = args.suite is not None or len(entries) > 1
    if suite and args.tasks is not None:
        raise CommandError('--tasks is one verifier\'s task file: in a suite give each its own ("tasks" in --suite)')
    if suite and args.few_shot is not None:
        raise CommandError("--few-shot examples belong to one verifier's tasks: evaluate that verifier on its own")
    if args.response_prefix and args.backend != "transformers":
        raise CommandError("--response-prefix needs --backend transformers (it starts the assistant turn)")
    _check_placement(args)
    try:
        sampling = Sampling(
            n=args.samples,
            temperature=args.temperature,
            top_p=args.top_p,
            max_tokens=args.max_tokens,
            seed=args.seed,
            extra=read_config(args.gen_kwargs, "--gen-kwargs"),
        )
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    model_name = args.model or ("default" if args.backend == "openai" else DEFAULT_MODEL)
    model_label = model_name.rstrip("/").split("/")[-1]
    name = "suite" if suite else entries[0].key
    jobs = [_job(entry, args, Path()) for entry in entries]
    template = PromptTemplate(
        _system_prompt(args.system_prompt), _shots(args.few_shot, jobs[0].verifier), args.response_prefix
    )
    run_dir = args.run_dir or Path("runs") / default_run_name(
        f"{name}-{model_label}-{args.backend}", sampling, template, [] if suite else [jobs[0].verifier]
    )  # a suite's folder resumes verifier by verifier (RUN/KEY), so its configs do not name it
    for job in jobs:
        job.run_dir = run_dir / job.entry.key if suite else run_dir
    if args.backend == "openai":
        _check_server(args.base_url)
    if (
        args.model
        and args.backend != "openai"
        and args.model.startswith((".", "/", "~"))
        and not Path(args.model).expanduser().exists()
    ):
        raise CommandError(f"model folder {args.model} does not exist")
    for job in jobs:  # every folder checked before the model loads
        _prepare(job, model_name, args, sampling, template)
    if suite:
        from evalkit.suite import mark_suite

        mark_suite(run_dir, [job.entry.key for job in jobs])
    try:
        return _generate_and_report(args, jobs, template, sampling, model_name, model_label, run_dir, suite)
    except (CommandError, KeyboardInterrupt):
        for job in jobs:
            samples = job.run_dir / "samples.jsonl"
            if job.fresh and (not samples.exists() or samples.stat().st_size == 0):  # nothing ran: leave nothing
                samples.unlink(missing_ok=True)
                (job.run_dir / "run.json").unlink(missing_ok=True)
                _remove_if_empty(job.run_dir)
        if suite and not any(job.run_dir.exists() for job in jobs):
            (run_dir / "suite.json").unlink(missing_ok=True)
            _remove_if_empty(run_dir)
        raise


def _entries(args: argparse.Namespace) -> list[VerifierEntry]:
    """The verifiers named by --suite and --verifier/--config (default: game24)."""
    from_file = entries_from_file(args.suite, "--suite", extra_keys=("tasks",)) if args.suite is not None else []
    entries = merged(from_file, args.verifiers)
    if entries and args.pending_config is not None:
        raise CommandError("--config follows the --verifier it configures")
    for entry in entries:
        if not entry.key or "/" in entry.key or entry.key.startswith("."):
            raise CommandError(f"verifier key {entry.key!r} cannot name a folder")
    return entries or [VerifierEntry("game24", "game24", args.pending_config)]


def _prepare(job: _Job, model_name: str, args: argparse.Namespace, sampling: Any, template: Any) -> None:
    from evalkit.pipeline import RunConfig, RunMismatch, prepare_run, task_id

    config = RunConfig(
        job.verifier.spec(),
        model_name,
        args.backend,
        asdict(sampling),
        [task_id(t, i) for i, t in enumerate(job.tasks)],
        template.as_dict(),
    )
    job.fresh = not (job.run_dir / "run.json").exists()
    try:
        prepare_run(job.run_dir, config, overwrite=args.overwrite)
    except RunMismatch as exc:
        raise CommandError(str(exc)) from None
    except OSError as exc:
        raise CommandError(f"cannot write the run folder {job.run_dir}: {exc.strerror or exc}") from None


def _generate_and_report(
    args: argparse.Namespace,
    jobs: list[_Job],
    template: Any,
    sampling: Any,
    model_name: str,
    model_label: str,
    run_dir: Path,
    suite: bool,
) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from evalkit.generation import make_backend
    from evalkit.models import ModelUnavailable
    from evalkit.runinfo import run_info

    console = Console(stderr=True)
    options: dict[str, Any] = {
        "transformers": {
            "threads": args.threads,
            "response_prefix": args.response_prefix,
            "device": args.device,
            "dtype": args.dtype,
        },
        "openai": {"base_url": args.base_url},
        "vllm": {"tensor_parallel_size": args.tensor_parallel_size, "dtype": args.dtype},
    }[args.backend]
    started = time.time()
    with console.status(f"loading {model_label} with {args.backend}"):
        try:
            backend = make_backend(args.backend, args.model, **options)
        except (ModelUnavailable, ImportError, OSError, ValueError) as exc:
            for job in jobs:
                job.verifier.close()
            from evalkit.install_hints import missing_part

            why = missing_part(exc) or _one_line(exc)
            raise CommandError(f"cannot load model {model_label!r} with {args.backend}: {why}") from None
    load_s = time.time() - started
    columns = (
        TextColumn("[bold]evaluating {task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("samples"),
        TimeElapsedColumn(),
    )
    timings = {}
    try:
        with Progress(*columns, console=console) as progress:
            for job in jobs:
                timings[job.entry.key] = _evaluate(args, job, backend, sampling, template, progress)
    finally:
        backend.close()
        for job in jobs:
            job.verifier.close()
    shared = {
        **run_info(),
        "run_dir": str(run_dir),
        "model": model_name,
        "backend": args.backend,
        "threads": _torch_threads() if args.backend == "transformers" else None,
        "sampling": asdict(sampling),
        "prompt_template": template.as_dict(),
    }
    summaries, results = {}, {}
    for job in jobs:
        summaries[job.entry.key], results[job.entry.key] = _results(
            job, shared, timings[job.entry.key], load_s, started
        )
    console = Console()
    total = sum(len(job.tasks) for job in jobs) * sampling.n
    if suite:
        from evalkit.suite import write_report, write_results
        from evalkit.summary import suite_table

        write_results(run_dir, {**shared, "timings": {"load_s": load_s, "wall_s": time.time() - started}}, results)
        write_report(run_dir, summaries)
        title = f"{', '.join(summaries)} · {model_label} · {args.backend} · {total} samples"
        console.print(suite_table(summaries, title=title, width=console.width))
    else:
        from evalkit.summary import report_table

        title = f"{jobs[0].entry.key} · {model_label} · {args.backend} · {total} samples"
        console.print(report_table(summaries[jobs[0].entry.key], title=title, width=console.width))
    Console().print(f"report: {run_dir / 'report.html'}  results: {run_dir / 'results.json'}")
    failed = False
    for job in jobs:
        for problem in job.problems[:20]:
            print(f"evalkit eval: {job.tasks_label}: {problem} (skipped)", file=sys.stderr)
        if summaries[job.entry.key]["overall"]["error_rate"] >= 1.0:
            print(
                f"evalkit eval: every {job.entry.key} sample scored ERROR (the verifier failed; see its report.html)",
                file=sys.stderr,
            )
            failed = True
    return 1 if failed or any(job.problems for job in jobs) else 0


def _evaluate(args: argparse.Namespace, job: _Job, backend: Any, sampling: Any, template: Any, progress: Any) -> dict:
    from evalkit.pipeline import RunMismatch, evaluate

    bar = progress.add_task(job.entry.key, total=len(job.tasks) * sampling.n)
    try:
        return evaluate(
            job.verifier,
            job.tasks,
            backend,
            sampling,
            job.run_dir,
            workers=args.workers,
            template=template,
            prompts_per_batch=args.batch_prompts or BATCH_PROMPTS[args.backend],
            on_samples=lambda k: progress.advance(bar, k),
        )
    except RunMismatch as exc:
        raise CommandError(str(exc)) from None
    except OSError as exc:
        raise CommandError(f"cannot write the run folder {job.run_dir}: {exc.strerror or exc}") from None
    except RuntimeError as exc:  # GenerationFailed and engine failures: one line, the run folder resumable
        raise CommandError(
            f"generation failed: {_one_line(exc)} (finished samples are kept; rerun to resume)"
        ) from None


def _results(job: _Job, shared: dict, timing: dict, load_s: float, started: float) -> tuple[dict, dict]:
    """The verifier's report built from its samples, and its results.json (written in its folder)."""
    from evalkit.report import build

    summary = build(job.run_dir)
    tokens_per_s = timing["tokens"] / timing["generate_s"] if timing["generate_s"] else None
    results = {
        **shared,
        "run_dir": str(job.run_dir),
        "verifier": job.verifier.spec(),
        "tasks": job.tasks_label,
        "task_count": len(job.tasks),
        "timings": {"load_s": load_s, **timing, "wall_s": time.time() - started, "tokens_per_s": tokens_per_s},
        "metrics": summary["overall"],
        "by_difficulty": summary["by_difficulty"],
    }
    (job.run_dir / "results.json").write_text(strict_dumps(results, indent=2, default=str) + "\n")
    return summary, results


def _job(entry: VerifierEntry, args: argparse.Namespace, run_dir: Path) -> _Job:
    """The entry's verifier and its tasks: a task file (--tasks, or the suite's "tasks"), else the
    verifier's built-in split; a seeded subset stratified by difficulty."""
    import verifiers
    from evalkit.taskfile import load_task_file, stratified

    if args.limit is not None and args.limit < 1:
        raise CommandError("--limit must be at least 1")
    try:
        verifier = verifiers.get(entry.name, **(entry.config or {}))
    except (verifiers.UnknownVerifier, TypeError, ValueError) as exc:
        raise CommandError(str(exc)) from None
    task_file = args.tasks if args.tasks is not None else entry.extra.get("tasks")
    problems: list[str] = []
    if task_file is not None:
        task_file = Path(task_file)
        if not task_file.is_file():
            verifier.close()
            raise CommandError(f"task file {task_file} does not exist")
        tasks, problems = load_task_file(task_file, verifier)
        if not tasks:
            verifier.close()
            raise CommandError(f"{task_file} has no usable task ({problems[0] if problems else 'it is empty'})")
        limit, label = args.limit or len(tasks), str(task_file)
    else:
        try:
            tasks = verifier.tasks(args.split)
        except verifiers.Unsupported:
            raise CommandError(f"{entry.name} ships no tasks: pass your own with --tasks FILE.jsonl") from None
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        if not tasks:
            raise CommandError(f"{entry.name} has no tasks in split {args.split!r}")
        limit, label = args.limit or DEFAULT_LIMIT, f"built-in {args.split}"
    return _Job(entry, verifier, stratified(tasks, limit, args.seed), problems, label, run_dir)


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
    from evalkit.pipeline import shot_pair

    if path is None:
        return ()
    if not path.is_file():
        raise CommandError(f"--few-shot file {path} does not exist")
    shots = []
    try:
        for line_no, record in json_lines(path):
            try:
                shots.append(shot_pair(record, verifier))
            except Exception as exc:  # any malformed example: say which line
                raise CommandError(f"--few-shot {path} line {line_no}: {_one_line(exc)}") from None
    except ValueError as exc:  # a line that is not JSON
        raise CommandError(f"--few-shot {_one_line(exc)}") from None
    return tuple(shots)


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

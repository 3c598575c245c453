"""The evaluation pipeline: tasks -> prompts -> n completions per task -> scores -> one JSONL line
per sample, written as soon as it is scored.

Scoring of one batch overlaps generation of the next (scoring runs in worker processes), and each
batch is written the moment its scores arrive, so an interrupt keeps every scored sample. A rerun
with the same run folder skips every task whose n samples are already on disk, scores again any
sample that scored ERROR (the verifier failed, not the model), and drops a torn last line from an
interrupted run, so nothing is repeated and nothing is lost. A run folder holding another run
(verifier, config, model, backend, sampling, prompt template) is refused before any work.
"""

from __future__ import annotations

import json
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from verifiers import Verifier
from verifiers.score import ITEM_TIMEOUT_SECONDS

from .generation import Backend, Generation, Sampling
from .jsonl import JsonlWriter, read_complete_records
from .resume import check_writable, first_difference, write_atomically

SAMPLES = "samples.jsonl"
RUN_CONFIG = "run.json"


class RunMismatch(ValueError):
    """The run folder holds a different run (other verifier, model or sampling): refuse to mix them."""


@dataclass(frozen=True)
class PromptTemplate:
    """How a task's prompt becomes a conversation: an optional system prompt and few-shot
    examples (user, assistant) before it."""

    system: str | None = None
    shots: tuple[tuple[str, str], ...] = ()
    response_prefix: str = ""  # text the assistant turn starts with (e.g. "Answer:"); the backend applies it

    def conversation(self, prompt: str) -> list[dict[str, str]]:
        messages = [{"role": "system", "content": self.system}] if self.system else []
        for user, assistant in self.shots:
            messages += [{"role": "user", "content": user}, {"role": "assistant", "content": assistant}]
        return messages + [{"role": "user", "content": prompt}]

    def as_dict(self) -> dict[str, Any]:
        return {"system": self.system, "shots": [list(s) for s in self.shots], "response_prefix": self.response_prefix}


def shot_pair(record: Mapping[str, Any], verifier: Verifier) -> tuple[str, str]:
    """One few-shot example as (user, assistant): the record's `completion`, and its `prompt` or,
    without one, the verifier's prompt for the record's task fields. The one reading of a shot
    record, for `evalkit eval --few-shot` files and GRPO's `few_shot` list alike."""
    if not isinstance(record, Mapping):
        raise TypeError(f"a few-shot example must be a JSON object, got {type(record).__name__}")
    if "completion" not in record:
        raise ValueError("a few-shot example needs a 'completion'")
    completion = record["completion"]
    prompt = record.get("prompt") or verifier.prompt({k: v for k, v in record.items() if k != "completion"})
    if not isinstance(prompt, str) or not isinstance(completion, str):
        raise TypeError("prompt and completion must be text")
    return prompt, completion


@dataclass(frozen=True)
class RunConfig:
    verifier: dict[str, Any]
    model: str
    backend: str
    sampling: dict[str, Any]
    task_ids: list[str]
    prompt_template: dict[str, Any] = field(default_factory=lambda: PromptTemplate().as_dict())

    def key(self) -> dict[str, Any]:
        """What must match for a rerun to continue this run (every task list may grow or shrink)."""
        return {k: v for k, v in asdict(self).items() if k != "task_ids"}


def prepare_run(run_dir: Path, config: RunConfig, *, overwrite: bool = False) -> None:
    """Check, before anything expensive, that `run_dir` can hold this run: writable, and empty or
    holding the same run (else RunMismatch saying what differs). `overwrite` starts afresh."""
    check_writable(run_dir / SAMPLES)
    if overwrite:
        for name in (SAMPLES, RUN_CONFIG):
            (run_dir / name).unlink(missing_ok=True)
    path = run_dir / RUN_CONFIG
    if path.exists():
        stored = json.loads(path.read_text())
        old = {**asdict(RunConfig(config.verifier, "", "", {}, [])), **stored}
        old["sampling"] = {**asdict(Sampling()), **old.get("sampling", {})}  # settings added since it was written
        old["prompt_template"] = {**PromptTemplate().as_dict(), **old.get("prompt_template", {})}
        old["verifier"] = _with_default_config(old.get("verifier") or {})
        difference = first_difference({k: v for k, v in old.items() if k != "task_ids"}, config.key())
        if difference:
            raise RunMismatch(
                f"{run_dir} holds a different run ({difference}); rerun with --overwrite to start "
                "afresh, or use another --run-dir"
            )
    write_atomically(path, json.dumps(asdict(config), indent=2) + "\n")


def task_id(task: Mapping[str, Any], index: int) -> str:
    return str(task.get("id", index))


def load_samples(run_dir: Path) -> list[dict[str, Any]]:
    return list(read_complete_records(run_dir / SAMPLES))


def _with_default_config(spec: dict[str, Any]) -> dict[str, Any]:
    """A stored verifier spec with config fields added since it was written set to their defaults."""
    import verifiers

    try:
        defaults = verifiers.verifier_class(spec["verifier"]).default_config()
    except Exception:  # an unknown or malformed spec: compared as stored
        return spec
    return {**spec, "config": {**defaults, **(spec.get("config") or {})}}


def task_prompt(verifier: Verifier, task: Mapping[str, Any]) -> str:
    """The task's own `prompt` when it has one (a user's task file), else the verifier's."""
    given = task.get("prompt")
    return given if isinstance(given, str) and given.strip() else verifier.prompt(task)


def evaluate(
    verifier: Verifier,
    tasks: Sequence[Mapping[str, Any]],
    backend: Backend,
    sampling: Sampling,
    run_dir: Path,
    *,
    prompts_per_batch: int = 8,
    workers: int | None = None,
    timeout: float = ITEM_TIMEOUT_SECONDS,
    on_samples: Callable[[int], None] | None = None,
    template: PromptTemplate = PromptTemplate(),
    overwrite: bool = False,
) -> dict[str, float]:
    """Generate and score until every task has `sampling.n` samples in `run_dir/samples.jsonl`.
    Returns seconds spent generating and waiting on scoring and tokens generated, for the report.
    The caller keeps the verifier (and closes it)."""
    ids = [task_id(t, i) for i, t in enumerate(tasks)]
    config = RunConfig(verifier.spec(), backend.model_name, backend.name, asdict(sampling), ids, template.as_dict())
    prepare_run(run_dir, config, overwrite=overwrite)
    _rescore_errors(verifier, run_dir, dict(zip(ids, tasks)), workers, timeout)

    counts: dict[str, int] = {}
    for record in load_samples(run_dir):
        counts[record["task_id"]] = counts.get(record["task_id"], 0) + 1
    todo = [(tid, t) for tid, t in zip(ids, tasks) if counts.get(tid, 0) < sampling.n]
    partial = {tid for tid, _ in todo if counts.get(tid, 0)}
    if partial:  # a run killed while writing a batch can leave a task half written: redo it whole
        _drop_tasks(run_dir, partial)
    if on_samples:
        on_samples(sum(min(c, sampling.n) for tid, c in counts.items() if tid not in partial))

    timing = {"generate_s": 0.0, "score_wait_s": 0.0, "tokens": 0}
    batches = [todo[k : k + prompts_per_batch] for k in range(0, len(todo), prompts_per_batch)]
    with ThreadPoolExecutor(max_workers=1) as scorer, JsonlWriter(run_dir / SAMPLES) as out:
        futures: list[Future] = []
        try:
            for batch in batches:
                prompts = [task_prompt(verifier, t) for _, t in batch]
                start = time.perf_counter()
                generations = backend.generate([template.conversation(p) for p in prompts], sampling)
                timing["generate_s"] += time.perf_counter() - start
                timing["tokens"] += sum(g.tokens for gens in generations for g in gens)
                completions = [g.text for gens in generations for g in gens]
                flat_tasks = [t for (_, t), gens in zip(batch, generations) for _ in gens]
                # scored and written in the scorer thread while the next batch generates
                future = scorer.submit(
                    _score_and_write,
                    verifier,
                    completions,
                    flat_tasks,
                    workers,
                    timeout,
                    out,
                    batch,
                    generations,
                    prompts,
                    on_samples,
                )
                futures.append(future)
        finally:
            start = time.perf_counter()
            for future in futures:
                future.exception()  # wait: every generated batch is scored and written before we return
            timing["score_wait_s"] += time.perf_counter() - start
    for future in futures:
        future.result()
    return timing


def _score_and_write(
    verifier: Verifier,
    completions: list[str],
    tasks: list[Mapping[str, Any]],
    workers: int | None,
    timeout: float,
    out: JsonlWriter,
    batch: list,
    generations: list[list[Generation]],
    prompts: list[str],
    on_samples: Callable[[int], None] | None,
) -> None:
    """One batch's scores, written before the future completes (one scorer thread: writes never interleave)."""
    scores = iter(verifier.score_batch(completions, tasks, workers=workers, timeout=timeout))
    for (tid, task), prompt, gens in zip(batch, prompts, generations):
        for k, g in enumerate(gens):
            out.write(
                {
                    "task_id": tid,
                    "sample": k,
                    "difficulty": task.get("difficulty"),
                    "prompt": prompt,
                    "completion": g.text,
                    "tokens": g.tokens,
                    "finish_reason": g.finish_reason,
                    "score": next(scores).to_dict(),
                }
            )
    out.flush()
    if on_samples:
        on_samples(sum(len(g) for g in generations))


def _rescore_errors(
    verifier: Verifier, run_dir: Path, by_id: Mapping[str, Mapping[str, Any]], workers: int | None, timeout: float
) -> int:
    """Score again every stored sample whose score is ERROR (the verifier failed, not the model)."""
    records = load_samples(run_dir)
    todo = [r for r in records if (r.get("score") or {}).get("verdict") == "error" and str(r.get("task_id")) in by_id]
    if not todo:
        return 0
    fresh = verifier.score_batch(
        [r["completion"] for r in todo], [by_id[str(r["task_id"])] for r in todo], workers=workers, timeout=timeout
    )
    for record, score in zip(todo, fresh):
        record["score"] = score.to_dict()
    write_atomically(run_dir / SAMPLES, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))
    return len(todo)


def _drop_tasks(run_dir: Path, task_ids: set[str]) -> None:
    """Rewrite the samples without those of `task_ids` (a task left half-done is generated again whole)."""
    keep = [r for r in load_samples(run_dir) if r["task_id"] not in task_ids]
    write_atomically(run_dir / SAMPLES, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in keep))

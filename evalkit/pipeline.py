"""The evaluation pipeline: tasks -> prompts -> n completions per task -> scores -> one JSONL line
per sample, written as soon as it is scored.

Scoring of one batch overlaps generation of the next (scoring runs in worker processes). A rerun
with the same run folder skips every task whose n samples are already on disk, and a torn last
line from an interrupted run is dropped, so nothing is repeated and nothing is lost.
"""
from __future__ import annotations

import json
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from verifiers import Verifier

from .generation import Backend, Generation, Sampling
from .jsonl import JsonlWriter, read_complete_records

SAMPLES = "samples.jsonl"
RUN_CONFIG = "run.json"


class RunMismatch(ValueError):
    """The run folder holds a different run (other verifier, model or sampling): refuse to mix them."""


@dataclass(frozen=True)
class RunConfig:
    verifier: dict[str, Any]
    model: str
    backend: str
    sampling: dict[str, Any]
    task_ids: list[str]

    def key(self) -> dict[str, Any]:
        """What must match for a rerun to continue this run."""
        return {k: v for k, v in asdict(self).items() if k != "task_ids"}


def task_id(task: Mapping[str, Any], index: int) -> str:
    return str(task.get("id", index))


def load_samples(run_dir: Path) -> list[dict[str, Any]]:
    return list(read_complete_records(run_dir / SAMPLES))


def evaluate(verifier: Verifier, tasks: Sequence[Mapping[str, Any]], backend: Backend, sampling: Sampling,
             run_dir: Path, *, prompts_per_batch: int = 8, workers: int | None = None, timeout: float = 30.0,
             on_samples: Callable[[int], None] | None = None) -> dict[str, float]:
    """Generate and score until every task has `sampling.n` samples in `run_dir/samples.jsonl`.
    Returns seconds spent generating and waiting on scoring, for the report."""
    run_dir.mkdir(parents=True, exist_ok=True)
    ids = [task_id(t, i) for i, t in enumerate(tasks)]
    config = RunConfig(verifier.spec(), backend.model_name, backend.name, asdict(sampling), ids)
    _check_or_write_config(run_dir, config)

    counts: dict[str, int] = {}
    for record in load_samples(run_dir):
        counts[record["task_id"]] = counts.get(record["task_id"], 0) + 1
    todo = [(tid, t) for tid, t in zip(ids, tasks) if counts.get(tid, 0) < sampling.n]
    partial = {tid for tid, _ in todo if counts.get(tid, 0)}
    if partial:  # a run killed while writing a batch can leave a task half written: redo it whole
        _drop_tasks(run_dir, partial)
    if on_samples:
        on_samples(sum(min(c, sampling.n) for tid, c in counts.items() if tid not in partial))

    timing = {"generate_s": 0.0, "score_wait_s": 0.0}
    batches = [todo[k:k + prompts_per_batch] for k in range(0, len(todo), prompts_per_batch)]
    with ThreadPoolExecutor(max_workers=1) as scorer, JsonlWriter(run_dir / SAMPLES) as out:
        pending: tuple[list, list[list[Generation]], list[str], Future] | None = None
        for batch in batches:
            prompts = [verifier.prompt(t) for _, t in batch]
            start = time.perf_counter()
            generations = backend.generate([[{"role": "user", "content": p}] for p in prompts], sampling)
            timing["generate_s"] += time.perf_counter() - start
            completions = [g.text for gens in generations for g in gens]
            flat_tasks = [t for (_, t), gens in zip(batch, generations) for _ in gens]
            future = scorer.submit(verifier.score_batch, completions, flat_tasks, workers=workers, timeout=timeout)
            if pending is not None:  # write the previous batch while this one is being scored
                timing["score_wait_s"] += _write(out, *pending, on_samples)
            pending = (batch, generations, prompts, future)
        if pending is not None:
            timing["score_wait_s"] += _write(out, *pending, on_samples)
    verifier.close()
    return timing


def _write(out: JsonlWriter, batch: list, generations: list[list[Generation]], prompts: list[str], future: Future,
           on_samples: Callable[[int], None] | None) -> float:
    start = time.perf_counter()
    scores = iter(future.result())
    waited = time.perf_counter() - start
    for (tid, task), prompt, gens in zip(batch, prompts, generations):
        for k, g in enumerate(gens):
            out.write({"task_id": tid, "sample": k, "difficulty": task.get("difficulty"), "prompt": prompt,
                       "completion": g.text, "tokens": g.tokens, "finish_reason": g.finish_reason,
                       "score": next(scores).to_dict()})
    out.flush()
    if on_samples:
        on_samples(sum(len(g) for g in generations))
    return waited


def _check_or_write_config(run_dir: Path, config: RunConfig) -> None:
    path = run_dir / RUN_CONFIG
    if path.exists():
        stored = json.loads(path.read_text())
        old = RunConfig(**stored)
        if old.key() != config.key():
            raise RunMismatch(f"{run_dir} holds a different run ({_first_difference(old.key(), config.key())}); "
                              "use another --run-dir")
    path.write_text(json.dumps(asdict(config), indent=2) + "\n")


def _first_difference(a: dict[str, Any], b: dict[str, Any]) -> str:
    for key in a:
        if a[key] != b.get(key):
            return f"{key}: {a[key]!r} there, {b.get(key)!r} now"
    return "unknown difference"


def _drop_tasks(run_dir: Path, task_ids: set[str]) -> None:
    keep = [r for r in load_samples(run_dir) if r["task_id"] not in task_ids]
    tmp = run_dir / (SAMPLES + ".tmp")
    tmp.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in keep))
    tmp.replace(run_dir / SAMPLES)

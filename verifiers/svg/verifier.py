"""The SVG verifier: extract, gate, render in a killable worker, then score with CLIP and checks.

Reward (in [0, 1]; 0 for INVALID) is a weighted sum, renormalised over the parts a task has:
- `clip`: the image-prompt cosine mapped linearly from `clip_cosine_range` onto [0, 1];
- `contrastive`: the softmax probability of the prompt among its hard negatives (a hexagon
  against a pentagon and an octagon), where plain CLIP is weak at counting and geometry;
- `checks`: the mean of the task's programmatic checks (six equal sides, five star points, the
  red share of a battery), each also reported as `check:<name>`.
Verdict: with checks, CORRECT when all pass, PARTIAL when some do, else INCORRECT; without checks,
CORRECT when the prompt beats every negative. A blank or single-colour render is INVALID.

Batches run as one pipeline (`score_batch`): gating here, renders in parallel killable workers,
CLIP image encoding in batches in this process.
"""

from __future__ import annotations

import base64
import hashlib
import os
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Mapping, Sequence

import numpy as np

from ..base import TaskError, Verifier, setting
from ..locate import with_choices_resolved
from ..protocol import Item
from ..registry import register
from ..score import Score, Verdict
from ..splits import select
from ..testing import Probe
from ..turn import model_turn, own_task_part
from .drawing import CheckResult, image_from_png
from .extract import PICKS, READ_FAILURES, extract_svg
from .gate import GatedSvg, GateError, GateLimits, gate
from .render import RENDERERS, STALLED, RenderPool, wall_seconds
from .tasks import OPENING_WORDS, OPENS_A_TASK, builtin_tasks, load_tasks, negatives_for, prompt_for, validate


@dataclass(frozen=True)
class SvgConfig:
    # which <svg> in the completion: "final" (docs/answers.md), "last", "first", "only"
    pick: str = setting("final", client="free")
    max_svg_chars: int = setting(100_000, client="at_most")
    max_nodes: int = setting(2_000, client="at_most")
    max_depth: int = setting(32, client="at_most")
    max_use_expansion: int = setting(10_000, client="at_most")
    allow_text: bool = False  # <text> lets a model write the prompt for CLIP to read
    allow_raster: bool = False  # embedded images (Pillow-checked rasters only) can smuggle words too
    renderer: str = "cairosvg"  # or "resvg" (needs resvg-py)
    render_size: int = setting(256, client="at_most")
    # CPU seconds per render (the drawing's cost, whatever the load): past it the worker is killed
    # and the SVG is INVALID `render_timeout`; see render.py for the wall-clock backstop
    render_timeout: float = setting(3.0, client="at_most")
    render_memory_mb: int = setting(1024, client="at_most")
    render_workers: int = 0  # 0: one per CPU core
    min_ink: float = setting(
        0.002, client="free"
    )  # share of pixels off the dominant colour below which a render is blank
    clip_model: str = "ViT-B-32-quickgelu"
    clip_weights: str = "openai"  # tag (online), /path/to/weights, or local-dir:/folder
    clip_batch_size: int = setting(32, client="at_most")
    clip_cosine_range: tuple[float, float] = setting((0.15, 0.35), client="free")
    contrastive_temperature: float = setting(0.0, client="free")  # 0: the model's own logit scale
    clip_weight: float = setting(0.2, client="free")
    contrastive_weight: float = setting(0.4, client="free")
    checks_weight: float = setting(0.4, client="free")
    keep_png: bool = setting(False, client="free")  # put the rendered PNG (base64) in Score.info
    tasks_file: str | None = None  # JSONL of user tasks for tasks()

    def validate(self) -> None:
        if self.pick not in PICKS:
            raise ValueError(f"pick must be one of {PICKS}")
        if self.renderer not in RENDERERS:
            raise ValueError(f"renderer must be one of {RENDERERS}")
        if min(self.clip_weight, self.contrastive_weight, self.checks_weight) < 0:
            raise ValueError("component weights must be >= 0")
        low, high = self.clip_cosine_range
        if not low < high:  # mapped linearly onto [0, 1]: an empty or reversed range divides by 0 or inverts it
            raise ValueError(f"clip_cosine_range must be (low, high) with low < high, got {self.clip_cosine_range}")
        if self.contrastive_temperature < 0:
            raise ValueError(
                f"contrastive_temperature must be >= 0 (0: the model's own), got {self.contrastive_temperature}"
            )
        if self.render_timeout <= 0 or self.render_size < 8:
            raise ValueError("render_timeout must be > 0 and render_size >= 8")


@dataclass
class _Job:
    """One item's progress through the pipeline."""

    task: Mapping[str, Any]
    gated: GatedSvg
    image: np.ndarray | None = None
    png: bytes = b""
    checks: dict[str, tuple[bool, float, str]] = field(default_factory=dict)
    components: dict[str, float] = field(default_factory=dict)
    info: dict[str, Any] = field(default_factory=dict)


@register("svg")
class SvgVerifier(Verifier):
    """Safe SVG rendering scored by open_clip (cosine and contrastive) and programmatic checks."""

    Config = SvgConfig
    components = ("checks", "clip", "contrastive", "ink")
    task_fields = {
        "prompt": "str, needed: what to draw (the caption CLIP compares the rendering with)",
        "negatives": "list of str, optional: captions the drawing should not match (derived otherwise)",
        "checks": "list of objects, optional: programmatic checks of the rendering ({check: NAME, ...})",
        "reference": "str, informational: a reference SVG (never shown to the model)",
        "seed_name": "str, informational: the task's name in the seed's list",
        "id": "str, optional: the task's name in results (its index otherwise)",
    }
    # offline, without CLIP weights: the render's programmatic checks alone
    presets = {"checks_only": {"clip_weight": 0.0, "contrastive_weight": 0.0, "checks_weight": 1.0}}
    worker_memory_mb: ClassVar[int | None] = None  # torch lives in this process, renders are capped separately

    def __init__(self, **config: Any) -> None:
        super().__init__(**config)
        c = self.config
        self.limits = GateLimits(
            c.max_svg_chars, c.max_nodes, c.max_depth, c.max_use_expansion, c.allow_text, c.allow_raster
        )
        self._lock = threading.Lock()
        self._renders: RenderPool | None = None
        self._clip: Any = None
        self._clip_failure: str | None = None

    def time_budget(self) -> float:
        """The most one score may take: its render (killed at `render_timeout` CPU seconds, or at
        its wall-clock backstop) and a CLIP pass on the CPU, with the model's first load (tens of
        seconds on a loaded 2-core host)."""
        return wall_seconds(self.config.render_timeout) + 60.0

    def __getstate__(self) -> dict[str, Any]:
        state = super().__getstate__()
        state.update(_renders=None, _clip=None, _clip_failure=None)
        state.pop("_lock", None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    @property
    def uses_clip(self) -> bool:
        return self.config.clip_weight > 0 or self.config.contrastive_weight > 0

    # ------------------------------------------------------------------ scoring
    def evaluate(self, completion: str, task: Mapping[str, Any]) -> Score:
        return self.score_items([(0, completion, task)])[0]

    def score_items(
        self,
        items: Sequence[Item],
        *,
        workers: int | None = None,
        timeout: float | None = None,
        progress: Callable[[int], None] | None = None,
    ) -> dict[int, Score]:
        """Score `(index, completion, task)` items together; never raises on anything a model wrote.
        This is the batched hook (`protocol.BatchScorer`): `score_batch` hands whole batches here, so
        CLIP runs batched and renders in parallel killable workers."""
        done = progress or (lambda n: None)
        out: dict[int, Score] = {}
        jobs: dict[int, _Job] = {}
        for i, completion, task in items:
            try:
                validate(task)
            except TaskError as exc:
                out[i] = Score.error(f"bad task: {exc}", task_error=True)
                continue
            try:
                turn = model_turn(completion if isinstance(completion, str) else "")  # docs/answers.md
                if turn.unfinished:
                    out[i] = _invalid("unfinished", turn.unfinished)
                    continue
                text = turn.text
                if OPENING_WORDS in text:  # a next drawing the model asked itself for, or this one echoed
                    subject = task["prompt"]
                    text = own_task_part(text, OPENS_A_TASK, lambda m, subject=subject: m.group("subject") == subject)
                svg, why = extract_svg(with_choices_resolved(text), self.config.pick)
                if svg is None:
                    out[i] = _invalid(why, READ_FAILURES[why])
                    continue
                jobs[i] = _Job(task, gate(svg, self.limits))
            except GateError as exc:
                out[i] = _invalid(exc.code, str(exc))
            except Exception as exc:  # our bug on one item must not lose the batch
                out[i] = Score.error(f"verifier raised {type(exc).__name__}: {exc}")
        done(len(out))
        if jobs:
            with self._lock:
                out.update(self._score_jobs(jobs, workers, timeout))
            done(len(jobs))
        return out

    def _score_jobs(self, jobs: dict[int, _Job], workers: int | None, timeout: float | None) -> dict[int, Score]:
        out: dict[int, Score] = {}
        renders = self._render_pool(workers, timeout).render(
            [j.gated.svg for j in jobs.values()], checks=[j.task.get("checks") or [] for j in jobs.values()]
        )
        for (i, job), rendered in zip(list(jobs.items()), renders):
            if isinstance(rendered, str):
                code = rendered.partition(":")[0]
                out[i] = Score.error(rendered) if code == STALLED else _invalid(code, rendered)
                del jobs[i]
                continue
            if rendered.task_error:
                out[i] = Score.error(f"bad task: {rendered.task_error}", task_error=True)
                del jobs[i]
                continue
            png = rendered.png
            job.png, job.image, job.checks = png, image_from_png(png), rendered.checks
            ink = ink_share(job.image)
            job.components["ink"] = ink
            job.info.update(
                png_sha256=hashlib.sha256(png).hexdigest(), nodes=job.gated.nodes, renderer=self.config.renderer
            )
            if ink < self.config.min_ink:
                out[i] = _invalid("blank_render", f"the render is a single colour ({ink:.2%} of pixels differ)")
                del jobs[i]
        if jobs and self.uses_clip:
            failure = self._clip_components(list(jobs.values()))
            if failure:
                out.update({i: Score.error(failure) for i in jobs})
                return out
        for i, job in jobs.items():
            try:
                out[i] = self._finish(job)
            except TaskError as exc:
                out[i] = Score.error(f"bad task: {exc}", task_error=True)
            except Exception as exc:  # our bug on one item must not lose the batch
                out[i] = Score.error(f"verifier raised {type(exc).__name__}: {exc}")
        return out

    def _render_pool(self, workers: int | None, timeout: float | None) -> RenderPool:
        c = self.config
        # workers=0 ("no worker processes") cannot apply: renders always run in at least one
        size = 1 if workers == 0 else workers or c.render_workers or os.cpu_count() or 1
        wall = wall_seconds(c.render_timeout)
        wall = min(wall, timeout) if timeout else wall  # the caller's per-item deadline, if shorter
        renders = self._renders
        if renders is None or renders.workers != size or renders.wall != wall:
            if renders is not None:
                renders.close()
            self._renders = RenderPool(c.renderer, c.render_size, c.render_timeout, c.render_memory_mb, size, wall)
        return self._renders

    # ------------------------------------------------------------------ CLIP
    def clip(self) -> Any:
        """The loaded `ClipScorer` (loaded once; a load failure is remembered, not retried per item)."""
        if self._clip is None and self._clip_failure is None:
            from .clip import ClipScorer, ClipUnavailable

            try:
                self._clip = ClipScorer(self.config.clip_model, self.config.clip_weights, self.config.clip_batch_size)
            except ClipUnavailable as exc:
                self._clip_failure = str(exc)
        if self._clip is None:
            raise RuntimeError(self._clip_failure)
        return self._clip

    def _clip_components(self, jobs: list[_Job]) -> str | None:
        """Fill in `clip_cosine`, `clip` and `contrastive` for every job; a reason if CLIP cannot run."""
        from .clip import contrastive_probability

        try:
            scorer = self.clip()
        except RuntimeError as exc:
            return f"CLIP unavailable: {exc}"
        images = scorer.encode_images([j.image for j in jobs])
        captions_of = [[j.task["prompt"], *negatives_for(j.task)] for j in jobs]
        scorer.encode_texts([c for captions in captions_of for c in captions])  # new captions in one batch
        lo, hi = self.config.clip_cosine_range
        scale = self.config.contrastive_temperature or scorer.logit_scale
        for job, image, captions in zip(jobs, images, captions_of):
            texts = scorer.encode_texts(captions)
            cosine = float(texts[0] @ image)
            probs = contrastive_probability(image, texts, scale)
            job.components.update(
                clip_cosine=cosine, clip=float(np.clip((cosine - lo) / (hi - lo), 0, 1)), contrastive=float(probs[0])
            )
            job.info.update(
                clip=scorer.describe(),
                prompt_ranks_first=bool(probs.argmax() == 0),
                negatives={c: round(float(p), 4) for c, p in zip(captions[1:], probs[1:])},
            )
        return None

    # ------------------------------------------------------------------ reward
    def _finish(self, job: _Job) -> Score:
        c = self.config
        specs = job.task.get("checks") or []
        parts: dict[str, tuple[float, float]] = {}  # name -> (value, weight)
        if specs:  # measured in the render worker, under the render's time budget
            results = {name: CheckResult(*result) for name, result in job.checks.items()}
            for name, result in results.items():
                job.components[f"check:{name}"] = result.value
            job.info["checks"] = {n: {"passed": r.passed, "detail": r.detail} for n, r in results.items()}
            passed = sum(r.passed for r in results.values())
            job.components["checks"] = sum(r.value for r in results.values()) / len(results)
            parts["checks"] = (job.components["checks"], c.checks_weight)
        if self.uses_clip:
            parts["clip"] = (job.components["clip"], c.clip_weight)
            parts["contrastive"] = (job.components["contrastive"], c.contrastive_weight)
        total = sum(w for _v, w in parts.values())
        reward = sum(v * w for v, w in parts.values()) / total if total else 1.0
        if specs:
            verdict = Verdict.CORRECT if passed == len(specs) else Verdict.PARTIAL if passed else Verdict.INCORRECT
            reason = f"{passed} of {len(specs)} checks pass"
        elif self.uses_clip:
            first = job.info["prompt_ranks_first"]
            verdict = Verdict.CORRECT if first else Verdict.INCORRECT
            reason = "the prompt beats every negative" if first else "a negative caption matches the image better"
        else:
            verdict, reason = Verdict.PARTIAL, "renders; no checks or CLIP configured to judge it"
        if c.keep_png:
            job.info["png"] = base64.b64encode(job.png).decode("ascii")
        # answer=None: drawings have no canonical answer to vote on (equal pictures in other colours
        # would never match), so maj@k is reported as n/a for SVG rather than as a meaningless number
        return Score(min(1.0, max(0.0, reward)), verdict, job.components, None, reason, job.info)

    # ------------------------------------------------------------------ tasks
    def probes(self) -> list[Probe]:
        from .probes import PROBES

        return PROBES

    def prompt(self, task: Mapping[str, Any]) -> str:
        validate(task)
        return prompt_for(task)

    def tasks(self, split: str = "test", *, limit: int | None = None, seed: int = 0) -> list[dict[str, Any]]:
        """The seed's 23 prompts (or `tasks_file`'s), seeded 80/20 split; "all" gives every one."""
        source = load_tasks(self.config.tasks_file) if self.config.tasks_file else builtin_tasks()
        return select(source, split, limit=limit, seed=seed)

    def close(self) -> None:
        super().close()
        if self._renders is not None:
            self._renders.close()
            self._renders = None


def ink_share(image: np.ndarray) -> float:
    """Share of pixels that differ from the image's most common colour (0 for a blank render)."""
    flat = image.reshape(-1, 3).astype(np.int32)
    packed = (flat[:, 0] << 16) | (flat[:, 1] << 8) | flat[:, 2]
    values, counts = np.unique(packed, return_counts=True)
    dominant = values[counts.argmax()]
    base = np.array([(dominant >> 16) & 255, (dominant >> 8) & 255, dominant & 255])
    return float((np.abs(flat - base).max(axis=1) > 24).mean())


def _invalid(code: str, reason: str) -> Score:
    return Score.invalid(reason if reason.startswith(code) else f"{code}: {reason}", reason_code=code)

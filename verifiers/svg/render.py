"""Render gated SVG to PNG, and run the task's programmatic checks on it, in worker processes
that can be killed.

A render can spend 20 s inside cairosvg (nested `<use>`, many patterns) or allocate gigabytes,
and no in-process guard can interrupt C code; a check on hostile geometry could be slow too. So
both run in `verifiers.pool` workers under one budget per SVG, counted in CPU seconds so that
it measures the drawing and not the machine's load: past it the kernel ends the worker (RLIMIT_CPU,
SIGXCPU), the SVG is INVALID (`render_timeout`) and the worker is replaced. A render still not
done after `WALL_FACTOR` times its CPU budget in wall-clock time was starved by the machine,
not slowed by the drawing: it is ERROR (`render_stalled`), never the model's fault. Workers also
have an address-space cap. The
renderers always get both output width and height (a huge `width=` then costs nothing) and a
white background (CLIP would see a transparent canvas as black, and black shapes would vanish);
cairosvg never gets `unsafe=True`.
"""

from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass, field
from typing import Any, Iterator, Mapping, Sequence

from ..pool import WorkerPool
from ..score import Score, Verdict

RENDERERS = ("cairosvg", "resvg")
WALL_FACTOR = 10  # wall-clock seconds a render may take per CPU second of its budget (at least 30 s more)
STALLED = "render_stalled"  # the one render failure that is ours (the machine's), not the drawing's


def wall_seconds(cpu_seconds: float) -> float:
    """The wall-clock backstop of a render with `cpu_seconds` of CPU: far past any load that is
    merely heavy, so that only a stalled worker meets it."""
    return max(cpu_seconds * WALL_FACTOR, cpu_seconds + 30.0)


@contextlib.contextmanager
def cpu_budget(seconds: float) -> Iterator[None]:
    """End this process with SIGXCPU once it has used `seconds` more CPU (whole seconds: the
    kernel counts RLIMIT_CPU in seconds, so the budget is `seconds` to one second more). For a
    render worker only: no handler is installed, so the kernel's default action kills it."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
    limit = math.ceil(usage.ru_utime + usage.ru_stime + seconds)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_CORE, (0, resource.getrlimit(resource.RLIMIT_CORE)[1]))  # no core file
    resource.setrlimit(resource.RLIMIT_CPU, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))


def render_png(svg: str, size: int, renderer: str = "cairosvg") -> bytes:
    """PNG bytes of `svg` at `size` x `size` on white, in this process (no guard: call it in a worker)."""
    if not svg.strip():
        # cairosvg reads the *current directory* when handed nothing: refuse before it sees it.
        raise ValueError("empty SVG")
    if renderer == "cairosvg":
        import cairosvg

        return cairosvg.svg2png(
            bytestring=svg.encode("utf-8"), output_width=size, output_height=size, background_color="white"
        )
    if renderer == "resvg":
        import resvg_py

        png = bytes(
            resvg_py.svg_to_bytes(svg_string=svg, width=size, height=size, background="white", skip_system_fonts=True)
        )
        return _letterbox(png, size)
    raise ValueError(f"unknown renderer {renderer!r}; choose from {RENDERERS}")


def _letterbox(png: bytes, size: int) -> bytes:
    """resvg keeps a non-square aspect by shrinking the canvas; centre it on white like cairosvg does."""
    import io

    from PIL import Image

    with Image.open(io.BytesIO(png)) as im:
        if im.size == (size, size):
            return png
        canvas = Image.new("RGB", (size, size), "white")
        canvas.paste(im.convert("RGB"), ((size - im.width) // 2, (size - im.height) // 2))
    out = io.BytesIO()
    canvas.save(out, format="PNG")
    return out.getvalue()


class _RenderJob:
    """Adapts `render_png` (and the checks) to the worker pool's `Scorer` protocol.

    The "completion" is the gated SVG and the task carries the render settings and the check
    specs; the PNG comes back in `info["png"]` and the check results in `info["checks"]`. A
    renderer exception is the SVG's fault, so it is INVALID, not ERROR.
    """

    def score(self, completion: str, task: Mapping[str, Any]) -> Score:
        try:
            with cpu_budget(float(task["cpu_seconds"])):
                return self._render(completion, task)
        except Exception as exc:  # our bug (a check that raised): this item's ERROR, never the batch's
            return Score.error(f"render job raised {type(exc).__name__}: {exc}")

    def _render(self, completion: str, task: Mapping[str, Any]) -> Score:
        try:
            png = render_png(completion, int(task["size"]), str(task["renderer"]))
        except MemoryError:
            return Score.invalid("render_out_of_memory: the render exceeded the memory cap")
        except RecursionError:
            return Score.invalid("render_failed: nested too deeply for the renderer")
        except Exception as exc:  # cairo/resvg errors on odd input: the SVG cannot be drawn
            return Score.invalid(f"render_failed: {type(exc).__name__}: {str(exc)[:200]}")
        if not png:
            return Score.invalid("render_failed: the renderer returned nothing")
        info: dict[str, Any] = {"png": png}
        if task.get("checks"):
            info.update(_run_checks(completion, png, task["checks"]))
        return Score(0.0, Verdict.CORRECT, info=info)


def _run_checks(svg: str, png: bytes, specs: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """{"checks": {name: (passed, value, detail)}} or {"task_error": why} for a misspelt check."""
    import defusedxml.ElementTree as SafeET

    from ..base import TaskError
    from .checks import run_checks
    from .drawing import Drawing, image_from_png

    drawing = Drawing(svg, SafeET.fromstring(svg, forbid_dtd=True), image_from_png(png))
    try:
        results = run_checks(drawing, specs)
    except TaskError as exc:
        return {"task_error": str(exc)}
    return {"checks": {name: (r.passed, r.value, r.detail) for name, r in results.items()}}


class RenderPool:
    """Killable render workers, started on first use and kept warm between batches."""

    def __init__(
        self,
        renderer: str = "cairosvg",
        size: int = 256,
        cpu_seconds: float = 3.0,
        memory_mb: int | None = 1024,
        workers: int = 1,
        wall: float | None = None,
    ) -> None:
        """`cpu_seconds`: each render's CPU budget; `wall`: its wall-clock backstop (None:
        `wall_seconds(cpu_seconds)`; a caller's own per-item deadline may make it shorter)."""
        if renderer not in RENDERERS:
            raise ValueError(f"unknown renderer {renderer!r}; choose from {RENDERERS}")
        self.settings = {"renderer": renderer, "size": size, "cpu_seconds": cpu_seconds}
        self.cpu_seconds = cpu_seconds
        self.wall = wall_seconds(cpu_seconds) if wall is None else wall
        self.memory_mb = memory_mb
        self.workers = workers
        self._pool: WorkerPool | None = None

    def render(
        self, svgs: Sequence[str], progress: Any = None, checks: Sequence[Sequence[Mapping[str, Any]]] | None = None
    ) -> list[Rendered | str]:
        """For each SVG its render (PNG bytes and the results of its `checks`), or a reason string
        (`render_timeout: …`, `render_failed: …`; `render_stalled: …` is the machine's, not the SVG's)."""
        if not svgs:
            return []
        if self._pool is None or self._pool.closed:
            self._pool = WorkerPool(_RenderJob(), self.workers, self.memory_mb)
        specs = list(checks) if checks is not None else [[] for _ in svgs]
        items = [(i, svg, {**self.settings, "checks": list(spec)}) for i, (svg, spec) in enumerate(zip(svgs, specs))]
        done = self._pool.run(items, self.wall, progress or (lambda n: None))
        return [_outcome(done[i], self.cpu_seconds) for i in range(len(svgs))]

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
            self._pool = None

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_pool": None}


@dataclass(frozen=True)
class Rendered:
    png: bytes
    checks: dict[str, tuple[bool, float, str]] = field(default_factory=dict)
    task_error: str | None = None  # a check the task names does not exist or takes other parameters


def _outcome(score: Score, cpu_seconds: float) -> Rendered | str:
    if score.verdict is Verdict.CORRECT:
        return Rendered(score.info["png"], dict(score.info.get("checks", {})), score.info.get("task_error"))
    if score.verdict is Verdict.ERROR:  # the pool killed or lost the worker
        if "SIGXCPU" in score.reason:
            return f"render_timeout: the render needed more than {cpu_seconds:g} s of CPU; worker killed"
        if "longer than" in score.reason:
            return f"{STALLED}: {score.reason} before it used its {cpu_seconds:g} s of CPU (load, not the drawing)"
        if "failed to start" in score.reason:
            raise RuntimeError(f"render workers cannot start: {score.reason}")
        return f"render_crashed: {score.reason}"
    return score.reason

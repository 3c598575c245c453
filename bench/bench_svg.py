"""SVG verifier throughput on this CPU, side by side in one run:
end to end (extract, gate, render, CLIP, checks) batched through `score_batch` against one `score`
call at a time; where the time goes in a batch; and cairosvg against resvg per render.

CLIP is open_clip's ViT-B-32 architecture with random weights: exactly the compute of the real
model (no weights can be downloaded here), so the speed figures hold for real weights.
"""

from __future__ import annotations

import statistics
import time

from bench.common import write_results
from verifiers.svg import SvgVerifier
from verifiers.svg.checks import run_checks
from verifiers.svg.drawing import Drawing, image_from_png
from verifiers.svg.extract import extract_svg
from verifiers.svg.gate import gate
from verifiers.svg.render import render_png
from verifiers.svg.tasks import builtin_tasks

BATCH = 64


def _workload() -> tuple[list[str], list[dict]]:
    """64 distinct completions: the 23 reference drawings, recoloured so no two are identical."""
    tasks = list(builtin_tasks())
    completions, chosen = [], []
    for k in range(BATCH):
        task = tasks[k % len(tasks)]
        shade = f"#{(k * 37) % 256:02x}{(k * 91) % 256:02x}{(k * 53) % 256:02x}"
        completions.append(
            f"Here is my drawing.\n```svg\n{task['reference'].replace('#222', shade, 1)}\n```\n<!-- {k} -->"
        )
        chosen.append(task)
    return completions, chosen


def _median_ms(fn, svgs: list[str], repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        for svg in svgs:
            start = time.perf_counter()
            fn(svg)
            times.append(1000 * (time.perf_counter() - start))
    return statistics.median(times)


def main() -> dict:
    completions, tasks = _workload()
    verifier = SvgVerifier(clip_model="ViT-B-32-quickgelu", clip_weights="random", render_workers=2)
    try:
        verifier.score_batch(completions, tasks)  # load CLIP, start workers, cache the captions' embeddings
        batch_times, single_times = [], []
        for _ in range(2):  # alternate, so neither side always runs on a warmer machine
            start = time.perf_counter()
            batched = verifier.score_batch(completions, tasks)
            batch_times.append(time.perf_counter() - start)
            start = time.perf_counter()
            single = [verifier.score(c, t) for c, t in zip(completions, tasks)]
            single_times.append(time.perf_counter() - start)
        batch_rate, single_rate = BATCH / min(batch_times), BATCH / min(single_times)
        assert not any(s.is_error for s in batched + single), [s.reason for s in batched if s.is_error][:1]
        assert [s.info.get("png_sha256") for s in batched] == [s.info.get("png_sha256") for s in single]

        # Where a batch's time goes: each stage timed alone on the same items.
        t0 = time.perf_counter()
        gated = [gate(extract_svg(c)[0]) for c in completions]
        t1 = time.perf_counter()
        pngs = [r.png for r in verifier._render_pool(None, None).render([g.svg for g in gated])]
        t2 = time.perf_counter()
        images = [image_from_png(p) for p in pngs]
        t3 = time.perf_counter()
        scorer = verifier.clip()
        scorer.encode_images(images)
        t4 = time.perf_counter()
        for g, im, task in zip(gated, images, tasks):
            if task["checks"]:
                run_checks(Drawing(g.svg, g.root, im), task["checks"])
        t5 = time.perf_counter()
    finally:
        verifier.close()
    stages = {
        "extract + gate": t1 - t0,
        "render (2 killable workers)": t2 - t1,
        "decode PNG": t3 - t2,
        "CLIP image encoding (ViT-B-32)": t4 - t3,
        "programmatic checks": t5 - t4,
    }
    total = sum(stages.values())

    svgs = [t["reference"] for t in builtin_tasks()]
    cairo_ms = _median_ms(lambda s: render_png(s, 256, "cairosvg"), svgs)
    resvg_ms = _median_ms(lambda s: render_png(s, 256, "resvg"), svgs)

    figures = {
        "batch": BATCH,
        "batched_svgs_per_s": batch_rate,
        "single_svgs_per_s": single_rate,
        "batch_speedup": batch_rate / single_rate,
        "stage_seconds": stages,
        "render_share": stages["render (2 killable workers)"] / total,
        "cairosvg_ms_median": cairo_ms,
        "resvg_ms_median": resvg_ms,
        "resvg_speedup": cairo_ms / resvg_ms,
    }
    table = [
        ("measure", "value", "ratio"),
        (
            f"end to end, score_batch of {BATCH}",
            f"{batch_rate:.1f} SVGs/s",
            f"{figures['batch_speedup']:.1f}x one at a time",
        ),
        ("end to end, one score() at a time", f"{single_rate:.1f} SVGs/s", "1.0x"),
    ]
    table += [
        (f"batch stage: {name}", f"{1000 * sec / BATCH:.1f} ms/SVG", f"{sec / total:.0%} of the stages")
        for name, sec in stages.items()
    ]
    table += [
        ("render, cairosvg (median of the 23 references, in process)", f"{cairo_ms:.1f} ms", "1.0x"),
        ("render, resvg (same)", f"{resvg_ms:.1f} ms", f"{figures['resvg_speedup']:.2f}x cairosvg's speed"),
    ]
    write_results(
        "svg",
        figures,
        table,
        notes=(
            f"{BATCH} distinct SVGs (the 23 seed-prompt references, recoloured), 256x256 renders, CLIP = open_clip "
            "ViT-B-32 architecture with random weights (the real model's compute), fp32 on 2 shared CPU cores."
        ),
    )
    return figures


if __name__ == "__main__":
    main()

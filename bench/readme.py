"""The benchmark page's figures (docs/benchmarks.md), generated from `bench/results/*.md` (the one
source): the block between the two markers below is rewritten by `python -m bench.run` (and
`python -m bench.readme`), and a test fails when it drifts from the results, so figures are never
copied by hand."""

from __future__ import annotations

import re
from pathlib import Path

from bench.common import RESULTS

README = Path(__file__).resolve().parents[1] / "docs" / "benchmarks.md"
START = "<!-- bench results: generated from bench/results/*.md by `python -m bench.run`; do not edit -->"
END = "<!-- end of bench results -->"


def results_pages(results: Path = RESULTS) -> list[Path]:
    """Every results page (a benchmark may write several, as bench_grpo does on a GPU)."""
    return [path for path in sorted(results.glob("*.md")) if path.name != "SUMMARY.md"]


def block(results: Path = RESULTS) -> str:
    """Each benchmark's Markdown, headings moved down a level to sit under the page's title."""
    parts = []
    for path in results_pages(results):
        text = re.sub(r"^(#+) ", lambda m: "#" * (len(m.group(1)) + 1) + " ", path.read_text().strip(), flags=re.M)
        parts.append(text)
    return "\n\n".join([START, *parts, END])


def current(readme: str) -> str | None:
    """The block now on the page, or None when the markers are missing."""
    start, end = readme.find(START), readme.find(END)
    return readme[start : end + len(END)] if 0 <= start < end else None


def update(readme_path: Path = README) -> bool:
    """Rewrite bench/results/SUMMARY.md and the page's block from the results; True when the page changed."""
    summary = "\n".join(path.read_text() for path in results_pages())
    (RESULTS / "SUMMARY.md").write_text("# Benchmark results\n\n" + summary)
    text = readme_path.read_text()
    old = current(text)
    if old is None:
        raise SystemExit(f"{readme_path} has no benchmark block (markers {START!r} ... {END!r})")
    new = block()
    if new != old:
        readme_path.write_text(text.replace(old, new))
    return new != old


if __name__ == "__main__":
    print("docs/benchmarks.md figures", "updated" if update() else "already current")

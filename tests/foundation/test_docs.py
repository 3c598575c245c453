"""Documentation that must not drift: the benchmark page's figures are the results files'."""

from __future__ import annotations

from bench import readme


def test_benchmark_page_matches_the_results_files():
    in_readme = readme.current(readme.README.read_text())
    assert in_readme is not None, "docs/benchmarks.md lost its benchmark markers"
    assert in_readme == readme.block(), (
        "docs/benchmarks.md figures differ from bench/results: run `python -m bench.readme`"
    )


def test_block_moves_headings_under_the_page_title(tmp_path):
    (tmp_path / "x.md").write_text("# x\n\n| a |\n|---|\n| 1 |\n")
    (tmp_path / "SUMMARY.md").write_text("# ignored\n")
    text = readme.block(tmp_path)
    assert (
        "## x" in text
        and "### x" not in text
        and "ignored" not in text
        and text.startswith(readme.START)
        and text.endswith(readme.END)
    )


def test_the_authors_guide_names_every_hook_of_verifier():
    """docs/adding-a-verifier.md lists each public name a verifier author meets on `Verifier`."""
    from pathlib import Path

    from verifiers import Verifier

    guide = (Path(__file__).resolve().parents[2] / "docs" / "adding-a-verifier.md").read_text()
    public = {n for n in dir(Verifier) if not n.startswith("_")} | {"__enter__", "__exit__"}
    missing = sorted(n for n in public if f"`{n}" not in guide)
    assert missing == []

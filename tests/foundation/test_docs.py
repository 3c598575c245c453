"""Documentation that must not drift: the README's benchmark figures are the results files'."""

from __future__ import annotations

from bench import readme


def test_readme_benchmark_block_matches_the_results_files():
    in_readme = readme.current(readme.README.read_text())
    assert in_readme is not None, "README lost its benchmark markers"
    assert in_readme == readme.block(), (
        "README benchmark figures differ from bench/results: run `python -m bench.readme`"
    )


def test_block_moves_headings_under_the_readme_section(tmp_path):
    (tmp_path / "x.md").write_text("# x\n\n| a |\n|---|\n| 1 |\n")
    (tmp_path / "SUMMARY.md").write_text("# ignored\n")
    text = readme.block(tmp_path)
    assert "### x" in text and "ignored" not in text and text.startswith(readme.START) and text.endswith(readme.END)

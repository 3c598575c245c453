"""The summary table keeps every figure whole in a terminal or log of 80 columns (and uses the room of
a wide one): short labels, intervals on their own rows, groups split over tables when they do not fit."""

import io

import pytest
from rich.console import Console

from evalkit.summary import report_table, suite_table


def _group(k: int) -> dict:
    return {
        "tasks": 30 + k,
        "samples": 60 + 2 * k,
        "accuracy": 0.1234 + k / 100,
        "accuracy_low": 0.0512,
        "accuracy_high": 0.3467,
        "mean_reward": 0.3541 + k / 100,
        "reward_low": 0.3234,
        "reward_high": 0.3856,
        "pass_at": {"1": 0.1234, "8": 0.5678},
        "maj_at": {"1": 0.1111, "8": None},
        "incompletion": 0.0156,
        "error_rate": 0.0,
        "length_mean": 123.4,
        "length_p90": 456.0,
    }


def _render(buckets: int, width: int) -> str:
    summary = {"overall": _group(0), "by_difficulty": {f"level-{k}": _group(k) for k in range(1, buckets + 1)}}
    console = Console(width=width, file=io.StringIO(), record=True)
    console.print(
        report_table(summary, title="game24 · smollm2-135m-instruct · transformers · 64 samples", width=width)
    )
    return console.export_text()


@pytest.mark.parametrize("width", [80, 200])
@pytest.mark.parametrize("buckets", [4, 9])
def test_every_figure_is_whole_at_the_width(width, buckets):
    text = _render(buckets, width)
    assert "…" not in text and max(len(line) for line in text.splitlines()) <= width
    for figure in ("0.354", "0.32–0.39", "0.05–0.35", "0.568", "123/456", "30/60", "level-1", f"level-{buckets}"):
        assert figure in text, figure
    assert text.count("┃ metric") == {(80, 4): 1, (80, 9): 2, (200, 4): 1, (200, 9): 1}[width, buckets]


@pytest.mark.parametrize("width", [80, 200])
def test_a_suite_table_keeps_every_verifier_and_bucket_whole(width):
    """A suite: each verifier's `all` column then its buckets, headed by the key over the bucket."""
    summaries = {
        "game24": {"overall": _group(0), "by_difficulty": {f"c{k}": _group(k) for k in range(2, 5)}},
        "countdown-long-key": {"overall": _group(5), "by_difficulty": {"24-game": _group(6)}},
    }
    console = Console(width=width, file=io.StringIO(), record=True)
    console.print(suite_table(summaries, title="game24, countdown-long-key · 40 samples", width=width))
    text = console.export_text()
    assert "…" not in text and max(len(line) for line in text.splitlines()) <= width
    for figure in ("game24", "countdown-long-key", "c2", "c4", "24-game", "0.404", "0.32–0.39"):
        assert figure in text, figure

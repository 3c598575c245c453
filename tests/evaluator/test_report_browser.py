"""The HTML report in a real headless browser (Chromium from Debian): it renders, and its sample
filters work, driven through the URL hash as a user's link would."""

import re
import shutil
import subprocess

import pytest
from fake_openai import FakeOpenAI

import verifiers
from evalkit.generation import Sampling, make_backend
from evalkit.pipeline import evaluate
from evalkit.report import build
from pytest_plugin.required_parts import require_part

TASKS = [
    {"id": "right", "numbers": [1, 2, 3, 18], "difficulty": "easy"},  # 1+2+3+18: correct
    {"id": "wrong", "numbers": [4, 4, 6, 8], "difficulty": "hard"},  # 4+4+6+8 = 22: incorrect
    {"id": "junk", "numbers": [6, 6, 6, 6], "difficulty": "medium", "prompt": "Now solve: six sixes"},
]  # invalid


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    run = tmp_path_factory.mktemp("run")
    with FakeOpenAI() as server:
        evaluate(verifiers.get("game24"), TASKS, make_backend("openai", base_url=server.url), Sampling(n=2), run)
    build(run)
    return run / "report.html"


def chromium(*args):
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    require_part(binary is not None, "Chromium", "bash scripts/setup-env.sh (apt-get install chromium)")
    return subprocess.run(
        [binary, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_report_renders(report, tmp_path):
    from PIL import Image

    shot = tmp_path / "report.png"
    r = chromium(f"--screenshot={shot}", "--window-size=1280,1800", report.as_uri())
    assert shot.exists(), r.stderr[-2000:]
    image = Image.open(shot).convert("L")
    low, high = image.getextrema()
    assert image.size == (1280, 1800) and high - low > 100  # not a blank page
    text = report.read_text()
    for part in ("Verdicts per bucket", "Settings and versions", "curves.png", "filter-verdict"):
        assert part in text, part


@pytest.mark.parametrize(
    "hash_, verdicts",
    [
        ("verdict=invalid", {"invalid"}),
        ("bucket=hard", {"incorrect"}),
        ("task=righ", {"correct"}),
        ("", {"correct", "incorrect", "invalid"}),
    ],
)
def test_filters_select_the_samples_in_a_real_browser(report, hash_, verdicts):
    dom = chromium("--virtual-time-budget=3000", "--dump-dom", report.as_uri() + ("#" + hash_ if hash_ else "")).stdout
    rows = re.findall(r"<tr class=\"(\w+)\" data-verdict=\"(\w+)\"[^>]*?( hidden=\"\")?>", dom)
    assert len(rows) == 6, dom[:500]
    shown = {verdict for _cls, verdict, hidden in rows if not hidden}
    assert shown == verdicts
    count = re.search(r"<span id=\"shown\">(\d+)</span>", dom)
    assert count and int(count.group(1)) == sum(1 for *_x, hidden in rows if not hidden)


def test_compare_renders_two_runs_side_by_side(report, tmp_path):
    import sys

    from PIL import Image

    run = report.parent
    page = tmp_path / "compare.html"
    r = subprocess.run(
        [sys.executable, "-m", "evalkit", "compare", str(run), str(run), "--html", str(page)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    shot = tmp_path / "compare.png"
    chromium(f"--screenshot={shot}", "--window-size=1200,900", page.as_uri())
    low, high = Image.open(shot).convert("L").getextrema()
    assert high - low > 100

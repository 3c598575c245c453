"""`evalkit score` and `evalkit verifiers`, run as a user runs them (a real subprocess)."""
import json
import subprocess
import sys

import pytest


def evalkit(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "evalkit", *args], capture_output=True, text=True, timeout=120, cwd=cwd)


@pytest.fixture
def input_file(tmp_path):
    lines = [
        {"completion": "Answer: (6 - 4) * (4 + 8) = 24", "numbers": [4, 4, 6, 8]},
        "this is not json",
        {"completion": "Answer: 6 * 4 * 1 * 1", "numbers": [4, 4, 6, 8]},
        {"no_completion": True},
        {"completion": "", "task": {"numbers": [1, 2, 3, 4]}},
    ]
    path = tmp_path / "in.jsonl"
    path.write_text("\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n")
    return path


def test_score_writes_scores_reports_bad_lines_and_resumes(input_file, tmp_path):
    out = tmp_path / "out.jsonl"
    first = evalkit("score", "--verifier", "game24", str(input_file), "-o", str(out))
    assert first.returncode == 1, first.stderr  # bad lines -> exit 1, but the file is done
    assert "line 2: skipped" in first.stderr and "line 4: skipped" in first.stderr
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert [r["line"] for r in rows] == [1, 3, 5]
    assert [r["score"]["verdict"] for r in rows] == ["correct", "incorrect", "invalid"]

    # Simulate a run killed mid-write: a torn last line. The rerun drops it and redoes only that line.
    text = out.read_text().splitlines(keepends=True)
    out.write_text("".join(text[:2]) + text[2][:20])
    again = evalkit("score", "--verifier", "game24", str(input_file), "-o", str(out))
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert [r["line"] for r in rows] == [1, 3, 5]
    assert "1 scored now, 2 resumed" in " ".join(again.stdout.split())


def test_unknown_verifier_and_missing_file_are_one_line_errors(input_file, tmp_path):
    r = evalkit("score", "--verifier", "nope", str(input_file), "-o", str(tmp_path / "o.jsonl"))
    assert r.returncode == 2 and r.stderr.strip().count("\n") == 0 and "unknown verifier 'nope'" in r.stderr
    r = evalkit("score", "--verifier", "game24", str(tmp_path / "missing.jsonl"), "-o", str(tmp_path / "o.jsonl"))
    assert r.returncode == 2 and "does not exist" in r.stderr
    r = evalkit("score", "--verifier", "game24", "--config", "{bad", str(input_file), "-o", str(tmp_path / "o.jsonl"))
    assert r.returncode == 2 and "not valid JSON" in r.stderr


def test_verifiers_lists_default_config():
    r = evalkit("verifiers", "--json")
    assert r.returncode == 0
    assert json.loads(r.stdout)["game24"]["weights"] == [0.55, 0.3, 0.15]

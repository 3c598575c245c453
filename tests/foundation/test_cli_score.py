"""`evalkit score` and `evalkit verifiers`, run as a user runs them (a real subprocess)."""

import json
import subprocess
import sys

import pytest


def evalkit(*args, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "evalkit", *args], capture_output=True, text=True, timeout=120, cwd=cwd
    )


@pytest.fixture
def input_file(tmp_path):
    lines = [
        {"completion": "Answer: (6 - 4) * (4 + 8) = 24", "numbers": [4, 4, 6, 8]},
        "this is not json",
        {"completion": "Answer: 4 + 4 + 6 + 8", "numbers": [4, 4, 6, 8]},
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
    assert "3 rows (1 scored now, 2 resumed" in " ".join(again.stdout.split())
    assert "correct" in again.stdout and "invalid" in again.stdout  # the summary covers resumed rows


def test_resume_is_keyed_by_the_verifier_and_its_config(input_file, tmp_path):
    out = tmp_path / "out.jsonl"
    evalkit("score", "--verifier", "game24", str(input_file), "-o", str(out))
    before = out.read_text()
    other = evalkit(
        "score", "--verifier", "game24", "--config", '{"wrong_answer_credit": 0.0}', str(input_file), "-o", str(out)
    )
    assert other.returncode == 2 and other.stderr.strip().count("\n") == 0, other.stderr
    assert "wrong_answer_credit: 0.35 there, 0.0 now" in other.stderr and "--overwrite" in other.stderr
    assert out.read_text() == before  # refused before any work
    assert evalkit("score", "--verifier", "gomoku", str(input_file), "-o", str(out)).returncode == 2
    fresh = evalkit(
        "score",
        "--verifier",
        "game24",
        "--config",
        '{"wrong_answer_credit": 0.0}',
        str(input_file),
        "-o",
        str(out),
        "--overwrite",
    )
    assert fresh.returncode == 1  # the bad lines again
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert rows[1]["score"]["reward"] < json.loads(before.splitlines()[1])["score"]["reward"]


def test_error_rows_are_retried_and_bad_tasks_are_skipped_with_their_line(tmp_path):
    path = tmp_path / "in.jsonl"
    path.write_text(
        "\n".join(
            json.dumps(x)
            for x in [
                {"completion": "Answer: (6 - 4) * (4 + 8)", "numbers": [4, 4, 6, 8]},
                {"completion": "Answer: 1", "numbers": [4, 4, 6, 8], "target": "x"},
                {"completion": "Answer: 1", "numbers": "abc"},
            ]
        )
        + "\n"
    )
    out = tmp_path / "out.jsonl"
    r = evalkit("score", "--verifier", "game24", str(path), "-o", str(out))
    assert r.returncode == 1
    assert "line 2: skipped: bad task: 'target' must be an integer, got 'x'" in r.stderr
    assert "line 3: skipped: bad task: 'numbers' must be a list of integers, got 'abc'" in r.stderr
    assert [json.loads(x)["line"] for x in out.read_text().splitlines()] == [1]
    # a row that scored ERROR (the verifier failed) is scored again on a rerun, not kept
    row = json.loads(out.read_text())
    row["score"] = {**row["score"], "verdict": "error", "reward": 0.0, "reason": "CLIP unavailable"}
    out.write_text(json.dumps(row) + "\n")
    again = evalkit("score", "--verifier", "game24", str(path), "-o", str(out))
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert [r["score"]["verdict"] for r in rows] == ["correct"] and "1 retried after ERROR" in " ".join(
        again.stdout.split()
    )


ALWAYS_FAILS = """
import sys
import verifiers
from verifiers import Score, Verifier
from evalkit.cli import main

@verifiers.register("always_fails")
class AlwaysFails(Verifier):
    def evaluate(self, completion, task):
        return Score.error("CLIP weights not found")

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
"""


def test_unwritable_output_and_all_error_runs_fail_in_one_line(input_file, tmp_path):
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    r = evalkit("score", "--verifier", "game24", str(input_file), "-o", str(blocker / "out.jsonl"))
    assert r.returncode == 2 and r.stderr.strip().count("\n") == 0 and "cannot write" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr
    # every row ERROR: said plainly, non-zero exit
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps({"completion": "x", "numbers": [1]}) + "\n")
    script = tmp_path / "cli.py"
    script.write_text(ALWAYS_FAILS)
    r = subprocess.run(
        [
            sys.executable,
            str(script),
            "score",
            "--verifier",
            "always_fails",
            str(path),
            "-o",
            str(tmp_path / "o.jsonl"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 1 and "every row scored ERROR (first: CLIP weights not found)" in r.stderr, r.stderr


@pytest.mark.parametrize(
    "change, words",
    [
        ({"-o": "{tmp}"}, "is a directory"),
        ({"input": "{tmp}"}, "is a directory"),
        ({"--workers": "-3"}, "--workers must be at least 0"),
        ({"--timeout": "nan"}, "--timeout must be a positive"),
        ({"--timeout": "-1"}, "--timeout must be a positive"),
        ({"--cache": "{tmp}"}, "cannot open the cache"),
    ],
    ids=[
        "output a directory",
        "input a directory",
        "negative workers",
        "NaN timeout",
        "negative timeout",
        "cache a directory",
    ],
)
def test_arguments_that_cannot_work_are_refused_in_one_line_before_scoring(input_file, tmp_path, change, words):
    """Each once got a traceback (`-o /`, a cache path that cannot be opened, midway through the run)
    or was taken as given (a NaN timeout, -3 workers)."""
    options = {"input": str(input_file), "-o": str(tmp_path / "out.jsonl"), "--verifier": "game24"}
    options.update({k: v.format(tmp=tmp_path) for k, v in change.items()})
    flags = [x for k, v in options.items() if k != "input" for x in (k, v)]
    r = evalkit("score", *flags, options["input"])
    assert r.returncode == 2 and r.stderr.strip().count("\n") == 0 and words in r.stderr, r.stderr
    assert not (tmp_path / "out.jsonl").exists()


SLOW_ROW = {
    "completion": "```python\nimport time\ntime.sleep(0.25)\ndef f(x):\n    return x + 1\n```",
    "test_cases": ["assert f(1) == 2"],
    "entry_point": "f",
}


@pytest.mark.parametrize("signal_name", ["SIGINT", "SIGTERM"])
def test_an_interrupted_score_keeps_what_it_finished_and_a_rerun_completes_it(tmp_path, signal_name):
    """Rows reach the disk every couple of seconds (not every 512): interrupted mid-run, the output
    holds whole rows only, the rerun scores only the rest, and no row appears twice."""
    import signal
    import time

    rows = 40
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps({**SLOW_ROW, "id": i}) + "\n" for i in range(rows)))
    out = tmp_path / "out.jsonl"
    args = [
        "score",
        "--verifier",
        "code",
        "--config",
        '{"backend": "local"}',
        "--workers",
        "1",
        str(source),
        "-o",
        str(out),
    ]

    def as_a_shell_starts_it() -> None:
        """SIGINT handled by default and not blocked, as for a command typed in a terminal: an
        earlier test may leave it ignored or blocked in this process, and both survive exec (the
        run then went on to its end; tests/evaluator/test_cli_eval.py does the same)."""
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})

    proc = subprocess.Popen(
        [sys.executable, "-m", "evalkit", *args], stderr=subprocess.PIPE, text=True, preexec_fn=as_a_shell_starts_it
    )
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and (not out.exists() or out.read_text().count("\n") < 3):
        time.sleep(0.2)
    proc.send_signal(getattr(signal, signal_name))
    proc.wait(60)
    kept = [json.loads(x) for x in out.read_text().splitlines() if x.endswith("}")]
    assert 3 <= len(kept) < rows, len(kept)
    again = evalkit(*args)
    lines = [json.loads(x)["line"] for x in out.read_text().splitlines()]
    assert sorted(lines) == list(range(1, rows + 1)), again.stderr
    assert all(json.loads(x)["score"]["verdict"] == "correct" for x in out.read_text().splitlines())


def test_a_second_writer_of_the_same_output_is_refused(input_file, tmp_path):
    import fcntl

    out = tmp_path / "out.jsonl"
    with (tmp_path / "out.jsonl.lock").open("a") as held:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)
        second = evalkit("score", "--verifier", "game24", str(input_file), "-o", str(out))
    assert second.returncode == 2 and "another process is writing" in second.stderr, second.stderr
    assert not out.exists() or out.read_text() == ""

"""`evalkit eval` as a user runs it (a real subprocess) against a loopback OpenAI-compatible
server: checks before any work, keyed resume, the user's own tasks, prompt templates, the
results file, and an interrupt that keeps every finished sample."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from fake_openai import FakeOpenAI


def evalkit(*args, cwd=None, timeout=180):
    return subprocess.run(
        [sys.executable, "-m", "evalkit", "eval", *args], capture_output=True, text=True, timeout=timeout, cwd=cwd
    )


def from_fake_server(server, run, *args):
    """`evalkit eval` against the fake OpenAI server, writing to `run`."""
    return evalkit("--backend", "openai", "--base-url", server.url, *args, "--run-dir", str(run))


def samples_of(run):
    return [json.loads(x) for x in (run / "samples.jsonl").read_text().splitlines()]


def one_line_error(r, code=2):
    assert r.returncode == code, (r.returncode, r.stderr[-2000:])
    assert r.stderr.strip().count("\n") == 0 and "Traceback" not in r.stderr, r.stderr
    return r.stderr


@pytest.fixture
def server():
    with FakeOpenAI() as s:
        yield s


def test_cheap_mistakes_fail_in_one_line_before_anything_is_written(tmp_path):
    run = tmp_path / "run"
    assert "--limit must be at least 1" in one_line_error(evalkit("--limit", "0", "--run-dir", str(run)))
    err = one_line_error(evalkit("--backend", "openai", "--base-url", "http://127.0.0.1:9/v1", "--run-dir", str(run)))
    assert "no OpenAI-compatible server answers at http://127.0.0.1:9/v1" in err
    assert not run.exists()  # nothing half-written
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    assert "cannot write the run folder" in one_line_error(evalkit("--run-dir", str(blocker / "run")))
    assert "does not exist" in one_line_error(evalkit("--tasks", str(tmp_path / "none.jsonl"), "--run-dir", str(run)))
    assert "not valid JSON" in one_line_error(evalkit("--gen-kwargs", "{x", "--run-dir", str(run)))
    assert "needs --backend transformers" in one_line_error(
        evalkit("--backend", "openai", "--response-prefix", "Answer:", "--run-dir", str(run))
    )


def test_own_tasks_prompt_template_results_and_keyed_resume(server, tmp_path):
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(
        "\n".join(
            [
                json.dumps({"id": "a", "numbers": [1, 2, 3, 18], "difficulty": "easy"}),
                json.dumps({"numbers": [4, 4, 6, 8], "target": "x"}),
                "not json",
                json.dumps({"id": "b", "numbers": [6, 6, 6, 6], "prompt": "Add them up. Now solve: 6 6 6 6"}),
            ]
        )
        + "\n"
    )
    shots = tmp_path / "shots.jsonl"
    shots.write_text(json.dumps({"numbers": [1, 1, 1, 21], "completion": "Answer: 1 + 1 + 1 + 21"}) + "\n")
    run = tmp_path / "run"
    common = ["--backend", "openai", "--base-url", server.url, "--tasks", str(tasks), "-n", "2", "--run-dir", str(run)]
    r = evalkit(
        *common, "--system-prompt", "Be brief.", "--few-shot", str(shots), "--gen-kwargs", '{"stop": ["\\n\\n"]}'
    )
    assert r.returncode == 1, r.stderr  # two bad lines, reported and skipped; the good tasks ran
    assert "line 2: bad task: 'target' must be an integer, got 'x'" in r.stderr and "line 3: not JSON" in r.stderr
    first = server.requests[0]
    roles = [m["role"] for m in first["messages"]]
    assert roles == ["system", "user", "assistant", "user"] and first["messages"][0]["content"] == "Be brief."
    assert first["stop"] == ["\n\n"]
    assert any(q["messages"][-1]["content"] == "Add them up. Now solve: 6 6 6 6" for q in server.requests)
    samples = samples_of(run)
    assert sorted({s["task_id"] for s in samples}) == ["a", "b"] and len(samples) == 4
    results = json.loads((run / "results.json").read_text())
    assert results["versions"]["evalkit-rl"] and "git_commit" in results and results["date"]
    assert results["sampling"]["n"] == 2 and results["backend"] == "openai" and results["timings"]["tokens_per_s"] > 0
    assert 0 <= results["metrics"]["accuracy_stderr"] <= 1 and results["prompt_template"]["system"] == "Be brief."

    # another config on the same run folder: refused before any request, saying what differs
    sent = len(server.requests)
    err = one_line_error(
        evalkit(
            *common,
            "--config",
            '{"wrong_answer_credit": 0.0}',
            "--system-prompt",
            "Be brief.",
            "--few-shot",
            str(shots),
            "--gen-kwargs",
            '{"stop": ["\\n\\n"]}',
        )
    )
    assert "wrong_answer_credit: 0.35 there, 0.0 now" in err and "--overwrite" in err and len(server.requests) == sent
    err = one_line_error(evalkit(*common))  # no system prompt now: the prompt template differs
    assert "prompt_template." in err
    # a sample that scored ERROR is scored again on a rerun; nothing is generated again
    lines = (run / "samples.jsonl").read_text().splitlines()
    broken = json.loads(lines[0])
    broken["score"] = {**broken["score"], "verdict": "error", "reward": 0.0, "reason": "CLIP unavailable"}
    (run / "samples.jsonl").write_text("\n".join([json.dumps(broken), *lines[1:]]) + "\n")
    again = evalkit(
        *common, "--system-prompt", "Be brief.", "--few-shot", str(shots), "--gen-kwargs", '{"stop": ["\\n\\n"]}'
    )
    assert again.returncode == 1 and len(server.requests) == sent
    rescored = samples_of(run)
    assert not [s for s in rescored if s["score"]["verdict"] == "error"] and len(rescored) == 4
    fresh = evalkit(*common, "--overwrite")
    assert fresh.returncode == 1 and len(server.requests) == sent + 4


def test_limit_takes_a_seeded_stratified_subset(server, tmp_path):
    r = from_fake_server(server, tmp_path / "run", "--limit", "12", "-n", "1", "--max-tokens", "16")
    assert r.returncode == 0, r.stderr
    samples = samples_of(tmp_path / "run")
    assert len({s["difficulty"] for s in samples}) >= 3  # not twelve "1 1 x x" puzzles
    assert not all(s["task_id"].startswith("game24-1-1-") for s in samples)


def as_a_shell_starts_it() -> None:
    """Ctrl-C reaches the command as it reaches one typed in a terminal: SIGINT handled by default and
    not blocked, whatever an earlier test left in this process (both are inherited across exec)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def test_interrupt_keeps_every_finished_sample_and_rerun_resumes(tmp_path):
    with FakeOpenAI(slow_after=6) as server:
        args = [
            sys.executable,
            "-m",
            "evalkit",
            "eval",
            "--backend",
            "openai",
            "--base-url",
            server.url,
            "--limit",
            "8",
            "-n",
            "2",
            "--batch-prompts",
            "1",
            "--run-dir",
            str(tmp_path / "run"),
        ]
        proc = subprocess.Popen(
            args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=as_a_shell_starts_it
        )
        deadline = time.time() + 60
        while len(server.requests) < 8 and time.time() < deadline:
            time.sleep(0.2)
        time.sleep(1.0)
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=60)
        assert proc.returncode == 130 and "interrupted" in err and "Traceback" not in err, err[-2000:]
        kept = samples_of(tmp_path / "run")
        assert len(kept) == 6  # the three prompts answered before the interrupt
        server.slow_after = None
        again = subprocess.run(args, capture_output=True, text=True, timeout=120)
        assert again.returncode == 0, again.stderr
        assert len((tmp_path / "run" / "samples.jsonl").read_text().splitlines()) == 16


def test_compare_names_each_run_in_full(server, tmp_path):
    runs = []
    for temperature in ("0.7", "1.0"):
        run = tmp_path / f"runs/game24-smollm2-135m-instruct-openai-temperature-{temperature}"
        r = from_fake_server(server, run, "--limit", "2", "-n", "2", "--temperature", temperature)
        assert r.returncode == 0, r.stderr
        runs.append(run)
    r = subprocess.run(
        [sys.executable, "-m", "evalkit", "compare", *map(str, runs)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "80"},
    )
    assert r.returncode == 0, r.stderr
    joined = "".join(r.stdout.split())  # rich folds long paths at 80 columns
    assert f"A={runs[0]}" in joined and f"B={runs[1]}" in joined
    assert "B - A [95%]" in r.stdout and "accuracy" in r.stdout
    page = tmp_path / "compare.html"
    r = subprocess.run(
        [sys.executable, "-m", "evalkit", "compare", *map(str, runs), "--html", str(page)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0 and "Verdicts per bucket" in page.read_text() and str(runs[1]) in page.read_text()
    missing = subprocess.run(
        [sys.executable, "-m", "evalkit", "compare", str(runs[0]), str(tmp_path / "nope")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert missing.returncode == 2 and "has no samples.jsonl" in missing.stderr


def test_a_named_countdown_task_set_is_evaluated(server, tmp_path):
    r = from_fake_server(server, tmp_path / "run", "--config", '{"task_set": "countdown-4"}', "--limit", "6", "-n", "1")
    assert r.returncode == 0, r.stderr
    samples = samples_of(tmp_path / "run")
    assert (
        all(s["task_id"].startswith("countdown-4-") for s in samples) and len({s["difficulty"] for s in samples}) >= 2
    )


def test_the_default_run_folder_is_named_by_what_changes_results():
    """Two runs with other settings never share a default folder (the second was refused); the
    same settings name the same folder, so a rerun resumes."""
    import verifiers
    from evalkit.commands.eval import default_run_name
    from evalkit.generation.base import Sampling
    from evalkit.pipeline import PromptTemplate

    game24, countdown = verifiers.get("game24"), verifiers.get("game24", task_set="countdown-2")
    base = "game24-m-openai"
    assert default_run_name(base, Sampling(), PromptTemplate(), [game24]) == base
    names = {
        default_run_name(base, Sampling(), PromptTemplate(), [game24]),
        default_run_name(base, Sampling(temperature=1.0), PromptTemplate(), [game24]),
        default_run_name(base, Sampling(n=8), PromptTemplate(), [game24]),
        default_run_name(base, Sampling(extra={"repetition_penalty": 1.1}), PromptTemplate(), [game24]),
        default_run_name(base, Sampling(), PromptTemplate(system="Be brief."), [game24]),
        default_run_name(base, Sampling(), PromptTemplate(), [countdown]),
    }
    assert len(names) == 6
    assert default_run_name(base, Sampling(temperature=1.0, n=8), PromptTemplate(), [game24]) == f"{base}-n8-t1"

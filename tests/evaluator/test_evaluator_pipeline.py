"""The pipeline end to end with the OpenAI-compatible client against a loopback server, resume,
refusal to mix runs, and the reports."""

import json

import pytest
from fake_openai import FakeOpenAI

import verifiers
from evalkit.generation import Sampling, make_backend
from evalkit.generation.openai_http import GenerationFailed
from evalkit.pipeline import RunMismatch, evaluate, load_samples
from evalkit.report import build

TASKS = [
    {"id": "t1", "numbers": [1, 2, 3, 18], "difficulty": "easy"},  # 1+2+3+18 = 24
    {"id": "t2", "numbers": [4, 4, 6, 8], "difficulty": "hard"},  # 4+4+6+8 = 22
    {"id": "t3", "numbers": [6, 6, 6, 6], "difficulty": "easy"},
]  # 24


def test_openai_backend_end_to_end_with_retries(tmp_path):
    v = verifiers.get("game24")
    with FakeOpenAI(fail_first=2) as server:
        backend = make_backend("openai", "fake-model", base_url=server.url, concurrency=4)
        evaluate(v, TASKS, backend, Sampling(n=3, max_tokens=32), tmp_path)
        assert len(server.requests) == 2 + 9  # two 503s retried, then one request per sample
        assert server.requests[-1]["model"] == "fake-model" and server.requests[-1]["n"] == 1
    records = load_samples(tmp_path)
    assert sorted((r["task_id"], r["sample"]) for r in records) == [
        (t, k) for t in ("t1", "t2", "t3") for k in range(3)
    ]
    verdicts = {r["task_id"]: r["score"]["verdict"] for r in records}
    assert verdicts == {"t1": "correct", "t2": "incorrect", "t3": "correct"}
    summary = build(tmp_path)
    assert summary["overall"]["accuracy"] == pytest.approx(2 / 3)
    assert summary["by_difficulty"]["easy"]["accuracy"] == 1.0
    for name in ("report.md", "report.html", "lengths.png", "rates.png", "summary.json"):
        assert (tmp_path / name).stat().st_size > 0


def test_length_limit_is_reported_as_incomplete(tmp_path):
    with FakeOpenAI() as server:
        evaluate(
            verifiers.get("game24"),
            TASKS[:1],
            make_backend("openai", base_url=server.url),
            Sampling(n=2, max_tokens=4),
            tmp_path,
        )
    assert build(tmp_path)["overall"]["incompletion"] == 1.0


def test_server_that_keeps_failing_gives_a_clear_error(tmp_path):
    with FakeOpenAI(fail_first=100, status=500) as server:
        backend = make_backend("openai", base_url=server.url, retries=1)
        with pytest.raises(GenerationFailed, match="failed after 2 tries: HTTP 500"):
            evaluate(verifiers.get("game24"), TASKS[:1], backend, Sampling(n=1), tmp_path)
    assert load_samples(tmp_path) == []


def test_rerun_resumes_and_never_repeats(tmp_path):
    v = verifiers.get("game24")
    with FakeOpenAI() as server:
        backend = make_backend("openai", base_url=server.url)
        evaluate(v, TASKS[:2], backend, Sampling(n=2), tmp_path, prompts_per_batch=1)
        first = len(server.requests)
        # simulate a run killed mid-write: a torn final line and a half-written task
        lines = (tmp_path / "samples.jsonl").read_text().splitlines(keepends=True)
        (tmp_path / "samples.jsonl").write_text("".join(lines[:3]) + lines[3][:10])
        evaluate(v, TASKS, backend, Sampling(n=2), tmp_path, prompts_per_batch=1)
        assert len(server.requests) == first + 2 + 2  # task t2 redone whole, t3 new; t1 untouched
    keys = [(r["task_id"], r["sample"]) for r in load_samples(tmp_path)]
    assert sorted(keys) == [(t, k) for t in ("t1", "t2", "t3") for k in range(2)] and len(keys) == len(set(keys))


def test_a_different_run_in_the_same_folder_is_refused(tmp_path):
    with FakeOpenAI() as server:
        backend = make_backend("openai", base_url=server.url)
        evaluate(verifiers.get("game24"), TASKS[:1], backend, Sampling(n=1), tmp_path)
        with pytest.raises(RunMismatch, match="sampling"):
            evaluate(verifiers.get("game24"), TASKS[:1], backend, Sampling(n=1, temperature=1.0), tmp_path)
    assert json.loads((tmp_path / "run.json").read_text())["sampling"]["temperature"] == 0.7

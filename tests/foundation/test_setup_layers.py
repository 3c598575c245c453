"""The main job's set-up layer alone, as a newcomer meets it: from a fresh virtual environment,
`bash scripts/eval.sh` installs only what the main job uses, prints no pip error or warning, and
reaches its table; the parts it leaves out say in one line which command installs them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LEFT_OUT = ("llama_cpp", "vllm", "docker", "open_clip", "cairosvg", "ray", "trl", "fastapi")


@pytest.mark.slow
def test_the_main_layer_alone_runs_the_main_job(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python, evalkit = venv / "bin" / "python", venv / "bin" / "evalkit"
    env = {**os.environ, "PYTHON": str(python)}
    run = tmp_path / "run"
    r = subprocess.run(
        ["bash", "scripts/eval.sh", "--limit", "2", "-n", "1", "--run-dir", str(run)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=1500,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    assert "ready (main)" in r.stdout and "accuracy" in r.stdout and (run / "results.json").is_file()
    noise = [line for line in (r.stdout + r.stderr).splitlines() if "ERROR" in line or "WARNING" in line]
    assert not noise, noise  # e.g. pip's dependency-resolver conflicts, ignored index locations
    find = "import importlib.util as u, sys; print([m for m in sys.argv[1:] if u.find_spec(m)])"
    installed = subprocess.run([python, "-c", find, *LEFT_OUT], capture_output=True, text=True, check=True)
    assert installed.stdout.strip() == "[]", f"the main layer installed {installed.stdout.strip()}"

    for command in (["serve"], ["eval", "--backend", "vllm", "--limit", "1", "--run-dir", str(tmp_path / "v")]):
        r = subprocess.run([evalkit, *command], cwd=tmp_path, capture_output=True, text=True, timeout=600)
        assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr[-2000:]
        assert "is not installed: bash scripts/setup-env.sh installs every part" in r.stderr, r.stderr

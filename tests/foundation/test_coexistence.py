"""Beside another package named `verifiers` (PyPI has a popular one): pytest sessions that do not
use evalkit still run, and evalkit says what is wrong in one line."""

import os
import subprocess
import sys

import pytest


@pytest.fixture
def shadowed(tmp_path):
    """An environment whose `verifiers` is somebody else's."""
    other = tmp_path / "site" / "verifiers"
    other.mkdir(parents=True)
    (other / "__init__.py").write_text("class Environment:\n    pass\n")
    env = {**os.environ, "PYTHONPATH": f"{tmp_path / 'site'}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    return tmp_path, env


def test_an_unrelated_pytest_session_still_runs(shadowed):
    tmp_path, env = shadowed
    project = tmp_path / "project"
    project.mkdir()
    (project / "test_plain.py").write_text("import verifiers\n\ndef test_theirs():\n    assert verifiers.Environment\n")
    r = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_plain.py"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    assert "1 passed" in r.stdout and "plugin is inactive" in r.stdout + r.stderr


def test_evalkit_names_the_conflict_and_the_fix_in_one_line(shadowed):
    tmp_path, env = shadowed
    r = subprocess.run(
        [sys.executable, "-m", "evalkit", "verifiers"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode != 0 and r.stderr.strip().count("\n") == 0 and "Traceback" not in r.stderr, r.stderr
    assert "is not evalkit's" in r.stderr and "pip uninstall verifiers" in r.stderr
    r = subprocess.run(
        [sys.executable, "-c", "import evalkit.pipeline"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "ImportError: evalkit: the `verifiers` package at" in r.stderr

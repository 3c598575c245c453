"""The library as a user installs it: `pip install '.[code,serve]'` into a fresh virtual environment
(no set-up scripts, no site packages), then scoring, the command and the server's module from there.
The distribution is `evalkit-rl` (`evalkit` on PyPI is another project); the import names are ours."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_pip_install_with_extras_into_a_fresh_venv(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    pip_env = {k: v for k, v in os.environ.items() if k not in ("PIP_FIND_LINKS", "PIP_CONFIG_FILE", "PYTHONPATH")}
    pip_env["PIP_CONFIG_FILE"] = os.devnull
    python = venv / "bin" / "python"
    install = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", f"{ROOT}[code,serve]"],
        capture_output=True,
        text=True,
        env=pip_env,
        timeout=900,
    )
    assert install.returncode == 0, install.stderr[-3000:]
    code = (
        "import verifiers, evalkit.server, sandboxes, pytest_plugin\n"
        "from importlib.metadata import version\n"
        "v = verifiers.get('game24')\n"
        "print(version('evalkit-rl'), v.score('Answer: (6-4)*(4+8)', {'numbers': [4, 4, 6, 8]}).verdict.value)\n"
    )
    used = subprocess.run([str(python), "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert used.returncode == 0 and used.stdout.split() == ["0.1.0", "correct"], used.stderr[-2000:]
    listed = subprocess.run([str(venv / "bin" / "evalkit"), "verifiers"], capture_output=True, text=True, timeout=120)
    assert listed.returncode == 0 and "game24" in listed.stdout, listed.stderr[-2000:]

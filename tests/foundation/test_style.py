"""The tree follows its ruff configuration (pyproject.toml): lint and format, as CI checks them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from pytest_plugin.required_parts import require_module

ROOT = Path(__file__).resolve().parents[2]


def _ruff(*args: str) -> subprocess.CompletedProcess:
    require_module("ruff", "pip install -e '.[test]' (or: pip install ruff)")
    return subprocess.run([sys.executable, "-m", "ruff", *args], cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_ruff_lint_passes():
    r = _ruff("check", "--output-format", "concise", ".")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-1000:]


def test_ruff_format_is_applied():
    r = _ruff("format", "--check", ".")
    assert r.returncode == 0, "run `ruff format .`:\n" + r.stdout[-3000:]

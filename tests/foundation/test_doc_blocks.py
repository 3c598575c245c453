"""The README and docs/ as a newcomer meets them: short enough to read (the README at most 250
lines), every link resolving, every Python block running as printed (a block with a `def test_`
runs under pytest, as a user's test file would), every `evalkit` command parsing."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from evalkit.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
README_MAX_LINES = 250


def blocks(language: str) -> list[tuple[str, int, str]]:
    """(page, block number, source) of every fenced block in `language`."""
    found = []
    for page in PAGES:
        for k, source in enumerate(re.findall(rf"^```{language}\n(.*?)^```", page.read_text(), re.S | re.M)):
            found.append((str(page.relative_to(ROOT)), k + 1, source))
    return found


def test_the_readme_is_short():
    lines = (ROOT / "README.md").read_text().count("\n")
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines; move detail to a page under docs/"


def test_every_relative_link_resolves():
    broken = []
    for page in PAGES:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text()):
            if "://" not in target and not (page.parent / target).exists():
                broken.append(f"{page.relative_to(ROOT)}: {target}")
    assert not broken, broken


def test_every_evalkit_command_in_the_docs_parses():
    parser = build_parser()
    commands = [
        line.split("  #")[0].strip()
        for _, _, source in blocks("bash")
        for line in source.splitlines()
        if line.strip().startswith("evalkit ")
    ]
    assert len(commands) >= 8
    for command in commands:
        try:
            parser.parse_args(shlex.split(command)[1:])
        except SystemExit:
            pytest.fail(f"documented command does not parse: {command}")


@pytest.mark.parametrize("page,number,source", blocks("python"), ids=lambda v: str(v)[:40].replace("\n", " "))
def test_python_block_runs_as_printed(page, number, source, tmp_path):
    if re.search(r"^def test_", source, re.M):
        (tmp_path / "test_block.py").write_text(source)
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_block.py"]
    else:
        command = [sys.executable, "-c", source]
    r = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, f"{page}, Python block {number}:\n{r.stdout[-2000:]}\n{r.stderr[-3000:]}"


def test_every_script_and_module_a_shell_example_runs_exists():
    """`python -m MODULE`, `python PATH` and `bash PATH` in the docs' shell blocks name something
    that is there (a renamed script or module fails here, not in a user's terminal)."""
    import importlib.util

    missing, checked = [], 0
    for page, number, source in blocks("bash"):
        for line in source.splitlines():
            words = shlex.split(line.split("  #")[0], comments=True) if line.strip() else []
            for i, word in enumerate(words[:-1]):
                target = words[i + 1]
                if word in ("python", "python3") and target == "-m" and i + 2 < len(words):
                    checked += 1
                    module = words[i + 2]
                    if importlib.util.find_spec(module) is None:
                        missing.append(f"{page} block {number}: python -m {module}")
                elif word in ("python", "python3", "bash") and target.endswith((".py", ".sh")):
                    checked += 1
                    here = ROOT / target
                    if not here.exists() and not (ROOT / "docs" / target).exists() and "../shared" not in target:
                        missing.append(f"{page} block {number}: {word} {target}")
    assert checked >= 3 and not missing, (checked, missing)

"""Every command's `--help` as a new user reads it: a description that ends its sentence, every
option explained and its default shown (the value argparse will use, from where the code keeps it),
and a near-miss verifier name answered with "did you mean"."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

from evalkit.cli import COMMANDS, build_parser


def subparsers() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(sub.choices)


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_help_explains_every_option_and_shows_its_default(command):
    parser = subparsers()[command]
    assert parser.description and parser.description.rstrip().endswith((".", ")", "`")), parser.description
    text = " ".join(parser.format_help().split())
    for action in parser._actions:
        if not action.option_strings or action.dest == "help":
            continue
        assert action.help, f"{command} {action.option_strings[0]} has no help"
        if action.default not in (None, False, argparse.SUPPRESS) and "default" not in action.help:
            shown = f"(default: {action.default})"
            assert " ".join(shown.split()) in text, f"{command} {action.option_strings[0]}: no {shown}"


def test_the_top_level_help_names_the_sandbox_subcommands():
    out = " ".join(build_parser().format_help().split())
    assert "evalkit sandbox check" in out and "evalkit sandbox clean" in out


def test_a_near_miss_verifier_name_is_answered_with_did_you_mean(tmp_path):
    source = tmp_path / "in.jsonl"
    source.write_text('{"completion": "x", "numbers": [1, 2, 3, 4]}\n')
    r = subprocess.run(
        [sys.executable, "-m", "evalkit", "score", "--verifier", "gam24", str(source), "-o", str(tmp_path / "o")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 2 and "did you mean 'game24'?" in r.stderr, r.stderr

"""Each setting has one home: the command-line options take their defaults from the dataclasses the
code runs with, and those dataclasses refuse a bad value in one line where they are made."""

from __future__ import annotations

import argparse
import math

import pytest

from evalkit.generation.base import Sampling
from evalkit.server_limits import ServerLimits
from sandboxes.base import Limits


def _defaults(command: str) -> dict:
    import importlib

    from evalkit.cli import COMMANDS

    parser = argparse.ArgumentParser()
    importlib.import_module(COMMANDS[command][0]).add_arguments(parser)
    return vars(parser.parse_args([]))


def test_the_servers_options_default_to_its_limits():
    options, limits = _defaults("serve"), ServerLimits()
    mb = 1 << 20
    assert options["concurrency"] == limits.concurrency and options["max_waiting"] == limits.max_waiting
    assert options["timeout"] == limits.timeout and options["max_items"] == limits.max_items
    assert options["max_body_mb"] * mb == limits.max_body_bytes
    assert options["max_admitted_mb"] * mb == limits.max_admitted_bytes
    assert options["body_seconds"] == limits.body_seconds
    assert options["max_client_configs"] == limits.max_client_configs


def test_the_evaluators_options_default_to_its_sampling():
    options, sampling = _defaults("eval"), Sampling()
    assert (options["samples"], options["temperature"], options["top_p"]) == (
        sampling.n,
        sampling.temperature,
        sampling.top_p,
    )
    assert (options["max_tokens"], options["seed"]) == (sampling.max_tokens, sampling.seed)


@pytest.mark.parametrize(
    "make, words",
    [
        (lambda: Sampling(n=0), "samples (n) must be a positive integer"),
        (lambda: Sampling(max_tokens=-5), "max_tokens must be a positive integer"),
        (lambda: Sampling(temperature=math.nan), "temperature must be a number >= 0"),
        (lambda: Sampling(top_p=1.5), "top_p must be in (0, 1]"),
        (lambda: ServerLimits(timeout=-1.0), "server limit timeout must be a positive"),
        (lambda: ServerLimits(concurrency=0), "server limit concurrency must be a positive"),
        (lambda: ServerLimits(max_body_bytes=math.inf), "server limit max_body_bytes"),
        (lambda: Limits(memory_mb=-1), "sandbox limit memory_mb must be a positive, finite number"),
        (lambda: Limits(cpu_seconds=math.nan), "sandbox limit cpu_seconds"),
    ],
)
def test_a_bad_value_is_refused_in_one_line(make, words):
    with pytest.raises(ValueError) as refused:
        make()
    assert words in str(refused.value) and "\n" not in str(refused.value)


def test_the_commands_refuse_bad_values_in_one_line(tmp_path):
    import subprocess
    import sys

    for args, words in (
        (["eval", "--top-p", "2", "--run-dir", str(tmp_path / "e")], "top_p must be in (0, 1]"),
        (["serve", "--concurrency", "0"], "server limit concurrency"),
    ):
        done = subprocess.run([sys.executable, "-m", "evalkit", *args], capture_output=True, text=True, timeout=120)
        assert done.returncode == 2 and words in done.stderr and done.stderr.count("\n") == 1, done.stderr


def test_an_old_preset_name_still_works_with_a_warning_and_a_verifier_closes_itself():
    import verifiers

    with pytest.warns(DeprecationWarning, match="'seed' is now 'published_formula'"):
        old = verifiers.get("game24", preset="seed")
    assert old.config == verifiers.get("game24", preset="published_formula").config
    with verifiers.get("game24") as v:
        v.score_batch(["Answer: (6-4)*(4+8)" + " " * 20_000], [{"numbers": [4, 4, 6, 8]}], workers=1)
        from verifiers.batch import pools_for

        assert pools_for(v)
    assert not pools_for(v)  # closed with the block

"""What a zygote changes (sandboxes/zygote.py), attacked on both backends: a candidate forked from a
warm interpreter must inherit nothing of the job, must not be able to poison the next program
through the zygote (memory, modules, signals), and must still hold only its own channel."""

from __future__ import annotations

import json

import pytest

import verifiers
from sandboxes.suite import Test, run_tests

TASK = {"test_cases": ["assert f(1) == 2", "assert f(2) == 3"], "entry_point": "f"}
FROM_A_ZYGOTE = 'b"\\0--zygote\\0" in open(f"/proc/{os.getppid()}/cmdline", "rb").read()'


def fenced(source: str) -> str:
    return f"```python\n{source}\n```"


POISON = """
import builtins, math, sys, typing
builtins.POISON = True
math.pi = 3
typing.List = None
sys.modules["json"] = None
def f(x):
    return x + 1
"""
SEES_POISON = f"""
import builtins, math, os, sys, typing
CLEAN = not hasattr(builtins, "POISON") and math.pi > 3.14 and typing.List is not None and sys.modules.get("json", 1)
def f(x):
    return x + 1 if CLEAN and {FROM_A_ZYGOTE} else "poisoned or not forked from a zygote"
"""


def signals_the_zygote(signal_name: str) -> str:
    """A program that sends the zygote `signal_name` while it loads (refused by the job filter, seccomp.py)."""
    return (
        "import os, signal\n"
        "try:\n"
        f"    os.kill(os.getppid(), signal.{signal_name})\n"
        "    REFUSED = False\n"
        "except PermissionError:\n"
        "    REFUSED = True\n"
        "def f(x):\n"
        "    return x + 1 if REFUSED else 'the zygote took the signal'\n"
    )


KILL_ZYGOTE, STOP_ZYGOTE = signals_the_zygote("SIGKILL"), signals_the_zygote("SIGSTOP")
WRITE_ZYGOTE = """
import os
zygote, reached = os.getppid(), []
for fd in ["mem"] + [f"fd/{n}" for n in range(8)]:
    try:
        open(f"/proc/{zygote}/{fd}", "r+b").close()
        reached.append(fd)
    except OSError:
        pass
def f(x):
    return x + 1 if not reached else "reached " + " ".join(reached)
"""


def test_no_candidate_poisons_the_zygote_for_the_next_program(backend):
    """Each program runs in one warm sandbox after the one before: what a program does to its
    modules, or to the zygote itself (kill and stop are refused, its memory and fds closed), the next
    program never sees, and the next program is again forked from a zygote."""
    v = verifiers.get("code", backend=backend.name, pool_size=1)
    sequence = [
        ("poisons its modules", POISON),
        ("checks", SEES_POISON),
        ("kills the zygote", KILL_ZYGOTE),
        ("checks after a kill", SEES_POISON),
        ("stops the zygote", STOP_ZYGOTE),
        ("checks after a stop", SEES_POISON),
        ("opens the zygote's memory and fds", WRITE_ZYGOTE),
        ("checks at the end", SEES_POISON),
    ]
    try:
        verdicts = {name: v.score(fenced(source), TASK) for name, source in sequence}
    finally:
        v.close()
    assert {name: s.verdict.value for name, s in verdicts.items()} == dict.fromkeys(verdicts, "correct"), {
        name: s.info.get("failures") for name, s in verdicts.items()
    }


OWN_STATE = """
import os, random
def f():
    return [random.random(), os.urandom(8).hex(), sorted(int(fd) for fd in os.listdir("/proc/self/fd"))]
"""


def test_each_candidate_has_its_own_random_state_and_only_its_channel(backend):
    """Forks share their zygote's pages: each must still seed its own `random`, and hold only its
    stdio files and its channel (fds 0-4; 5 is the listing's own)."""
    seen = []
    for _ in range(3):
        result = run_tests(backend, OWN_STATE, [Test("call", "f()", None)], entry_point="f")
        observed = result.outcomes[0].observed
        assert observed.startswith("value "), observed
        value = json.loads(observed[len("value ") :])["list"]
        seen.append((value[0], value[1]))
        assert set(value[2]["list"]) <= {0, 1, 2, 3, 4, 5}, value[2]
    assert len({r for r, _ in seen}) == 3 and len({u for _, u in seen}) == 3


@pytest.mark.parametrize("kind", ["call", "stdio"])
def test_a_program_that_kills_the_zygote_mid_job_still_gets_every_test_run(backend, kind):
    """A program's signal to the zygote is refused (the job filter, seccomp.py), so later candidates
    are still forked from it. (Where a machine has no filter numbers, a dead zygote makes the judge
    start later candidates the old way, exec.)"""
    if kind == "call":
        code = KILL_ZYGOTE
        tests = [Test("call", f"f({i})", i + 1) for i in range(3)]
        result = run_tests(backend, code, tests, entry_point="f")
    else:
        code = (
            f"import os, signal\nif {FROM_A_ZYGOTE}:\n    try:\n        os.kill(os.getppid(), signal.SIGKILL)\n"
            "    except PermissionError:\n        pass\nprint(int(input()) + 1)"
        )
        tests = [Test("stdio", f"{i}\n", f"{i + 1}\n") for i in range(3)]
        result = run_tests(backend, code, tests)
    assert [o.verdict.value for o in result.outcomes] == ["pass"] * 3, result.outcomes


POISON_PACKAGE = """
import sortedcontainers
sortedcontainers.SortedList.__len__ = lambda self: 99
sortedcontainers.POISON = True
def f(x):
    return x + 1
"""
SEES_PACKAGE = f"""
import os, sys
LOADED = "sortedcontainers" in sys.modules  # before any import of ours: the zygote loaded it
import sortedcontainers
CLEAN = not hasattr(sortedcontainers, "POISON") and len(sortedcontainers.SortedList([1])) == 1
def f(x):
    return x + 1 if LOADED and CLEAN and {FROM_A_ZYGOTE} else f"loaded {{LOADED}}, clean {{CLEAN}}"
"""
NOT_LOADED = """
import sys
def f(x):
    return x + 1 if "sortedcontainers" not in sys.modules else "an allowed package of another sandbox"
"""


def test_the_allowed_packages_are_loaded_before_any_job_and_stay_clean(backend):
    """A sandbox imports its allowed packages once (a tenth of a short LeetCode program's cost):
    a program finds them loaded, cannot poison them for the next program, and a sandbox that does
    not allow a package never has it loaded."""
    allowed = verifiers.get("code", backend=backend.name, pool_size=1, packages=("sortedcontainers",))
    none = verifiers.get("code", backend=backend.name, pool_size=1, packages=())
    try:
        verdicts = [allowed.score(fenced(source), TASK) for source in (SEES_PACKAGE, POISON_PACKAGE, SEES_PACKAGE)]
        verdicts.append(none.score(fenced(NOT_LOADED), TASK))
    finally:
        allowed.close()
        none.close()
    assert [s.verdict.value for s in verdicts] == ["correct"] * 4, [s.info.get("failures") for s in verdicts]

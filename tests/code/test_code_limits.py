"""Limits that hold on any host and the same on both backends; time that is the model's fault is
TIMEOUT whatever the batch timeout; nothing survives a killed worker."""

import glob
import os
import subprocess
import time
from dataclasses import replace

import verifiers
from sandboxes.base import Limits, TestVerdict
from sandboxes.owners import container_owners
from sandboxes.suite import Test, run_tests
from verifiers.code import PROBLEMS
from verifiers.pool import WorkerPool

LIMITS = Limits(cpu_seconds=1.0, memory_mb=512, wall_seconds=30)
# Only the infinite loop is meant to run out of time; the others check which limit stops them, so
# they get a clock a busy machine cannot run out first (the wall deadline is twice the CPU seconds).
UNHURRIED = replace(LIMITS, cpu_seconds=10.0)
V = TestVerdict
CALL = [Test("call", "f()", 1)]
FILL = (
    "def f():\n    written = 0\n    for k in range(40):\n        try:\n            with open(f'{DIR}/fill{k}', 'wb') as fh:\n"
    "                for _ in range(8):\n                    fh.write(b'0' * (1 << 20)); written += 1\n"
    "        except OSError:\n            break\n    return written"
)
HOSTILE = {
    "infinite loop": ("def f():\n    while True: pass", CALL),
    "memory bomb": ("def f():\n    return len(bytearray(8 << 30))", CALL),
    "legitimate 300 MB": ("def f():\n    return len(bytearray(300 << 20)) >> 20", [Test("call", "f()", 300)]),
    "100 forks": (
        "import os, time\ndef f():\n    n = 0\n    for _ in range(100):\n        try:\n            if os.fork() == 0:\n"
        "                time.sleep(3); os._exit(0)\n            n += 1\n        except OSError:\n            break\n    return n",
        [Test("call", "f() <= 64", True)],
    ),
    "fill /tmp": (FILL.replace("{DIR}", "/tmp"), [Test("call", "f() <= 64", True)]),
    "fill /dev/shm": (FILL.replace("{DIR}", "/dev/shm"), [Test("call", "f() <= 64", True)]),
    "output flood": ("def f():\n    while True: print('x' * 100000)", CALL),
    "exit(0) while loading": ("import sys\nsys.exit(0)\ndef f(): return 1", CALL),
    "always-equal value": (
        "class A(int):\n    def __eq__(self, o): return True\n    __hash__ = int.__hash__\ndef f(): return A(5)",
        CALL,
    ),
    "deep recursion": ("def f(n=0):\n    return f(n + 1)", CALL),
    "stdio sys.exit(0)": ("import sys\nprint(input())\nsys.exit(0)", [Test("stdio", "7\n", "7\n")]),
}


def test_the_hostile_suite_gets_the_same_verdicts_on_both_backends(both_backends):
    verdicts = {}
    for b in both_backends:
        verdicts[b.name] = {
            name: [
                o.verdict for o in run_tests(b, code, tests, LIMITS if name == "infinite loop" else UNHURRIED).outcomes
            ]
            for name, (code, tests) in HOSTILE.items()
        }
    assert verdicts["local"] == verdicts["docker"]
    got = verdicts["local"]
    assert got["infinite loop"] == [V.TIMEOUT] and got["memory bomb"] == [V.MEMORY_LIMIT]
    assert got["100 forks"] == got["fill /tmp"] == got["fill /dev/shm"] == got["legitimate 300 MB"] == [V.PASS]
    assert got["output flood"] == [V.OUTPUT_LIMIT] and got["exit(0) while loading"] == [V.RUNTIME_ERROR]
    assert got["always-equal value"] == [V.WRONG_ANSWER] and got["stdio sys.exit(0)"] == [V.PASS]


LOOP = "```python\nimport os, sys\ndef two_sum(nums, target):\n    while True:\n        pass\n```"
TWO_SUM = next(p for p in PROBLEMS if p["id"] == "two-sum")


def test_a_loop_is_timeout_whatever_the_batch_timeout(backend):
    v = verifiers.get("code", backend=backend.name)
    try:
        scores = v.score_batch([LOOP], [TWO_SUM], workers=1, timeout=1.0)
    finally:
        v.close()
    assert scores[0].verdict.value == "timeout", scores[0].reason
    assert v.time_budget() >= v.config.wall_seconds


def _marked_loop(mark: str) -> str:
    """A program that becomes a loop whose command line carries `mark` (one per test run: the other
    backend's run of this test may be in flight on another xdist worker)."""
    return (
        "```python\nimport os, sys\ndef two_sum(nums, target):\n"
        f"    os.execv(sys.executable, [sys.executable, '-c', 'while True: pass', '{mark}'])\n```"
    )


def test_nothing_survives_a_killed_worker(backend):
    # the verifier's own limits are long, so the pool's clock (called directly, not through
    # score_batch, which would honour the verifier's budget) kills the worker mid-run
    from sandboxes.cleanup import release_orphans

    release_orphans(docker=True)  # what other processes left (e.g. killed framework workers) is not this test's
    v = verifiers.get("code", backend=backend.name, cpu_seconds=60, timeout_budget_seconds=60, wall_seconds=120)
    pool = WorkerPool(v, 1, None)
    mark = f"EVALKIT_LOOP_MARK_{backend.name}_{os.getpid()}"
    try:
        out = pool.run([(0, _marked_loop(mark), TWO_SUM)], timeout=4.0, progress=lambda n: None)
        assert out[0].is_error and "worker killed" in out[0].reason
    finally:
        pool.close()
        v.close()
    deadline = time.monotonic() + 10  # a killed process is reaped asynchronously
    while _running(mark) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _running(mark) == []
    assert (
        subprocess.run(
            ["docker", "ps", "-aq", "--filter", "label=evalkit.sandbox.owner"], capture_output=True, text=True
        ).stdout.split()
        == _own_containers()
    )
    assert not [d for d in glob.glob("/tmp/evalkit-sbx-*") if not _owner_alive(d)]


def _running(mark: str) -> list[int]:
    """Processes still running (a zombie has stopped) whose command line carries `mark`."""
    from sandboxes.owners import process_alive

    found = subprocess.run(["pgrep", "-f", mark], capture_output=True, text=True).stdout.split()
    return [int(pid) for pid in found if process_alive(int(pid))]


def _own_containers():
    """Containers of live owners (other test fixtures' pools) may exist; none of dead ones may."""
    return [cid for cid, owner in container_owners().items() if _pid_alive(owner)]


def _owner_alive(path):
    return _pid_alive(int(os.path.basename(path).split("-")[2]))


def _pid_alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False

"""Programs that try to earn a code reward without solving the task, on both backends. Every test
kind is attacked: tests compared outside (call == literal, stdin/stdout) and trusted test code
run by the judge (other asserts, pytest files, a check() with setup lines)."""

import os

import pytest
from test_code_hostile import HUNT

import verifiers
from verifiers.code import PROBLEMS

BY_ID = {p["id"]: p for p in PROBLEMS}

SQ_TASKS = {
    "abs tolerance": {"test_cases": ["assert abs(sq(1.5) - 2.25) < 1e-9", "assert abs(sq(2.0) - 4.0) < 1e-9"]},
    "literal on the left": {"test_cases": ["assert 16 == sq(4)", "assert 9 == sq(3)"]},
    "computed expected": {"test_cases": ["assert sq(3) == 3 * 3", "assert sq(5) == 5 * 5"]},
    "check() with setup": {
        "test": "def check(candidate):\n    import math\n    assert candidate(4) == 16\n"
        "    assert math.isclose(candidate(1.5), 2.25)\n",
        "entry_point": "sq",
    },
    "pytest file": {
        "test": "from solution import sq\n\ndef test_sq():\n    assert sq(4) == 16\n\n"
        "class TestMore:\n    def test_neg(self):\n        assert sq(-3) == 9\n"
    },
}
REFERENCE = "def sq(x):\n    return x * x\n"

FD_SCAN = """
import os, stat, json
for fd in range(3, 256):
    try:
        if stat.S_ISFIFO(os.fstat(fd).st_mode):
            os.write(fd, json.dumps({"status": "ok"}).encode()); os._exit(0)
    except OSError: pass
"""
FRAME_FORGER = """
import os, struct, json
def sq(x):
    reply = json.dumps({"value": None}).encode()
    for fd in range(3, 64):
        try:
            os.write(fd, struct.pack(">I", len(reply)) + reply)
        except OSError: pass
    return 0
"""
PROC_FORGER = """
import os, json, glob
def sq(x):
    line = json.dumps({"i": 0, "status": "ok"}) + "\\n"
    for path in glob.glob("/proc/*/fd/*"):
        try:
            with open(path, "w") as fh: fh.write(line * 3)
        except OSError: pass
    return 0
"""
ALWAYS_EQUAL = """
class Anything(float):
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    def __lt__(self, other): return True
    def __gt__(self, other): return True
    __hash__ = float.__hash__
class Box:
    def __eq__(self, other): return True
    def __bool__(self): return True
    def __lt__(self, other): return True
def sq(x):
    return Box() if isinstance(x, float) else Anything(0)
"""
KILL_THE_JUDGE = """
import os, signal
def sq(x):
    for pid in [int(p) for p in os.listdir('/proc') if p.isdigit()]:
        if pid != os.getpid():
            try: os.kill(pid, signal.SIGKILL)
            except OSError: pass
    return x * x
"""
CHANNEL_FORGER = """
import os, socket, json
def sq(x):
    line = (json.dumps({"i": 0, "status": "ok"}) + "\\n").encode()
    for folder in ("/channel", "/work", "/tmp", "/dev/shm"):  # the Docker runner's channel is made in /channel
        for name in (os.listdir(folder) if os.path.isdir(folder) else []):
            link = socket.socket(socket.AF_UNIX)
            try:
                link.connect(os.path.join(folder, name))
                link.sendall(line * 3)
            except OSError:
                pass
            link.close()
    try:
        socket.socket(socket.AF_UNIX).bind("/channel/forged.sock")
    except OSError:
        pass
    return 0
"""
ATTACKS = {
    "fd scan": FD_SCAN,
    "connects to the host's channel": CHANNEL_FORGER,
    "forged frames": FRAME_FORGER,
    "writes to /proc fds": PROC_FORGER,
    "always-equal values": ALWAYS_EQUAL,
    "kills every process": KILL_THE_JUDGE,
}


def fenced(code):
    return f"```python\n{code}\n```"


@pytest.fixture(scope="module")
def verifier(backend):
    v = verifiers.get("code", backend=backend.name)
    yield v
    v.close()


@pytest.mark.parametrize("task_name", list(SQ_TASKS))
def test_the_reference_passes_every_test_kind(verifier, task_name):
    s = verifier.score(fenced(REFERENCE), SQ_TASKS[task_name])
    assert s.verdict.value == "correct", (s.reason, s.info)


@pytest.mark.parametrize("attack", list(ATTACKS))
@pytest.mark.parametrize("task_name", list(SQ_TASKS))
def test_no_attack_earns_anything(verifier, task_name, attack):
    s = verifier.score(fenced(ATTACKS[attack]), SQ_TASKS[task_name])
    if attack == "kills every process":  # it computes squares honestly; what it must not do is break the judge
        assert s.verdict.value in ("correct", "partial", "incorrect") and not s.is_error, s.reason
        return
    assert s.verdict.value != "correct" and s.reward == 0.0, (s.reason, s.info)


@pytest.mark.parametrize("attack", ["fd scan", "forged frames", "always-equal values"])
def test_builtin_pytest_and_leetcode_tasks_resist(verifier, attack):
    for task in (BY_ID["pytest-stack"], BY_ID["leetcode-single-number"]):
        code = ATTACKS[attack].replace("def sq(x)", "def sq(*a, **k)")
        code += (
            "\nclass MinStack:\n    def push(self, x): pass\n    pop = push\n    def top(self): return sq(1.0)\n"
            "    def get_min(self): return sq(1.0)\nclass Solution:\n    def singleNumber(self, nums): return sq(1.0)\n"
        )
        s = verifier.score(fenced(code), task)
        assert s.verdict.value != "correct" and s.reward == 0.0, (task["id"], s.reason, s.info)


def test_judged_test_code_never_reaches_the_program(verifier):
    """An assert judged in the sandbox holds its expected value in the judge, never in the program's process."""
    secret = 700_000_000 + int.from_bytes(os.urandom(3), "little")
    task = {"test_cases": [f"assert f() == {secret} + 0", f"assert f() + 0 == {secret}"]}
    s = verifier.score(fenced(HUNT), task)
    assert s.verdict.value == "incorrect", (s.reason, s.info)


def test_a_program_that_exits_zero_after_printing_is_fine(verifier):
    task = {"inputs": ["21\n", "2\n"], "outputs": ["42\n", "4\n"]}
    for ending in (
        "import sys\nsys.exit(0)",
        "raise SystemExit",
        "import os, sys\nsys.stdout.flush()\nos._exit(0)",
        "exit()",
    ):
        s = verifier.score(fenced(f"print(int(input()) * 2)\n{ending}"), task)
        assert s.verdict.value == "correct", (ending, s.reason, s.info)
    s = verifier.score(fenced("print(int(input()) * 2)\nimport sys\nsys.exit(3)"), task)
    assert s.verdict.value != "correct"


def test_exact_answers_get_no_float_tolerance(verifier):
    climb = {"test_cases": ["assert climb(40) == 165580141", "assert climb(3) == 3"]}
    near = verifier.score(fenced("def climb(n):\n    return float(165580100) if n == 40 else 3"), climb)
    assert near.verdict.value == "partial"
    exact_float = verifier.score(fenced("def climb(n):\n    return 165580141.0 if n == 40 else 3.0"), climb)
    assert exact_float.verdict.value == "correct"  # Python's own == agrees: no tolerance, no type games
    io = {"inputs": ["x"], "outputs": ["2333606220\n"]}
    assert verifier.score(fenced("print('2333606920.0')"), io).verdict.value == "incorrect"
    assert verifier.score(fenced("print(2333606220)"), io).verdict.value == "correct"
    floats = {"inputs": ["x"], "outputs": ["0.3333333\n"]}
    assert verifier.score(fenced("print(1/3)"), floats).verdict.value == "correct"


def test_programs_that_behave_alike_vote_together(verifier):
    task = BY_ID["fibonacci"]
    loop = verifier.score(
        fenced("def fib(n):\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a"), task
    )
    memo = verifier.score(
        fenced("from functools import cache\n@cache\ndef fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)"),
        task,
    )
    wrong = verifier.score(fenced("def fib(n):\n    return n"), task)
    other_wrong = verifier.score(fenced("def fib(n):\n    return n + 1"), task)
    assert loop.verdict.value == memo.verdict.value == "correct"
    assert loop.answer == memo.answer and loop.answer is not None
    assert len({loop.answer, wrong.answer, other_wrong.answer}) == 3


def test_undecodable_answers_never_look_like_an_expected_exception(verifier):
    """`pytest.raises(ValueError)`-style tests: a reply the judge cannot decode is a failure, not a ValueError."""
    task = {
        "test": "def check(candidate):\n    raised = False\n    try:\n        candidate(-1)\n"
        "    except ValueError:\n        raised = True\n    assert raised\n",
        "entry_point": "f",
    }
    honest = verifier.score(
        fenced("def f(x):\n    if x < 0:\n        raise ValueError('negative')\n    return x"), task
    )
    assert honest.verdict.value == "correct", honest.reason
    forged = (
        "import os, struct, json\ndef f(x):\n    reply = json.dumps({'value': {'int': '9' * 100000}}).encode()\n"
        "    os.write(4, struct.pack('>I', len(reply)) + reply)\n    import time; time.sleep(30)\n"
    )
    s = verifier.score(fenced(forged), task)
    assert s.verdict.value != "correct" and s.reward == 0.0, (s.reason, s.info)

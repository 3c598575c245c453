"""The red team's attacks on rewards (issue: rewards that cannot be swapped, forged or lost), each
replayed against the pool, the judge, the warm sandboxes (both backends) and the reward server.
Every test here failed on the code before the fix; docs/code_sandbox.md's attack table lists them."""

from __future__ import annotations

import asyncio
import json
import math
import os
import socket
import time

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import verifiers
from verifiers import Score, Verdict, Verifier

RIGHT = "```python\ndef f(x):\n    return x + 1\n```"
WRONG = "```python\ndef f(x):\n    return x\n```"
LOOP = "```python\ndef f(x):\n    while True:\n        pass\n```"
TASK = {"test_cases": ["assert f(1) == 2", "assert f(2) == 3", "assert f(5) == 6"], "entry_point": "f"}


def nested(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


def code_block(source: str) -> str:
    return f"```python\n{source}\n```"


# ---------------------------------------------------------------------------------------------------- 1. pairing
@pytest.mark.parametrize("depth", [495, 980, 5000])
def test_a_task_the_pool_cannot_send_is_its_own_error_and_rotates_nothing(depth):
    """A task nested too deeply to pickle never reached a worker yet stayed first in its queue: every
    later result landed one item early (a wrong answer scored as the right one before it)."""
    v = verifiers.get("game24")
    pad = " " * 20_000  # longer than game24's inline limit: these go through the worker pool
    right, wrong = "Answer: (6 - 4) * (4 + 8) = 24" + pad, "Answer: 4 + 4 + 6 + 8 = 22" + pad
    plain = {"numbers": [4, 4, 6, 8]}
    deep = {**plain, "note": nested(depth)}
    try:
        for _ in range(2):  # and the pool still pairs every later batch right
            scores = v.score_batch([wrong, right, right, wrong, right], [plain, deep, plain, plain, plain], workers=1)
            verdicts = [s.verdict.value for s in scores]
            assert verdicts[0] == "incorrect" and verdicts[2:] == ["correct", "incorrect", "correct"]
            assert verdicts[1] in ("error", "correct")  # deep enough not to travel: ERROR with the reason
            if verdicts[1] == "error":
                assert "cannot be sent" in scores[1].reason and scores[1].info.get("task_error")
    finally:
        v.close()


class _LoadsNowhere(dict):
    """A task that pickles here and fails to load in a worker (as one its stack cannot hold)."""

    def __reduce__(self):
        return (_refuse, ())


def _refuse():
    raise ValueError("this task cannot be loaded here")


@pytest.mark.parametrize("workers", [1, 2])
def test_an_item_a_worker_cannot_load_costs_that_item_only(workers):
    """A chunk a worker could not read made every item of it ERROR (two right answers beside the
    bad task); the chunk's items now go again one by one and only the bad one is ERROR."""
    v = verifiers.get("game24")
    tasks = v.tasks("test", limit=24)
    pad = " " * 20_000  # longer than game24's inline limit: these go through the worker pool
    completions = [f"Answer: {t['solution']}" + pad for t in tasks]
    tasks[7] = _LoadsNowhere(tasks[7], note="loads nowhere")
    try:
        scores = v.score_batch(completions, tasks, workers=workers)
    finally:
        v.close()
    assert scores[7].is_error and "could not read" in scores[7].reason
    assert [s.verdict.value for i, s in enumerate(scores) if i != 7] == ["correct"] * 23


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(st.tuples(st.booleans(), st.sampled_from([0, 0, 0, 40, 3000])), min_size=1, max_size=12),
    st.integers(1, 2),
)
def test_every_result_lands_on_its_own_item_whatever_the_batch_holds(pooled_game24, items, workers):
    """Generated batches of right and wrong answers, some tasks too deep to send: each right answer
    scores correct and each wrong one incorrect, in place, batch after batch on one warm pool."""
    pad = " " * 20_000
    completions = [
        ("Answer: (6 - 4) * (4 + 8) = 24" if right else "Answer: 4 + 4 + 6 + 8 = 22") + pad for right, _ in items
    ]
    tasks = [{"numbers": [4, 4, 6, 8], **({"note": nested(depth)} if depth else {})} for _, depth in items]
    scores = pooled_game24.score_batch(completions, tasks, workers=workers)
    for (right, depth), score in zip(items, scores):
        if score.is_error:
            assert depth >= 3000 and "cannot be sent" in score.reason
        else:
            assert score.verdict is (Verdict.CORRECT if right else Verdict.INCORRECT)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.booleans(), st.sampled_from(["text", "list", "tuple", "bytes"])), min_size=1, max_size=8))
def test_a_completion_that_is_not_text_shares_no_score_with_text(pooled_game24, items):
    """A batch's identical items are scored once; a completion that is not a string was known by its
    repr, so the text `"['Answer: …']"` and the list `['Answer: …']` shared one score (either way
    round: the list could take a right answer's reward). Each item scores as it does alone."""
    answers = {True: "Answer: (6 - 4) * (4 + 8) = 24", False: "Answer: 4 + 4 + 6 + 8 = 22"}
    shapes = {"list": lambda a: [a], "tuple": lambda a: (a,), "bytes": lambda a: a.encode()}
    completions = [
        repr(shapes["list"](answers[right])) if kind == "text" else shapes[kind](answers[right])
        for right, kind in items
    ]
    task = {"numbers": [4, 4, 6, 8]}
    scores = pooled_game24.score_batch(completions, [task] * len(items))
    assert scores == [pooled_game24.score(c, task) for c in completions]
    for (_, kind), score in zip(items, scores):
        assert (kind != "text") == ("must be a string" in score.reason)


@pytest.fixture(scope="module")
def pooled_game24():
    """One warm pool for every generated batch."""
    v = verifiers.get("game24")
    yield v
    v.close()


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.booleans(), st.sampled_from([0, 0, 0, 40, 3000]), st.booleans()), min_size=1, max_size=40))
def test_every_result_lands_on_its_own_item_when_this_thread_shares_the_work(pooled_game24, monkeypatch, items):
    """The same, with short items this thread scores from the back of the queue while the workers
    take long ones and short ones from its front (the sharing threshold lowered to one item)."""
    import verifiers.batch

    monkeypatch.setattr(verifiers.batch, "SHARE_INLINE_FROM", 1)
    pad = " " * 20_000
    completions = [
        ("Answer: (6 - 4) * (4 + 8) = 24" if right else "Answer: 4 + 4 + 6 + 8 = 22") + ("" if short else pad)
        for right, _, short in items
    ]
    tasks = [{"numbers": [4, 4, 6, 8], **({"note": nested(depth)} if depth else {})} for _, depth, _ in items]
    scores = pooled_game24.score_batch(completions, tasks, workers=2)
    for (right, depth, _), score in zip(items, scores):
        if score.is_error:
            assert depth >= 3000 and "cannot be sent" in score.reason
        else:
            assert score.verdict is (Verdict.CORRECT if right else Verdict.INCORRECT)


def test_a_worker_that_answers_for_other_items_is_replaced_and_its_items_are_error():
    """The dispatcher pairs a reply with its chunk by sequence number, never by arrival order."""
    from verifiers.pool import WorkerPool, _Job

    pool = WorkerPool(verifiers.get("game24"), 1, None)
    try:
        pool.run([(0, "Answer: 1", {"numbers": [4, 4, 6, 8]})], None, lambda n: None)
        with pool._lock:  # the dispatcher stops first: it would otherwise race this test for the worker
            pool.closed = True
        pool._wake()
        pool._dispatcher.join(10)
        worker = pool.workers[0]
        chunk = [(7, "Answer: 2", {"numbers": [1, 2, 3, 4]})]
        worker.in_flight.append((999, chunk))  # a chunk it holds first
        pool._job_of[999] = job = _Job(chunk, None, 1)
        assert not pool._accept(worker, (1000, [Score(1.0, Verdict.CORRECT).to_row()]))  # a reply for another
        assert not pool._accept(worker, (999, []))  # or with a row missing
        pool._abandon(worker, None, -1, "answered for other items", rerun=False)
        assert job.out[7].is_error and not worker.process.is_alive()
    finally:
        pool.close()


# ---------------------------------------------------------------------------------------------------- 2. trusted names
# (program, task): each passed as correct before, reading the program's `math` or `SortedList`
SHADOWS = {
    "math.isclose always true": (
        "class math:\n    isclose = staticmethod(lambda *a, **k: True)\ndef area(r):\n    return 0",
        {"test_cases": ["assert math.isclose(area(5), 78.53981633974483, rel_tol=0.001)"]},
    ),
    "math.pi of 3.5": (
        "class math:\n    pi = 3.5\ndef area(r):\n    return 3.5 * r * r",
        {"test_cases": ["assert abs(area(2) - math.pi * 4) < 1e-9", "assert abs(area(1) - math.pi) < 1e-9"]},
    ),
    "a SortedList that never sorts": (
        "class SortedList(list):\n    pass\ndef sort_three(x):\n    return x",
        {"test_cases": ["assert sort_three([3, 1, 2]) == list(SortedList([3, 1, 2]))"]},
    ),
}
HONEST = {
    "math.isclose always true": "import math\ndef area(r):\n    return math.pi * r * r",
    "math.pi of 3.5": "import math\ndef area(r):\n    return math.pi * r * r",
    "a SortedList that never sorts": "def sort_three(x):\n    return sorted(x)",
}


@pytest.mark.parametrize("attack", sorted(SHADOWS))
def test_a_program_cannot_define_the_module_or_class_a_test_reads(backend, attack):
    program, task = SHADOWS[attack]
    v = verifiers.get("code", backend=backend.name)
    try:
        forged = v.score(code_block(program), task)
        honest = v.score(code_block(HONEST[attack]), task)
    finally:
        v.close()
    assert forged.verdict is Verdict.INCORRECT and forged.reward == 0.0, forged.reason
    assert honest.verdict is Verdict.CORRECT, honest.reason


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    module=st.sampled_from(["math", "cmath", "statistics", "operator", "itertools", "string", "fractions", "heapq"]),
    attribute=st.sampled_from(["isclose", "fsum", "pi", "check", "prod"]),
)
def test_no_standard_module_a_test_reads_can_be_shadowed(local_code, module, attribute):
    """Generated: a test that reads `module.attribute`, a program that defines `module` as an object
    that says yes to everything and an entry point that returns nothing: never correct."""
    task = {"test_cases": [f"assert {module}.{attribute}(f(1)) or {module}.{attribute}(f(2))"], "entry_point": "f"}
    program = code_block(
        f"class _Yes:\n    def __getattr__(self, name):\n        return lambda *a, **k: True\n{module} = _Yes()\n"
        "def f(x):\n    return None"
    )
    assert local_code.score(program, task).verdict is not Verdict.CORRECT


@pytest.fixture(scope="module")
def local_code():
    import shutil

    from pytest_plugin.required_parts import require_part

    require_part(lambda: shutil.which("bwrap") is not None, "bubblewrap", "apt-get install bubblewrap")
    v = verifiers.get("code", backend="local")
    yield v
    v.close()


def test_a_name_nothing_provides_is_the_tasks_error_and_a_declared_one_is_the_programs():
    v = verifiers.get("code", backend="local")
    program = code_block("LIMIT = 10\ndef f(x):\n    return min(x, LIMIT)")
    try:
        undeclared = v.score(program, {"test_cases": ["assert f(12) == LIMIT"], "entry_point": "f"})
        declared = v.score(
            program, {"test_cases": ["assert f(12) == LIMIT"], "entry_point": "f", "program_names": ["LIMIT"]}
        )
    finally:
        v.close()
    assert undeclared.is_error and "`LIMIT`" in undeclared.reason and undeclared.info["task_error"]
    assert declared.verdict is Verdict.CORRECT


# ---------------------------------------------------------------------------------------------------- 3. warm sandboxes
LEAVE_SEGMENTS = """
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
libc.shmget.argtypes = [ctypes.c_int, ctypes.c_size_t, ctypes.c_int]
libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
libc.shmat.restype = ctypes.c_void_p
libc.shmdt.argtypes = [ctypes.c_void_p]
for k in range(3):  # 600 MB of SysV segments, touched and left behind
    ident = libc.shmget(0x1000 + k, 200 << 20, 0o1000 | 0o666)
    addr = libc.shmat(ident, None, 0)
    if addr not in (None, ctypes.c_void_p(-1).value):
        ctypes.memset(addr, 1, 200 << 20)
        libc.shmdt(addr)
class Message(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_long), ("text", ctypes.c_char * 64)]
libc.msgsnd(libc.msgget(0x2000, 0o1000 | 0o666), ctypes.byref(Message(1, b"from the last job")), 64, 0)
def f(x):
    return x + 1
"""
READ_MESSAGE = """
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
class Message(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_long), ("text", ctypes.c_char * 64)]
queue, message = libc.msgget(0x2000, 0o666), Message()
HEARD = queue >= 0 and libc.msgrcv(queue, ctypes.byref(message), 64, 0, 0o4000) > 0
def f(x):
    return "heard the last job" if HEARD else x + 1
"""
USE_200_MB = """
def f(x):
    data = bytearray(200 << 20)
    data[::4096] = b"x" * len(data[::4096])
    return x + 1
"""
POSIX_QUEUE = """
import ctypes
made = ctypes.CDLL("librt.so.1", use_errno=True).mq_open(b"/evalkit-left", 0o100 | 2, 0o666, None) >= 0
def f(x):
    return "made a queue" if made else x + 1
"""

ADD_KEY = """
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall({add_key}, b"user", b"evalkit-left", b"from the last job", 17, -4)  # to the user's keyring
def f(x):
    return x + 1
"""
READ_KEY = """
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
key = libc.syscall({keyctl}, 10, -4, b"user", b"evalkit-left", 0)  # KEYCTL_SEARCH the user's keyring
text = ctypes.create_string_buffer(64)
HEARD = key > 0 and libc.syscall({keyctl}, 11, key, text, 64) > 0  # KEYCTL_READ
def f(x):
    return "heard the last job" if HEARD else x + 1
"""


# every writable filesystem the program sees (from its own mount table, not a list of ours): a marker
# in each directory it may write; the next job looks for any
WRITABLE_DIRS = """
import os
def writable_dirs():
    with open("/proc/self/mountinfo") as fh:
        mounts = {line.split()[4] for line in fh if "rw" in line.split()[5].split(",")}
    for top in sorted(m for m in mounts if not m.startswith(("/proc", "/sys"))):
        for root, _dirs, _files in os.walk(top):
            yield root
"""
LEAVE_FILES = (
    WRITABLE_DIRS
    + """
LEFT = []
for d in writable_dirs():
    try:
        with open(os.path.join(d, ".evalkit-left"), "w") as fh:
            fh.write("from the last job")
        LEFT.append(d)
    except OSError:
        pass
def f(x):
    return x + 1
"""
)
FIND_FILES = (
    WRITABLE_DIRS
    + """
FOUND = [d for d in writable_dirs() if os.path.exists(os.path.join(d, ".evalkit-left"))]
def f(x):
    return f"found {FOUND}" if FOUND else x + 1
"""
)


def key_store_programs() -> list[tuple[str, str]]:
    """A job that leaves a key in its user's kernel keyring, and one that reads it back."""
    import platform

    from sandboxes.seccomp import SYSCALLS

    numbers = SYSCALLS[platform.machine()][1]
    add_key, keyctl = numbers["add_key"], numbers["keyctl"]
    return [("leaves a key", ADD_KEY.format(add_key=add_key)), ("reads the key", READ_KEY.format(keyctl=keyctl))]


def test_nothing_of_a_job_survives_into_the_next_one(backend):
    """Segments of 600 MB left by a correct program made every later 200 MB program a memory-limit
    failure, and a message written by one job was read by the next; a key added to the kernel's
    keyring (a store of the user id, not of any process) was read by the next job on bubblewrap, and
    so was a file left in bubblewrap's /dev (a tmpfs the clean-up did not empty). Ten CPU seconds a
    test: writing 600 MB outlasted the default 2 (a 4 s clock) on a busy 2-core machine, and what is
    tested here is what the next job finds, not how fast the first one ran."""
    v = verifiers.get("code", backend=backend.name, pool_size=1, cpu_seconds=10)
    try:
        verdicts = {
            name: v.score(code_block(source), TASK).verdict.value
            for name, source in [
                ("leaves segments", LEAVE_SEGMENTS),
                ("reads the message", READ_MESSAGE),
                ("uses 200 MB", USE_200_MB),
                ("makes a POSIX queue", POSIX_QUEUE),
                ("uses 200 MB again", USE_200_MB),
                *key_store_programs(),
                ("leaves a file wherever it may write", LEAVE_FILES),
                ("finds a file from the last job", FIND_FILES),
            ]
        }
    finally:
        v.close()
    assert verdicts == dict.fromkeys(verdicts, "correct")


LOWER_EVERY_LIMIT = """
import os, resource
for pid in (int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid()):
    for limit, value in ((resource.RLIMIT_AS, 60 << 20), (resource.RLIMIT_NOFILE, 8), (resource.RLIMIT_FSIZE, 1)):
        try:  # the runner's, the zygote's and the judge's: the same user, and no ptrace check on this call
            resource.prlimit(pid, limit, (value, value))
        except OSError:
            pass
    for change in (lambda: os.setpriority(os.PRIO_PROCESS, pid, 19), lambda: os.sched_setaffinity(pid, {0})):
        try:
            change()
        except OSError:
            pass
def f(x):
    return x + 1
"""
USE_MEMORY_AND_FILES = """
def f(x):
    data = bytearray(150 << 20)
    data[::4096] = b"x" * len(data[::4096])
    with open("/tmp/scratch", "w") as fh:
        fh.write("a line")
    return x + 1
"""


def test_a_job_cannot_lower_what_later_jobs_get(backend):
    """One job lowered the address-space, file and open-file hard limits of every process of its
    user (the zygote and the runner among them): every later honest program of the warm sandbox,
    forked from that zygote, failed. No candidate reaches another process's settings any more."""
    v = verifiers.get("code", backend=backend.name, pool_size=1)
    try:
        verdicts = [
            v.score(code_block(source), TASK).verdict.value
            for source in (USE_MEMORY_AND_FILES, LOWER_EVERY_LIMIT, USE_MEMORY_AND_FILES, USE_MEMORY_AND_FILES)
        ]
    finally:
        v.close()
    assert verdicts == ["correct"] * 4


OTHER_PROCESS_CALLS = """
import os, resource, sys
sys.path.insert(0, "sandboxes")
import seccomp
assert seccomp.install_sandbox_filter()
parent = os.getppid()
calls = {
    "prlimit": (lambda pid: resource.prlimit(pid, resource.RLIMIT_NOFILE, (400, 1024))),
    "setpriority": (lambda pid: os.setpriority(os.PRIO_PROCESS, pid, 5)),
    "affinity": (lambda pid: os.sched_setaffinity(pid, os.sched_getaffinity(0))),
    "scheduler": (lambda pid: os.sched_setscheduler(pid, os.SCHED_OTHER, os.sched_param(0))),
    "sched_param": (lambda pid: os.sched_setparam(pid, os.sched_param(0))),
}
for name, call in calls.items():
    call(0)  # this process itself: allowed
    try:
        call(parent)
        print(name, "reached another process")
    except PermissionError:
        pass
for name, call in {"whole user": lambda: os.setpriority(os.PRIO_USER, 0, 5)}.items():
    try:
        call()
        print(name, "reached another process")
    except PermissionError:
        pass
import ctypes
print("keyring", "refused" if ctypes.CDLL(None).syscall(250, 0, -4, 0, 0, 0) == -1 else "open")
"""


def test_the_sandbox_filter_lets_a_process_change_only_itself():
    """The seccomp filter the runner installs, in a plain process: each call that changes a
    process's settings works on the caller and fails with EPERM on its parent; key stores are closed."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(verifiers.__file__).parent.parent
    done = subprocess.run([sys.executable, "-c", OTHER_PROCESS_CALLS], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout == "keyring refused\n", done.stdout + done.stderr


def test_the_docker_runner_talks_over_a_channel_only_it_could_open(docker_backend, monkeypatch):
    """A warm container's runner talks to the host over a unix socket (not the `docker exec` stream
    the daemon relays): the host accepted its one connection, then removed the listener before any
    job came in; a peer of another user than the runner's (the sandbox user, as job code runs) is
    refused even where it reaches the socket (the channel's folder keeps it out as well)."""
    import socket

    from sandboxes import docker_pool

    v = verifiers.get("code", backend="docker", pool_size=1)  # docker_backend: a skip outside CI without Docker
    try:
        assert v.score(code_block("def f(x):\n    return x + 1"), TASK).verdict is Verdict.CORRECT
        backend = v.backend()
        (session,) = backend._sessions.values()
        assert session.frames is None and session.sock is not session.stream  # the channel, not the stream
        assert [os.listdir(folder) for folder in backend._channels.values()] == [[]]
    finally:
        v.close()
    monkeypatch.setattr(docker_pool, "CHANNEL_SECONDS", 1.0)
    folder = docker_pool._channel_dir()
    listener, path = docker_pool._listen(folder)
    os.chmod(folder, 0o755)  # let the peer reach the socket, so that its user is what refuses it
    child = os.fork()
    if child == 0:  # a peer as the sandbox user (where the test runs as root), else as the test's user
        try:
            if os.getuid() == 0:
                os.setgid(int(docker_pool.SANDBOX_UID))
                os.setuid(int(docker_pool.SANDBOX_UID))
            socket.socket(socket.AF_UNIX).connect(path)  # a connection made stays in the backlog
        finally:
            os._exit(0)
    os.waitpid(child, 0)
    assert docker_pool._accept_runner(listener, path) is None and not os.path.exists(path)
    os.rmdir(folder)


def test_a_clean_sandbox_serves_the_next_job_and_one_whose_memory_is_not_back_is_replaced(monkeypatch):
    """The local backend keeps a sandbox warm only when its runner is serving and its cgroup's shared
    memory is back at the baseline (a check that once kept the dirty ones and replaced the clean)."""
    from sandboxes.local import LocalBackend, _Sandbox
    from sandboxes.suite import Test, run_tests

    local = LocalBackend()
    tests = [Test("call", "f(1)", 2)]
    try:
        for _ in range(3):
            assert run_tests(local, "def f(x):\n    return x + 1", tests, entry_point="f").passed == 1
        assert len(local._open) == 1  # one sandbox served all three jobs
        warm = next(iter(local._open))
        monkeypatch.setattr(_Sandbox, "clean", lambda self: False)  # as if a job's segments stayed charged
        assert run_tests(local, "def f(x):\n    return x + 1", tests, entry_point="f").passed == 1
        assert warm.closed and warm not in local._open and not any(local._idle.values())
    finally:
        local.close()


OPEN_OTHER_FDS = """
import os
def f(x):
    opened = []
    for pid in (p for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid()):
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            for mode in ("rb", "wb"):
                try:
                    open(f"/proc/{pid}/fd/{fd}", mode).close()
                    opened.append(f"{pid}/{fd} {mode}")
                except OSError:
                    pass
    return opened
"""


def test_no_program_opens_a_descriptor_of_another_process_in_its_sandbox(backend):
    """bubblewrap's own init (pid 1, dumpable) held the host's job and record pipes: a program
    could read the nonce off the record pipe and write forged records into it. The runner is now
    pid 1 itself; every process that holds a channel is not dumpable."""
    v = verifiers.get("code", backend=backend.name, pool_size=1)
    try:
        score = v.score(code_block(OPEN_OTHER_FDS), {"test_cases": ["assert f(1) == []"], "entry_point": "f"})
    finally:
        v.close()
    assert score.verdict is Verdict.CORRECT, score.info.get("failures")


# ---------------------------------------------------------------------------------------------------- 4. text is data
SURROGATE = code_block('def f(x):\n    raise ValueError("\\ud800")')


def test_a_lone_surrogate_in_an_exception_costs_its_item_only(tmp_path):
    v = verifiers.get("code", backend="local")
    try:
        scores = v.score_batch([SURROGATE, RIGHT, RIGHT], [TASK] * 3, workers=1, cache=tmp_path / "cache.sqlite")
        again = v.score_batch([SURROGATE, RIGHT, RIGHT], [TASK] * 3, workers=1, cache=tmp_path / "cache.sqlite")
    finally:
        v.close()
    assert [s.verdict.value for s in scores] == ["incorrect", "correct", "correct"] == [s.verdict.value for s in again]
    json.dumps(scores[0].to_dict(), ensure_ascii=False).encode("utf-8")  # valid UTF-8 all through
    assert "\\ud800" in " ".join(scores[0].info["failures"])


# ---------------------------------------------------------------------------------------------------- the server
@pytest.fixture(scope="module")
def code_server():
    from bench.bench_server import serving
    from evalkit.server import ServerLimits, create_app

    served = {
        "code": ("code", {"backend": "local"}),
        "slow-code": ("code", {"backend": "local", "cpu_seconds": 10.0, "timeout_budget_seconds": 30.0}),
        "game24": ("game24", {}),
    }
    limits = ServerLimits(timeout=None, body_seconds=2.0, max_waiting=16, max_admitted_bytes=4 << 20)
    app = create_app(served, limits, workers=1, allow_client_config=True)
    with serving(app) as url:
        yield url, app.state.service


def item(completion: str, task: dict = TASK) -> dict:
    return {"completion": completion, "task": task}


def test_the_server_answers_an_unsendable_task_400_and_pairs_every_later_reward(code_server):
    url, _ = code_server
    task = json.dumps({**TASK, "x": []})[:-3] + "[" * 495 + "]" * 495 + "}"  # parses, cannot be pickled
    body = '{"verifier": "code", "items": [{"completion": %s, "task": %s}]}' % (json.dumps(RIGHT), task)
    deep = httpx.post(f"{url}/score", content=body, headers={"content-type": "application/json"})
    assert deep.status_code == 400 and "nested" in deep.json()["error"]
    for _ in range(3):
        r = httpx.post(
            f"{url}/score",
            json={"verifier": "code", "items": [item(c) for c in (WRONG, RIGHT, RIGHT, WRONG)]},
            timeout=120,
        )
        assert r.status_code == 200 and [s["reward"] for s in r.json()["scores"]] == [0.0, 1.0, 1.0, 0.0]
    o = httpx.post(
        f"{url}/openrlhf?verifier=code",
        json={"query": ["p" + WRONG, "p" + RIGHT], "prompts": ["p", "p"], "labels": [json.dumps(TASK)] * 2},
        timeout=120,
    )
    assert o.status_code == 200 and o.json()["rewards"] == [0.0, 1.0]


def test_the_operators_timeout_returns_what_was_scored_and_the_rest_as_not_scored_errors():
    from bench.bench_server import serving
    from evalkit.server import ServerLimits, create_app

    served = {"slow-code": ("code", {"backend": "local", "cpu_seconds": 10.0, "timeout_budget_seconds": 30.0})}
    with serving(create_app(served, ServerLimits(timeout=6.0), workers=2)) as url:
        start = time.monotonic()
        r = httpx.post(
            f"{url}/score",
            json={"verifier": "slow-code", "items": [item(c) for c in (RIGHT, LOOP, RIGHT)]},
            timeout=120,
        )
        took = time.monotonic() - start
    assert r.status_code == 200 and took < 30
    verdicts = [s["verdict"] for s in r.json()["scores"]]
    assert verdicts == ["correct", "error", "correct"], r.json()  # we did not score it: never a wrong answer's 0.0
    assert "not scored" in r.json()["scores"][1]["reason"] and "deadline of 6 s" in r.json()["scores"][1]["reason"]


def test_the_default_deadline_follows_the_batch():
    """A flat 60 s lost every reward of 40 looping and 8 correct programs; the default now covers each
    item's worst case on every round of the workers, for every request that may share them."""
    from evalkit.server import RewardService, ServerLimits

    service = RewardService({"code": ("code", {"backend": "local"})}, ServerLimits(), workers=2)
    try:
        v = service._served_verifier("code")
        deadline = service.deadline_for(v, 48)
        assert deadline.seconds >= v.time_budget() * math.ceil(48 / 2)
        assert service.deadline_for(v, 1).seconds < deadline.seconds
    finally:
        service.close()


def test_openrlhf_honours_the_servers_workers(code_server):
    from verifiers.batch import pools_for

    url, service = code_server
    o = httpx.post(
        f"{url}/openrlhf?verifier=code",
        json={"query": ["p" + RIGHT] * 3, "prompts": ["p"] * 3, "labels": [json.dumps(TASK)] * 3},
        timeout=120,
    )
    assert o.status_code == 200
    assert {key[0] for key in pools_for(service._served_verifier("code"))} == {1}  # one worker, as --workers 1


def test_a_client_that_goes_away_frees_its_scoring_capacity():
    """A request whose client gave up kept its slot and thread until its work ended; now the work is
    cancelled once the client disconnects, so the next request is scored at once."""
    from bench.bench_server import serving
    from evalkit.server import ServerLimits, create_app

    served = {
        "slow-code": ("code", {"backend": "local", "cpu_seconds": 20.0, "timeout_budget_seconds": 60.0}),
        "game24": ("game24", {}),
    }
    with serving(create_app(served, ServerLimits(concurrency=1), workers=1)) as url:
        with pytest.raises(httpx.TimeoutException):
            httpx.post(f"{url}/score", json={"verifier": "slow-code", "items": [item(LOOP)]}, timeout=2.0)
        start = time.monotonic()
        r = httpx.post(
            f"{url}/score",
            json={"verifier": "game24", "items": [{"completion": "Answer: 1", "task": {"numbers": [1, 2, 3, 4]}}]},
            timeout=60,
        )
        assert r.status_code == 200 and time.monotonic() - start < 10


def test_one_request_per_sample_clients_lose_no_reward():
    """OpenRLHF's client sends one sample per request and tries five times, a second apart: with one
    looping sample among 300, 158 went without a reward at the default settings."""

    async def one(url: str, k: int) -> float | None:
        """As OpenRLHF's `_post_request` does: a new connection for each try, any failed try
        (a refusal or a dropped connection) retried a second later."""
        body = {"query": ["p" + (LOOP if k == 0 else RIGHT)], "prompts": ["p"], "labels": [json.dumps(TASK)]}
        for _ in range(5):
            try:
                async with httpx.AsyncClient(timeout=300) as http:
                    r = await http.post(f"{url}/openrlhf?verifier=code", json=body)
                if r.status_code == 200:
                    return r.json()["rewards"][0]
            except httpx.TransportError:
                pass
            await asyncio.sleep(1.0)
        return None

    async def everyone(url: str) -> list[float | None]:
        return await asyncio.gather(*(one(url, k) for k in range(300)))

    from bench.bench_server import serving
    from evalkit.server import ServerLimits, create_app

    with serving(create_app({"code": ("code", {"backend": "local"})}, ServerLimits(), workers=2)) as url:
        rewards = asyncio.run(everyone(url))
    assert rewards == [0.0] + [1.0] * 299


# ---------------------------------------------------------------------------------------------------- 6. client configs
WIDENINGS = {
    "backend": {"backend": "unconfined"},
    "packages": {"packages": ["evalkit"]},
    "cpu_seconds": {"cpu_seconds": 3600},
    "memory_mb": {"memory_mb": -1},
    "wall_seconds": {"wall_seconds": float("nan")},
    "max_processes": {"max_processes": 100_000},
    "pool_size": {"pool_size": 5},
    "max_tests": {"max_tests": 0},
}


@pytest.mark.parametrize("field", sorted(WIDENINGS))
def test_a_client_config_may_only_narrow_the_served_one(code_server, field):
    url, _ = code_server
    body = json.dumps({"verifier": "code", "config": WIDENINGS[field], "items": [item(RIGHT)]})  # NaN as JSON allows
    r = httpx.post(f"{url}/score", content=body, headers={"content-type": "application/json"}, timeout=60)
    assert r.status_code == 403 and field in r.json()["error"], r.text


def test_a_narrower_client_config_is_served(code_server):
    url, _ = code_server
    config = {"cpu_seconds": 1.0, "max_tests": 2, "reward": "discrete", "packages": []}
    r = httpx.post(f"{url}/score", json={"verifier": "code", "config": config, "items": [item(RIGHT)]}, timeout=120)
    assert r.status_code == 200 and r.json()["scores"][0]["reward"] == pytest.approx(1.1)


# ---------------------------------------------------------------------------------------------------- 7. read, then admit
def _open_endless_body(url: str) -> socket.socket:
    host, port = url.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)))
    sock.sendall(
        b"POST /score HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"1\r\n{\r\n"
    )
    return sock


def test_bodies_that_never_end_take_no_place_in_the_queue(code_server):
    url, _ = code_server
    stalled = [_open_endless_body(url) for _ in range(40)]  # past max_waiting (16) + concurrency (4)
    try:
        r = httpx.post(f"{url}/score", json={"verifier": "game24", "items": []}, timeout=30)
        assert r.status_code == 200
        stalled[0].settimeout(10)
        answer = stalled[0].recv(4096)
        assert b" 408 " in answer.split(b"\r\n")[0] and b"did not arrive" in answer
    finally:
        for sock in stalled:
            sock.close()


def test_admitted_bytes_are_bounded(code_server):
    url, service = code_server
    big = {"verifier": "game24", "items": [{"completion": "x" * 1_500_000, "task": {"numbers": [1]}}]}
    service.admitted_bytes += 3 << 20  # as if three such requests were waiting for a slot
    try:
        r = httpx.post(f"{url}/score", json=big, timeout=30)
    finally:
        service.admitted_bytes -= 3 << 20
    assert r.status_code == 429 and "bytes" in r.json()["error"]


# ---------------------------------------------------------------------------------------------------- 8. smaller ones
@pytest.mark.parametrize(
    "body, status, words",
    [
        (b"[" * 100_000 + b"]" * 100_000, 413, "too many for the body's size"),  # refused before parsing
        (
            b'{"verifier": "game24", "items": ' + b"[" * 5000 + b'"' + b"x" * 40_000 + b'"' + b"]" * 5000 + b"}",
            400,
            "nested too deeply",
        ),
        (b'{"verifier": "game24", "items": [], "n": ' + b"7" * 5000 + b"}", 400, "malformed JSON"),
        (json.dumps({"verifier": "k" * 1_000_000, "items": []}).encode(), 404, "..."),
    ],
    ids=["100k deep", "5000 deep", "5000-digit integer", "1 MB key"],
)
def test_malformed_bodies_get_one_line_of_json(code_server, body, status, words):
    url, _ = code_server
    r = httpx.post(f"{url}/score", content=body, headers={"content-type": "application/json"}, timeout=30)
    assert r.status_code == status and words in r.json()["error"] and len(r.text) < 1000


def test_no_route_answers_without_the_token_and_a_repeated_key_is_refused(code_server):
    url, service = code_server
    assert httpx.get(f"{url}/docs").status_code == 404 and httpx.get(f"{url}/openapi.json").status_code == 404
    twice = httpx.post(f"{url}/openrlhf?verifier=game24&verifier=code", json={"query": [], "prompts": [], "labels": []})
    assert twice.status_code == 400 and "more than once" in twice.json()["error"]
    assert service.metrics.latencies.maxlen == 1000


@pytest.mark.parametrize(
    "method, path",
    [("GET", "/score"), ("DELETE", "/openrlhf"), ("GET", "/" + "k" * 5000)],
    ids=["GET /score", "DELETE /openrlhf", "a 5000-character path"],
)
def test_an_unknown_route_or_method_gets_one_line_of_json(code_server, method, path):
    """Not FastAPI's `{"detail": ...}`: every refusal has the documented shape, the path cut short."""
    url, _ = code_server
    r = httpx.request(method, url + path, timeout=30)
    assert r.status_code in (404, 405) and r.json()["error"].startswith(method) and len(r.text) < 1000, r.text


@pytest.mark.parametrize(
    "path", ["/score?verifier=code", "/score?workers=8", "/openrlhf?verifier=code&timeout=999"], ids=str
)
def test_a_query_parameter_a_route_does_not_read_is_refused(code_server, path):
    """`/score` takes its verifier from the body: `?verifier=code` there was ignored, and the items
    scored by the body's verifier (game24 by default), a swapped reward with a 200."""
    url, _ = code_server
    body = {"items": [], "query": [], "prompts": [], "labels": []}
    r = httpx.post(url + path, json=body, timeout=30)
    assert r.status_code == 400 and "unknown query parameter" in r.json()["error"], r.text


def test_a_body_key_the_route_does_not_read_is_refused(code_server):
    """A misspelt `verifier` would score with the default one."""
    url, _ = code_server
    r = httpx.post(f"{url}/score", json={"verifer": "code", "items": []}, timeout=30)
    assert r.status_code == 400 and "unknown key 'verifer'" in r.json()["error"], r.text


@pytest.mark.parametrize(
    "body",
    [
        '{"verifier": "game24", "verifier": "code", "items": []}',
        '{"verifier": "game24", "items": [{"completion": "x", "task": {"numbers": [1, 2, 3, 4], "numbers": [4, 4, 6, 8]}}]}',
    ],
)
def test_a_key_given_twice_in_a_body_is_refused(code_server, body):
    """As with a repeated `?verifier=`: a gateway that reads the first of two keys would check one
    verifier or task while the server, reading the last, scored another."""
    url, _ = code_server
    r = httpx.post(f"{url}/score", content=body, headers={"content-type": "application/json"})
    assert r.status_code == 400 and "appears twice" in r.json()["error"], r.text


class _Loud(Verifier):
    """A third-party verifier whose reason carries a lone surrogate: the server still answers JSON."""

    name = "loud-red-team"

    def evaluate(self, completion, task):
        return Score(1.0, Verdict.CORRECT, reason="\ud800")


def test_a_reason_no_encoder_writes_still_answers_200():
    from bench.bench_server import serving
    from evalkit.server import create_app

    verifiers.register("loud-red-team")(_Loud)
    with serving(create_app({"loud": ("loud-red-team", {})}, workers=0)) as url:
        r = httpx.post(f"{url}/score", json={"verifier": "loud", "items": [{"completion": "x", "task": {}}] * 10})
    assert r.status_code == 200 and [s["reward"] for s in r.json()["scores"]] == [1.0] * 10

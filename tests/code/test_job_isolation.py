"""A judge no job can reach (sandboxes/README-style invariants in docs/code_sandbox.md, "Trust
boundaries"): whatever one job's code does, the task's setup (run by the judge) or the program (run
by candidates), the next job on the same warm sandbox gets the verdicts it gets on a fresh one; and a
reply, record or name that a process running job code injects never changes a verdict.

Attacks from the red team of issue 52 are replayed one by one, then drawn together by hypothesis
(jobs A, then B) on both backends."""

from __future__ import annotations

import os
import threading
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_plugin.required_parts import require_part
from sandboxes.base import Limits
from sandboxes.suite import Test, run_tests
from sandboxes.users import one_user_reason

LIMITS = Limits(cpu_seconds=1.0, timeout_budget_seconds=2.0)
TESTS = [Test("call", f"f({i})", i + 1) for i in range(3)]
RIGHT = "def f(x):\n    return x + 1\n"
WRONG = "def f(x):\n    return x\n"

# --- hostile task setups: run by the judge, before the tests of job A -------------------------
STOP_THE_RUNNER = "import os, signal\nfor sig in (signal.SIGSTOP, signal.SIGKILL):\n    os.kill(os.getppid(), sig)\n"
SIGNAL_EVERYONE = "import os, signal\nos.kill(-1, signal.SIGSTOP)\n"
SIGNAL_THE_RUNNERS_GROUP = "import os, signal\nos.killpg(os.getpgid(os.getppid()), signal.SIGSTOP)\n"
FORGE_DONE = (
    "import os\n"
    "for fd in range(64):\n"
    "    for line in (b'{\"done\": true}\\n', b'EVALKIT-0 {\"done\": true}\\n'):\n"
    "        try:\n"
    "            os.write(fd, line)\n"
    "        except OSError:\n"
    "            pass\n"
)
READ_LATER_JOBS = (  # a daemon that keeps the runner's descriptors and reads what comes next
    "import os, time\n"
    "if os.fork() == 0:\n"
    "    os.setsid()\n"
    "    for fd in range(64):\n"
    "        try:\n"
    "            os.set_blocking(fd, False)\n"
    "            os.read(fd, 1 << 16)\n"
    "        except OSError:\n"
    "            pass\n"
    "    time.sleep(30)\n"
    "    os._exit(0)\n"
)
MESSAGE_QUEUE = (  # a POSIX message queue the next job could read
    "import ctypes\n"
    "rt = ctypes.CDLL('librt.so.1', use_errno=True)\n"
    "MADE = rt.mq_open(b'/evalkit-left', 0o100 | 2, 0o666, None)\n"
)
HOSTILE_SETUPS = {
    "stops the runner": STOP_THE_RUNNER,
    "signals every process": SIGNAL_EVERYONE,
    "signals the runner's group": SIGNAL_THE_RUNNERS_GROUP,
    "forges done lines on every fd": FORGE_DONE,
    "keeps a daemon reading the runner's fds": READ_LATER_JOBS,
    "makes a POSIX message queue": MESSAGE_QUEUE,
}

# --- hostile programs: run by candidates of job A ---------------------------------------------
SPINNERS = (  # children that leave the candidate's group and spin
    "import os\n"
    "for _ in range(3):\n"
    "    if os.fork() == 0:\n"
    "        os.setsid()\n"
    "        while True:\n"
    "            pass\n"
    "def f(x):\n    return x + 1\n"
)
PROC_WRITES = (  # the runner's autogroup (nice 19) and OOM score, which would outlive the job
    "import os\n"
    "for pid in (1, os.getppid()):\n"
    "    for name, value in (('autogroup', '19'), ('oom_score_adj', '1000')):\n"
    "        try:\n"
    "            open(f'/proc/{pid}/{name}', 'w').write(value)\n"
    "        except OSError:\n"
    "            pass\n"
    "def f(x):\n    return x + 1\n"
)
NEW_USER_NAMESPACE = (
    "import ctypes\n"
    "UNSHARED = ctypes.CDLL(None, use_errno=True).unshare(0x10000000)\n"
    "def f(x):\n    return x + 1 if UNSHARED != 0 else 'unshared'\n"
)
SIGNAL_PARENTS = (
    "import os, signal\n"
    "for target in (os.getppid(), 1, -1):\n"
    "    try:\n"
    "        os.kill(target, signal.SIGSTOP)\n"
    "    except OSError:\n"
    "        pass\n"
    "def f(x):\n    return x + 1\n"
)
HOSTILE_PROGRAMS = {
    "spinning children outside its group": SPINNERS,
    "writes the runner's /proc files": PROC_WRITES,
    "makes a user namespace": NEW_USER_NAMESPACE,
    "signals its parent, init and everyone": SIGNAL_PARENTS,
}

# a wrong program that answers the judge's request for names with extra ones (`math`, whose
# `isclose` always agrees): it rewrites its own side of the exchange
INJECTS_NAMES = """
import __main__
_answer = __main__.answer
class fake_math:
    @staticmethod
    def isclose(*args, **kwargs):
        return True
def answer(objects, namespace, request):
    if request.get("op") == "globals":
        request = dict(request, names=list(request["names"]) + ["math", "abs", "set"])
        namespace.setdefault("math", fake_math)
    return _answer(objects, namespace, request)
__main__.answer = answer
def f(x):
    return -1
"""


def verdicts(backend, program, judge_setup=None):
    result = run_tests(backend, program, TESTS, LIMITS, entry_point="f", judge_setup=judge_setup)
    assert result.sandbox_error is None, result.sandbox_error
    return [o.verdict.value for o in result.outcomes]


EXPECTED = {RIGHT: ["pass"] * 3, WRONG: ["wrong_answer"] * 3}


@pytest.mark.parametrize("attack", sorted(HOSTILE_SETUPS))
def test_a_hostile_task_setup_leaves_the_next_job_as_a_fresh_sandbox_would(one_sandbox, attack):
    run_tests(one_sandbox, RIGHT, TESTS, LIMITS, entry_point="f", judge_setup=HOSTILE_SETUPS[attack])
    for program, expected in EXPECTED.items():
        assert verdicts(one_sandbox, program) == expected, attack


@pytest.mark.parametrize("attack", sorted(HOSTILE_PROGRAMS))
def test_a_hostile_program_leaves_the_next_job_as_a_fresh_sandbox_would(one_sandbox, attack):
    assert verdicts(one_sandbox, HOSTILE_PROGRAMS[attack]) == ["pass"] * 3, attack  # each attempt refused
    for program, expected in EXPECTED.items():
        assert verdicts(one_sandbox, program) == expected, attack


def test_a_reply_with_names_not_asked_for_never_passes_a_wrong_program(one_sandbox):
    tests = [Test("exec", "assert math.isclose(f(1), 2.0)", None), Test("exec", "assert abs(f(2)) == 3", None)]
    result = run_tests(one_sandbox, INJECTS_NAMES, tests, LIMITS)  # no entry point: `f` is asked for by name
    assert [o.verdict.value for o in result.outcomes] != ["pass", "pass"]
    assert all(o.verdict.value != "pass" for o in result.outcomes), result.outcomes


@pytest.mark.parametrize("name", ["sum", "max", "pow"])
def test_a_function_under_test_named_like_a_builtin_is_the_programs(one_sandbox, name):
    """`pass` is not a solution of a task that asks for `sum`: the builtin never answers for the
    program, by entry point or in an assert list that calls nothing else."""
    calls = {"sum": ("[1, 2, 3]", 6), "max": ("[4, 9, 2]", 9), "pow": ("2, 5", 32)}
    args, expected = calls[name]
    tests = [Test("call", f"{name}({args})", expected)]
    right = f"import builtins\n{name} = builtins.{name}\n"
    for entry in (name, None):
        empty = run_tests(one_sandbox, "pass", tests, LIMITS, entry_point=entry).outcomes
        assert [o.verdict.value for o in empty] != ["pass"], (entry, empty)
        assert [o.verdict.value for o in run_tests(one_sandbox, right, tests, LIMITS, entry_point=entry).outcomes] == [
            "pass"
        ]
    asserts = [Test("exec", f"assert {name}({args}) == {expected}", None)]
    assert run_tests(one_sandbox, "pass", asserts, LIMITS).outcomes[0].verdict.value != "pass"


JOBS_A = st.one_of(
    st.sampled_from(sorted(HOSTILE_SETUPS)).map(lambda k: (RIGHT, HOSTILE_SETUPS[k])),
    st.sampled_from(sorted(HOSTILE_PROGRAMS)).map(lambda k: (HOSTILE_PROGRAMS[k], None)),
    st.just((INJECTS_NAMES, None)),
)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(jobs_a=st.lists(JOBS_A, min_size=1, max_size=3), program_b=st.sampled_from([RIGHT, WRONG]))
def test_job_b_after_any_hostile_jobs_gets_its_fresh_verdicts(one_sandbox, jobs_a, program_b):
    """The class, not the list: any sequence of hostile jobs, then B on the same warm sandbox."""
    for program, judge_setup in jobs_a:
        run_tests(one_sandbox, program, TESTS, LIMITS, entry_point="f", judge_setup=judge_setup)
    assert verdicts(one_sandbox, program_b) == EXPECTED[program_b]


# what the program sees of the sandbox's processes: its own uid, the uid of the runner (alone of the
# processes with the runner's command line, its judge among them, it has no parent among them), and
# the uids of the zygote and the candidates forked from it
WHO_RUNS_WHAT = """
import os
def f(x):
    found = {}
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                status = dict(l.split(":", 1) for l in open(f"/proc/{p}/status").read().splitlines() if ":" in l)
                cmd = open(f"/proc/{p}/cmdline", "rb").read().split(b"\\0")
            except OSError:
                continue
            kind = "serving" if b"--serve" in cmd else "zygote" if b"--zygote" in cmd else None
            if kind:
                found.setdefault(kind, []).append((int(status["PPid"]), int(status["Uid"].split()[0]), int(p)))
    serving = {pid for _parent, _uid, pid in found.get("serving", [])}
    runner = [uid for parent, uid, _pid in found.get("serving", []) if parent not in serving]
    zygote = sorted({uid for _parent, uid, _pid in found.get("zygote", [])})  # and candidates forked from it
    if x == 0:
        return os.getuid()
    return runner if x == 1 else zygote
"""
SIGNAL_AND_WRITE_THE_RUNNER = """
import errno, os, signal
def f(x):
    runner = None
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                cmd = open(f"/proc/{p}/cmdline", "rb").read().split(b"\\0")
                status = dict(l.split(":", 1) for l in open(f"/proc/{p}/status").read().splitlines() if ":" in l)
            except OSError:
                continue
            if b"--serve" in cmd and int(status["Uid"].split()[0]) != os.getuid():
                runner = int(p)
    if runner is None:
        return "no runner of another user"
    out = []
    try:  # (bubblewrap's /proc is also read-only: EROFS comes before the user is checked)
        open(f"/proc/{runner}/oom_score_adj", "w").write("1000")
        out.append("wrote")
    except OSError as exc:
        out.append("refused" if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS) else repr(exc))
    try:  # a process of the runner's own user may list a non-dumpable one's descriptors; another may not
        out.append(f"listed {len(os.listdir(f'/proc/{runner}/fd'))} descriptors")
    except PermissionError:
        out.append("refused")
    try:
        os.kill(runner, signal.SIGCONT)
        out.append("signalled")
    except PermissionError:
        out.append("refused")
    return out
"""


def test_the_runner_is_another_user_than_any_job_code(one_sandbox):
    """Trust boundary 1 by construction, on both backends: the runner (the sandbox's root, with only
    the capabilities to change user, to signal and to clean up) never shares a user with the judge,
    the zygote or a candidate, so job code can neither signal it nor write its /proc files, whatever
    the seccomp filter would also refuse. Under bubblewrap this needs a host that may map a second
    uid (root); elsewhere the backend says so once, and this test is skipped (never in CI)."""
    from sandboxes.users import RUNNER_UID, SANDBOX_UID

    if one_sandbox.name == "local":
        require_part(lambda: one_user_reason() is None, "a host that may map a second uid", "run as root")
    tests = [
        Test("call", "f(0)", int(SANDBOX_UID)),
        Test("call", "f(1)", [int(RUNNER_UID)]),
        Test("call", "f(2)", [int(SANDBOX_UID)]),
    ]
    result = run_tests(one_sandbox, WHO_RUNS_WHAT, tests, LIMITS, entry_point="f")
    assert [o.verdict.value for o in result.outcomes] == ["pass"] * 3, result.outcomes
    refused = run_tests(one_sandbox, SIGNAL_AND_WRITE_THE_RUNNER, [Test("call", "f(0)", ["refused"] * 3)], LIMITS)
    assert [o.verdict.value for o in refused.outcomes] == ["pass"], refused.outcomes
    for program, expected in EXPECTED.items():  # and the sandbox serves the next job as before
        assert verdicts(one_sandbox, program) == expected


FORKS_TO_ITS_LIMIT = """
import os, time
def f(x):
    for _ in range(x):
        try:
            if os.fork() == 0:
                time.sleep(60)
                os._exit(0)
        except OSError:
            break
    time.sleep(8)  # holds them while the other sandbox's program runs (killed at its job's end)
"""
FORKS_A_FEW = """
import os
def f(x):
    for _ in range(x):
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
    return x
"""


def _job_user_processes() -> int:
    """Processes on this host running as the job user, in any sandbox (both backends map it to the
    host's uid 10001)."""
    from sandboxes.users import SANDBOX_UID

    count = 0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.stat(f"/proc/{pid}").st_uid == int(SANDBOX_UID):
                count += 1
        except OSError:
            pass
    return count


def test_a_program_that_forks_to_its_limit_never_stops_another_sandbox_forking(backend):
    """A per-user process limit (RLIMIT_NPROC) counts a uid's processes in every sandbox of its user
    namespace: all of a host's containers, or every bubblewrap sandbox in one shared namespace. A
    program that forked to its sandbox's limit once left right programs in the other sandboxes unable
    to fork (EAGAIN). Each sandbox's processes are bounded by its own pids limit alone."""
    if backend.name == "local":
        require_part(lambda: one_user_reason() is None, "a host that may map a second uid", "run as root")
    before = _job_user_processes()
    hog = threading.Thread(
        target=run_tests,
        args=(backend, FORKS_TO_ITS_LIMIT, [Test("call", "f(70)", None)], Limits(cpu_seconds=5.0)),
        kwargs={"entry_point": "f"},
    )
    hog.start()
    try:
        deadline = time.monotonic() + 60
        while _job_user_processes() < before + 40:  # the hog's children are there
            assert time.monotonic() < deadline, "the program never forked its children"
            time.sleep(0.05)
        result = run_tests(backend, FORKS_A_FEW, [Test("call", "f(5)", 5)], LIMITS, entry_point="f")
        assert [o.verdict.value for o in result.outcomes] == ["pass"], result.outcomes
    finally:
        hog.join()


def test_a_local_sandbox_counts_the_cpu_of_all_its_processes_together(local_backend):
    """Children that leave the program's process group and spin take their own sandbox's CPU share
    (a cgroup quota, as a Docker container's `cpus`), never the CPU of the sandboxes beside it."""
    from sandboxes.base import SANDBOX_CPUS
    from sandboxes.cgroups import cpu_quota_missing

    assert cpu_quota_missing() is None, cpu_quota_missing()
    assert verdicts(local_backend, SPINNERS) == ["pass"] * 3
    (sandbox,) = [s for idle in local_backend._idle.values() for s in idle]
    (cpu,) = [d for d in sandbox.group.dirs if "/cpu" in str(d)]
    v2 = cpu / "cpu.max"
    quota = v2.read_text().split()[0] if v2.exists() else (cpu / "cpu.cfs_quota_us").read_text()
    assert int(quota) == int(SANDBOX_CPUS * 100_000)


SHIFTING_FIELDS = """
import itertools
_count = itertools.count()
class Shifting(type):
    @property
    def _fields(cls):
        n = next(_count)
        return (f"a{n}", f"b{n}")
class Pair(tuple, metaclass=Shifting):
    pass
def f(x):
    return [Pair((i, i)) for i in range(2000)]
"""


def test_a_value_whose_type_changes_on_every_read_is_refused_not_rebuilt(one_sandbox):
    """Each namedtuple type the reader rebuilds costs it CPU outside any sandbox limit: a program
    whose `_fields` change on every read (2000 types in one value) is refused, never paid."""
    result = run_tests(one_sandbox, SHIFTING_FIELDS, [Test("call", "f(1)", [[1, 1]])], LIMITS, entry_point="f")
    assert [o.verdict.value for o in result.outcomes] != ["pass"], result.outcomes


def test_the_reader_rebuilds_a_bounded_number_of_namedtuple_types_per_value():
    from sandboxes import wire

    many = {"list": [{"namedtuple": [f"T{i}", [f"a{i}"], [1]]} for i in range(wire.MAX_NEW_NAMEDTUPLES + 1)]}
    with pytest.raises(ValueError, match="kinds of namedtuple"):
        wire.decode(many)
    few = {"list": [{"namedtuple": ["P", ["a"], [i]]} for i in range(1000)]}  # one type, many values: fine
    assert len(wire.decode(few)) == 1000

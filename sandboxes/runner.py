"""The runner inside the sandbox (shipped as source text after `wire.py`, `child.py`, `proxies.py`
and `judge.py`; see `programs.py`).

Three kinds of process, and why none of them can be fooled by the model's code:

    host ──job, nonce──▶ runner ──fork──▶ judge ──fork+exec──▶ candidate (the model's code)
         ◀─nonce-tagged lines─┘  ◀─records─┘  ◀── plain data over a pipe ──┘

- the **runner** holds the nonce and writes the only lines the host reads. It never runs
  anything of the model's, and the judge was forked before the nonce was read;
- the **judge** runs the task's trusted test code (setup, the check's statements, pytest
  functions). Every name the tests take from the program is a proxy: a call sends plain,
  type-tagged arguments to the candidate and gets plain data or a handle back. The judge compares
  with its own `==`; a handle never answers `==`, so an object whose `__eq__` always says True
  proves nothing. Expected values of `call == literal` tests never enter the sandbox at all:
  the judge sends the value out and the host compares it;
- the **candidate** is a fresh interpreter (`exec`, so it inherits no memory of the job or the
  tests) holding only its channel on fds 3/4 and its stdio files. It is kept warm across tests
  and replaced after a test that kills it or runs out of time.

Runner and judge are not dumpable (`PR_SET_DUMPABLE` 0): the candidate, though it runs as the same
user, cannot open their `/proc/<pid>/fd`, read their memory or ptrace them. All it can do to them
is kill them, and a missing record is a failed test, never a pass.
"""

import ctypes
import json
import os
import signal
import sys
import time


def not_dumpable():
    """Make this process (and its forks) unreachable through /proc and ptrace for its own user."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(4, 0, 0, 0, 0) != 0:  # PR_SET_DUMPABLE
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_DUMPABLE, 0) failed")


def read_exactly(fd, count):
    data = bytearray()
    while len(data) < count:
        piece = os.read(fd, count - len(data))
        if not piece:
            break
        data += piece
    return bytes(data)


def read_line(fd):
    data = bytearray()
    while not data.endswith(b"\n"):
        piece = os.read(fd, 1)
        if not piece:
            break
        data += piece
    return data.decode().strip()


def run_job(job, out):
    """Fork the judge, only then read the nonce, relay the judge's records tagged with it."""
    job["python"] = sys.executable
    work = os.getcwd()  # every backend starts the runner in its run's work dir
    go_read, go_write = os.pipe()
    report_read, report_write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(go_write)
        os.close(report_read)
        sys.path[:0] = job.get("library_paths", [])  # the allowed packages, for the trusted setup too
        try:
            judge_main(job, go_read, report_write, work)
        finally:
            os._exit(1)
    os.close(go_read)
    os.close(report_write)
    nonce = read_line(0)  # read only now: the judge was forked without it
    os.write(go_write, b"x")
    os.close(go_write)
    with os.fdopen(report_read, "rb") as reports:
        for line in reports:
            out.write(f"EVALKIT-{nonce} {line.decode().strip()}\n")
            out.flush()
    os.waitpid(pid, 0)
    return nonce, work


def inside_sandbox():
    """True only in a sandbox's own pid namespace, where pid 1 is bubblewrap's or Docker's init:
    the only places where killing "every process we may signal" and emptying /tmp touch nothing
    but the sandbox."""
    try:
        with open("/proc/1/cmdline", "rb") as fh:
            init = fh.read().split(b"\0")[0]
    except OSError:
        return False
    return init.endswith(b"bwrap") or init.endswith(b"docker-init")


def clean_up(work):
    """Between jobs of a warm sandbox: kill every other process of ours in the sandbox (daemons
    that left their process group too), empty every writable place and remove the SysV IPC objects
    the job made. Returns what is still left (empty when the sandbox is as the job found it)."""
    try:
        os.kill(-1, signal.SIGKILL)  # all we may signal except ourselves and the namespace's init
    except OSError:
        pass
    for top in (work, "/tmp", "/dev/shm"):
        wipe(top)
    remove_ipc()
    return leftovers()


IPC_RMID = 0
SHARED_MEMORY_SLACK = 4 << 20  # bytes of shared memory a clean sandbox may still show (kernel bookkeeping)


def ipc_ids(kind):
    """The ids of the SysV IPC objects of `kind` ("shm", "msg", "sem") in this IPC namespace."""
    try:
        with open(f"/proc/sysvipc/{kind}") as fh:
            rows = [line.split() for line in fh.read().splitlines()[1:]]
    except OSError:
        return []
    return [int(row[1]) for row in rows if len(row) > 1 and row[1].isdigit()]


def remove_ipc():
    """SysV shared memory, message queues and semaphore sets outlive the processes that made them:
    left, they carry memory and data into the next job. (POSIX message queues cannot be made: the
    program's RLIMIT_MSGQUEUE is 0; POSIX shared memory and semaphores are files in /dev/shm.)"""
    libc = ctypes.CDLL(None, use_errno=True)
    for ident in ipc_ids("shm"):
        libc.shmctl(ident, IPC_RMID, None)
    for ident in ipc_ids("msg"):
        libc.msgctl(ident, IPC_RMID, None)
    for ident in ipc_ids("sem"):
        libc.semctl(ident, 0, IPC_RMID)


CGROUP_STATS = ("/sys/fs/cgroup/memory.stat", "/sys/fs/cgroup/memory/memory.stat")  # cgroup v2, v1


def shared_memory_bytes(stat_paths=CGROUP_STATS):
    """Shared memory (tmpfs and SysV pages) from the first readable memory cgroup stats file: the
    sandbox's own, inside a Docker container; None where none can be read (bubblewrap has no /sys,
    so the host reads the sandbox's cgroup with this same function)."""
    for path in stat_paths:
        try:
            with open(path) as fh:
                for line in fh:
                    key, _, value = line.partition(" ")
                    if key == "shmem":
                        return int(value)
        except (OSError, ValueError):
            continue
    return None


def leftovers():
    """What a job left that clean-up could not remove, waiting briefly for killed processes to go."""
    for _ in range(50):
        left = [f"SysV {kind} {ids}" for kind in ("shm", "msg", "sem") for ids in [ipc_ids(kind)] if ids]
        shared = shared_memory_bytes()
        if shared is not None and shared > SHARED_MEMORY_SLACK:
            left.append(f"{shared >> 20} MB of shared memory")
        if not left:
            return []
        time.sleep(0.01)
    return left


def wipe(top):
    """Delete everything under `top` (kept), including what sits in dirs made unreadable."""
    for root, dirs, _files in os.walk(top):  # open each dir before the walk enters it
        for name in dirs:
            path = os.path.join(root, name)
            if not os.path.islink(path):
                try:
                    os.chmod(path, 0o700)
                except OSError:
                    pass
    for root, dirs, files in os.walk(top, topdown=False):
        for name in files + dirs:
            path = os.path.join(root, name)
            try:
                os.rmdir(path) if name in dirs and not os.path.islink(path) else os.unlink(path)
            except OSError:
                pass


# The standard modules trusted test setups import (LeetCode's preamble, pytest-style checks):
# imported once by the warm runner, so every judge it forks has them and pays no import per job.
# Only the judge inherits them; the program's interpreter is always a fresh one.
TRUSTED_SETUP_MODULES = (
    "bisect collections datetime decimal fractions functools heapq itertools math operator random re "
    "string traceback typing"
).split()


def preload():
    for name in TRUSTED_SETUP_MODULES:
        __import__(name)


def main():
    """One job, or with `--serve` (a warm sandbox) one job after another, each ending with a
    `done` line written after the sandbox is clean again."""
    not_dumpable()
    preload()
    serve = "--serve" in sys.argv
    if serve and not inside_sandbox():
        sys.exit("runner: --serve only runs inside a sandbox (bubblewrap or a Docker container)")
    out = sys.stdout
    while True:
        header = read_line(0)
        if not header:
            return
        job = json.loads(read_exactly(0, int(header)))
        nonce, work = run_job(job, out)
        left = clean_up(work) if serve else []
        # a sandbox that cannot be made clean says so and stops serving: its host replaces it
        out.write(f"EVALKIT-{nonce} " + json.dumps({"done": True, **({"left": left} if left else {})}) + "\n")
        out.flush()
        if not serve or left:
            return


if __name__ == "__main__":
    main()

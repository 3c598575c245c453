"""The zygote: a warm interpreter that forks each candidate (shipped into the sandbox as source text
in the candidate program, after `wire.py` and `rlimits.py`; see `programs.py`).

Starting a fresh interpreter for every program (`exec` of python) costs more than many programs'
tests. The runner therefore starts one clean interpreter per sandbox before any job (exec'd, so it
holds nothing of the runner), and the judge asks it over a socket for each candidate. The zygote
never sees a job: a request carries only the candidate's file descriptors (its stdio files, its
channel and where to write its exit status), the program's limits and the allowed packages' paths.
The fork becomes the candidate (`candidate.py`) with exactly what an exec'd one would have.

What a candidate could do to the zygote, and why the next program does not see it:
- its memory: copy-on-write pages, so nothing it writes reaches the zygote; the zygote is not
  dumpable, so `/proc/<zygote>/mem`, its fds and ptrace are closed;
- its resource limits, priority, CPU affinity and scheduling policy, which forks inherit: the
  sandbox's seccomp filter (`seccomp.py`) lets a process change these only for itself;
- signals (kill, stop): each fork installs the job filter (`seccomp.job_filter`), which refuses
  signals to the zygote, the runner and its group; where a machine has no filter numbers, a dead or
  stopped zygote makes the judge start the program the old way (exec), and the runner replaces a
  zygote that does not answer between jobs;
- random state: the zygote imports no `random`, so each candidate seeds its own from the OS; the
  hash seed is the zygote's (shared by the candidates of one sandbox, secret to none of them);
- modules: those it imported (`PROGRAM_MODULES`, and the sandbox's allowed packages, `preload.py`)
  are as freshly imported; a fork's changes to them stay in the fork.
"""

import fcntl
import json
import os
import select
import signal
import socket
import struct
import sys

STATUS = struct.Struct(">i")
SPAWN_FDS = 6  # stdin, stdout, stderr, requests, replies, exit status


def not_dumpable_and_bound_to_parent():
    """No /proc or ptrace access for our own user; die with the runner that started us."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0 (forks inherit it)
    libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG (forks do not inherit it)


# Standard modules programs commonly import (LeetCode's preamble among them, and `traceback`, which
# its `sortedcontainers` imports: 2-3 ms a program), imported once here so a candidate finds them
# loaded; none holds state a program could read another's from, and never `random`, whose state
# every fork would share.
PROGRAM_MODULES = (
    "bisect collections datetime functools heapq itertools math operator re string traceback typing"
).split()


def fork_candidates(packages=(), control=3):
    """Serve spawn requests until the runner closes the socket. Returns only in a fork, set up as a
    candidate; the caller then serves the program. `packages`: the sandbox's allowed packages, as
    [name, path] pairs, imported before any request (`preload.py`)."""
    not_dumpable_and_bound_to_parent()
    protected = serving_pids()
    for name in PROGRAM_MODULES:
        __import__(name)
    import_packages(packages)
    compile("", "warm", "exec")  # its first use builds the syntax-tree types: else 1-3 ms in every fork
    link = socket.socket(fileno=control)
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    status_fds = {}  # candidate pid -> where its exit status goes
    while True:
        readable = select.select([link, wake_read], [], [])[0]
        if wake_read in readable:
            os.read(wake_read, 4096)
            report_exits(status_fds)
        if link not in readable:
            continue
        try:
            message, fds, _, _ = socket.recv_fds(link, 1 << 16, 8)
        except OSError:
            os._exit(0)
        if not message:
            os._exit(0)  # the runner is gone
        request = json.loads(message)
        if request.get("op") == "ping" or len(fds) != SPAWN_FDS:
            for fd in fds:
                os.close(fd)
            link.send(json.dumps({"pong": request.get("n")}).encode())
            continue
        try:
            pid = os.fork()
        except OSError as exc:  # the sandbox's process limit: the judge tries exec, which says why
            for fd in fds:
                os.close(fd)
            link.send(json.dumps({"error": str(exc)}).encode())
            continue
        if pid == 0:
            become_candidate(request, fds, [link.detach(), wake_read, wake_write], protected)
            return
        for fd in fds[:-1]:
            os.close(fd)
        status_fds[pid] = fds[-1]
        link.send(json.dumps({"pid": pid}).encode())


def report_exits(status_fds):
    """Reap every ended candidate and write its wait status where its judge waits for it."""
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        fd = status_fds.pop(pid, None)
        if fd is not None:
            try:
                os.write(fd, STATUS.pack(status))
            except OSError:  # its judge is gone
                pass
            os.close(fd)


def serving_pids():
    """The pids that serve later jobs, which no candidate may signal: the runner (our parent: the
    zygote is exec'd by it before any job), its process group, and ourselves. Read here, never taken
    from a request: a request comes from a judge, which runs the task's code."""
    runner = os.getppid()
    try:
        group = os.getpgid(runner)
    except OSError:
        group = runner
    return [runner, group, os.getpid()]


def become_candidate(request, fds, zygote_fds, protected):
    """In the fork: the candidate's stdio files on 0-2, its channel on 3/4, nothing else open; its own
    session, limits and signal dispositions; the allowed packages on sys.path; the job filter, so
    no signal of the program reaches the runner or the zygote (`seccomp.job_filter`)."""
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    for fd in zygote_fds + fds[-1:]:  # the zygote's own, and our exit-status pipe
        os.close(fd)
    os.setsid()
    moved = [fcntl.fcntl(fd, fcntl.F_DUPFD, 100) for fd in fds[:5]]  # above the targets: no dup2 hits a source
    for target, fd in enumerate(moved):
        os.dup2(fd, target)
    os.closerange(5, 1 << 16)
    set_limits(request["limits"])
    install_job_filter(protected)
    sys.path[:0] = request["paths"]
    sys.argv[:] = ["-c"]

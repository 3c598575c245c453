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
- the **candidate** is an interpreter that holds no memory of the job or the tests: forked from
  the sandbox's zygote (`zygote.py`, exec'd by the runner before any job and never sent one), or
  exec'd afresh where there is none. It holds only its channel on fds 3/4 and its stdio files, is
  kept warm across tests and replaced after a test that kills it or runs out of time.

The runner is the sandbox's root, with no capability but to change user, to signal and to empty
what a job left (`users.RUNNER_CAPABILITIES`); the judge, the zygote and every candidate run as the
job user (`--job-user`), so no job code may signal, trace or read the runner, or write its `/proc`
files. Where the local backend's host cannot map a second user, all run as one user.
Runner and judge are not dumpable (`PR_SET_DUMPABLE` 0): the
candidate, even as the same user, cannot open what their `/proc/<pid>/fd` links to, read their
memory or ptrace them. In a
bubblewrap sandbox the runner is pid 1 (`--as-pid-1`), so no dumpable init holds the host's pipes
and the runner cannot be killed from inside; a judge can, and a missing record is a failed test,
never a pass.
"""

import ctypes
import json
import os
import resource
import select
import signal
import socket
import sys
import time


def not_dumpable():
    """Make this process (and its forks) unreachable through /proc and ptrace for its own user."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(4, 0, 0, 0, 0) != 0:  # PR_SET_DUMPABLE
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_DUMPABLE, 0) failed")


JOB_USER_FLAG = "--job-user"
JOB_UID = None  # where the runner runs as the sandbox's root: the user every process that runs job code runs as


def job_user(argv):
    """The job user `--job-user UID` names, where the runner runs as the sandbox's root: the runner
    then never shares a user with job code. None elsewhere (a bubblewrap sandbox of one user)."""
    if JOB_USER_FLAG in argv[:-1] and os.getuid() == 0:
        return int(argv[argv.index(JOB_USER_FLAG) + 1])
    return None


def become_job_user():
    """In a fork that will run job code (the judge, the zygote): drop to the job user, keeping no
    group, no capability and no dumpable state, so nothing it runs may signal, trace or read the
    runner."""
    if JOB_UID is None:
        return
    os.setgroups([])
    os.setgid(JOB_UID)
    os.setuid(JOB_UID)  # all three uids: no capability survives, and none can be regained
    not_dumpable()


# given where the sandbox's own pids limit bounds all its processes (a Docker container): RLIMIT_NPROC
# is then not set, since it counts a uid's processes in every sandbox of the user namespace (all of
# a host's containers), and a program that forked to its limit in one left programs in the others
# unable to fork
SANDBOX_PIDS_LIMIT_FLAG = "--sandbox-pids-limit"


CHANNEL_FLAG = "--channel"


def use_channel(argv):
    """With `--channel PATH` (Docker's warm sandboxes), talk to the host over the unix socket it
    listens on at PATH instead of the `docker exec` stream, which the Docker daemon relays at a few
    ms of its CPU a program: connect, and make the socket our stdin and stdout (stderr, which that
    stream dropped, goes nowhere). The host accepts this one connection, made before any job enters
    the sandbox, then removes its listener. Where it cannot connect, the stream stays as it was."""
    if CHANNEL_FLAG not in argv[:-1]:
        return False
    link = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        link.connect(argv[argv.index(CHANNEL_FLAG) + 1])
    except OSError:
        link.close()
        return False
    devnull = os.open(os.devnull, os.O_WRONLY)
    for target, fd in ((0, link.fileno()), (1, link.fileno()), (2, devnull)):
        os.dup2(fd, target)
    link.close()
    os.close(devnull)
    return True


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


SETUP_CODES = {}  # a judge setup's text -> its code, for the jobs after the first that share it
MOST_SETUP_CODES = 8
MOST_CACHED_SETUP_CHARS = 1 << 18


def compiled_setup(text):
    """The task's trusted setup, compiled here once for every later job that shares it (a data set's
    tasks mostly do: LeetCode's preamble), so no judge compiles it again; compiling runs none of it.
    None where it does not compile (the judge then reports that for each test) or is too large to keep."""
    code = SETUP_CODES.get(text)
    if code is None and len(text) <= MOST_CACHED_SETUP_CHARS:
        try:
            code = compile(text, "setup", "exec")
        except Exception:
            return None
        if len(SETUP_CODES) >= MOST_SETUP_CODES:
            SETUP_CODES.pop(next(iter(SETUP_CODES)))  # the oldest
        SETUP_CODES[text] = code
    return code


JUDGE_TAG = "judge:"  # before every line the runner relays from the judge (`suite.interpret` reads it)


def isolate_judge(keep, protected):
    """In the judge's fork, before any job code: its own session (a signal to its group reaches only
    the job), none of the runner's descriptors but `keep` (fds 0-2 are /dev/null: in a Docker
    sandbox the runner's stdin and stdout are its two-way socket to the host), no POSIX message
    queue (it would outlive the job), and the job filter: no signal or pidfd reaches `protected`.
    Where the runner is root, the judge first becomes the job user (`become_job_user`)."""
    become_job_user()
    os.setsid()
    devnull = os.open(os.devnull, os.O_RDWR)
    for target in (0, 1, 2):
        os.dup2(devnull, target)
    low = 3
    for fd in sorted(k for k in keep if k is not None and k >= 3):
        os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, 1 << 16)
    resource.setrlimit(resource.RLIMIT_MSGQUEUE, (0, 0))
    if not install_job_filter(protected) and SYSCALLS_REQUIRED:
        raise OSError("no seccomp numbers for this machine")


SYSCALLS_REQUIRED = False  # a machine without numbers runs without the filters (docs: Known limits)


def run_job(job, out, phases, protected=()):
    """Fork the judge, only then read the nonce, relay the judge's records tagged with it. Adds the
    seconds of each step to `phases` (the profile). `protected`: the pids no job code may signal."""
    start = time.monotonic()
    job["python"] = sys.executable
    job["candidate_source"] = job.get("candidate_prelude", "") + CANDIDATE_SOURCE  # for a candidate exec'd
    code = compiled_setup(job["judge_setup"]) if type(job.get("judge_setup")) is str else None
    if code is not None:
        job["setup_code"] = code
    work = os.getcwd()  # every backend starts the runner in its run's work dir
    go_read, go_write = os.pipe()
    report_read, report_write = os.pipe()
    protected = [os.getpid(), os.getpgid(0), *protected]
    pid = os.fork()
    if pid == 0:
        try:
            os.close(go_write)
            os.close(report_read)
            isolate_judge((go_read, report_write, job.get("zygote_fd")), protected)
            sys.path[:0] = job.get("library_paths", [])  # the allowed packages, for the trusted setup too
            judge_main(job, go_read, report_write, work)
        finally:
            os._exit(1)
    os.close(go_read)
    os.close(report_write)
    nonce = read_line(0)  # read only now: the judge was forked without it
    os.write(go_write, b"x")
    os.close(go_write)
    forked = time.monotonic()
    relay(report_read, pid, nonce, out)
    os.close(report_read)
    os.waitpid(pid, 0)
    phases.update(judge_fork=forked - start, judge=time.monotonic() - forked)
    return nonce, work


def relay(reports, judge, nonce, out):
    """Pass the judge's records on, tagged with the nonce, until it ends. A `stop` line from the host
    (the records so far decide the reward) ends the judge; what it reported before still counts."""
    watched, pending = [reports, 0], b""
    while True:
        readable = select.select(watched, [], [])[0]
        if 0 in readable:
            line = read_line(0)
            if line == "stop":
                os.kill(judge, signal.SIGKILL)
            if line in ("stop", ""):  # "": a one-shot run's host closed our stdin after the nonce
                watched.remove(0)
        if reports in readable:
            piece = os.read(reports, 1 << 16)
            if not piece:
                return
            *lines, pending = (pending + piece).split(b"\n")
            for line in lines:  # tagged as the judge's: no judge line can pass for the runner's own
                out.write(f"EVALKIT-{nonce} {JUDGE_TAG}{line.decode('utf-8', 'replace').strip()}\n")
            out.flush()


def inside_sandbox():
    """True only in a sandbox's own pid namespace, where pid 1 is we ourselves (bubblewrap's
    `--as-pid-1`) or Docker's init: the only places where killing "every process we may signal"
    and emptying /tmp touch nothing but the sandbox."""
    if os.getpid() == 1:
        return True
    try:
        with open("/proc/1/cmdline", "rb") as fh:
            init = fh.read().split(b"\0")[0]
    except OSError:
        return False
    return init.endswith(b"bwrap") or init.endswith(b"docker-init")


def clean_up(work, spare=None):
    """Between jobs of a warm sandbox: kill every other process of ours in the sandbox but the
    zygote (`spare`; daemons that left their process group too), empty every writable place and
    remove the SysV IPC objects the job made. Returns what is still left (empty when the sandbox is
    as the job found it)."""
    left = kill_all_but(spare)
    reap_orphans(spare)
    if left:
        return left  # a process that would not die: the host replaces the sandbox
    for top in (work, "/tmp", "/dev/shm"):
        wipe(top)
    remove_ipc()
    return leftovers()


KILL_PASSES = 200


def kill_all_but(spare):
    """SIGKILL every process of the sandbox but ourselves, its init and `spare`, pass after pass
    until none is left (a fork loop cannot outrun it: the sandbox's pids limit bounds it). Returns
    what would not die."""
    if spare is None and JOB_UID is None:
        try:
            os.kill(-1, signal.SIGKILL)  # all we may signal except ourselves and the namespace's init
        except OSError:
            pass
        return []
    keep = {os.getpid(), 1, spare}
    for _ in range(KILL_PASSES):  # as root, only the job user's: never the container's own processes
        others = [pid for pid in living_pids(JOB_UID) if pid not in keep]
        if not others:
            return []
        for pid in others:
            try:
                os.kill(pid, signal.SIGKILL)
            except PermissionError:  # not ours (a container's own main process): kill(-1) skips it too
                keep.add(pid)
            except OSError:
                pass
        time.sleep(0.0005)
    return [f"{len(others)} processes that would not die"]


def reap_orphans(spare):
    """As the sandbox's pid 1 (bubblewrap), orphans (a killed judge's candidates) become our
    children: collect the dead ones, never the zygote's status, which `ZygoteProcess` waits for."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0 or pid == spare:
            return


def living_pids(uid=None):
    """The pids in this pid namespace that are not zombies (a zombie is dead, waiting for its
    reaper), of user `uid` only where it is given."""
    pids = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as fh:
                state = fh.read().rpartition(")")[2].split()[0]
            if uid is not None and process_uid(name) != uid:
                continue
        except (OSError, IndexError):
            continue
        if state not in ("Z", "X"):
            pids.append(int(name))
    return pids


def process_uid(pid):
    """A process's real user id, from its status (its /proc directory shows root for a process that
    is not dumpable, whatever its user)."""
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith("Uid:"):
                return int(line.split()[1])
    return None


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


def preload(packages):
    for name in TRUSTED_SETUP_MODULES:
        __import__(name)
    import_packages(packages)


class ZygoteProcess:
    """The runner's end of the sandbox's zygote (`zygote.py`): started before any job, kept across
    jobs while it answers, replaced when it does not (a program stopped or killed it)."""

    ANSWER_SECONDS = 1.0

    def __init__(self, packages=()):
        self.pid, self.link, self.pings = None, None, 0
        self.preloaded = preload_arguments(*zip(*packages)) if packages else []  # passed on to the zygote
        self.start()

    def start(self):
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        pid = os.fork()
        if pid == 0:
            try:  # exec at once: the zygote holds nothing of the runner but its end of the socket
                become_job_user()
                os.setsid()
                devnull = os.open(os.devnull, os.O_RDWR)
                link = fcntl.fcntl(theirs.fileno(), fcntl.F_DUPFD, 100)  # above the targets
                for target, fd in ((0, devnull), (1, devnull), (2, devnull), (3, link)):
                    os.dup2(fd, target)
                os.closerange(4, 1 << 16)
                os.execv(
                    sys.executable,
                    [sys.executable, *PYTHON_FLAGS, "-c", CANDIDATE_SOURCE, "--zygote", *self.preloaded],
                )
            finally:
                os._exit(127)
        theirs.close()
        self.pid, self.link = pid, ours

    def answers(self):
        """Is it alive, not stopped, and answering? (A stopped one is woken first.)"""
        try:
            os.kill(self.pid, signal.SIGCONT)
            self.pings += 1
            self.link.send(json.dumps({"op": "ping", "n": self.pings}).encode())
            end = time.monotonic() + self.ANSWER_SECONDS
            while time.monotonic() < end:  # replies to spawns the judge gave up on come first
                if not select.select([self.link], [], [], max(0.0, end - time.monotonic()))[0]:
                    return False
                if json.loads(self.link.recv(4096) or b"null") == {"pong": self.pings}:
                    return True
        except (OSError, ValueError):
            pass
        return False

    def replace(self):
        self.stop()
        self.start()

    def stop(self):
        try:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        except OSError:
            pass
        self.link.close()


def main():
    """One job, or with `--serve` (a warm sandbox) one job after another, each ending with a
    `done` line written after the sandbox is clean again. A serving runner forks candidates from a
    zygote; a one-shot run starts each candidate afresh."""
    global JOB_UID
    not_dumpable()
    install_sandbox_filter()  # first: every process of the sandbox inherits it (seccomp.py)
    JOB_UID = job_user(sys.argv)
    use_channel(sys.argv)
    packages = packages_argument(sys.argv)  # the sandbox's allowed packages: [name, path] pairs
    preload(packages)
    serve = "--serve" in sys.argv
    if serve and not inside_sandbox():
        sys.exit("runner: --serve only runs inside a sandbox (bubblewrap or a Docker container)")
    zygote = ZygoteProcess(packages) if serve else None
    out = sys.stdout
    while True:
        header = read_line(0)
        if not header:
            return
        if not header.isdigit():
            continue  # a stop that came after its job had ended
        start = time.monotonic()
        job = json.loads(read_exactly(0, int(header)))
        job["zygote_fd"] = zygote.link.fileno() if zygote else None
        if SANDBOX_PIDS_LIMIT_FLAG in sys.argv:
            job["max_processes"] = None
        phases = {"read_job": time.monotonic() - start}
        nonce, work = run_job(job, out, phases, [zygote.pid] if zygote else [])
        start = time.monotonic()
        left = clean_up(work, zygote.pid) if serve else []
        if zygote and not zygote.answers():
            zygote.replace()
        phases["clean_up"] = time.monotonic() - start
        out.write(f"EVALKIT-{nonce} " + json.dumps({"phases": phases}) + "\n")
        # a sandbox that cannot be made clean says so and stops serving: its host replaces it
        out.write(f"EVALKIT-{nonce} " + json.dumps({"done": True, **({"left": left} if left else {})}) + "\n")
        out.flush()
        if not serve or left:
            return


if __name__ == "__main__":
    main()

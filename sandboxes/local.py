"""The local backend, for hosts without Docker: bubblewrap namespaces (user, pid, network, mount,
ipc, uts), a minimal read-only view of the host (system libraries and the Python install only:
no home directories, no /etc secrets, no environment), a writable work dir, size-capped tmpfs
/tmp and /dev/shm (and nothing else writable: /dev is read-only), the runner's per-test rlimits, and a kill of the whole sandbox at the
wall-clock limit (bwrap's pid namespace dies with it).

Sandboxes are kept warm, as Docker containers are: one bwrap per concurrent run, its runner
serving job after job. Between jobs the runner kills every other process in the sandbox's pid
namespace and empties /work, /tmp and /dev/shm, so a run never sees a previous run's files or
processes; the program itself is always a fresh interpreter (see `runner.py`). A sandbox that
overruns its wall clock or breaks the protocol is killed and replaced.

Where the host lets us (root, or a delegated cgroup) each sandbox also gets its own cgroup with
the same pids and memory limits as a Docker sandbox. Where the host may map a second uid (root),
the runner and job code are two users, as in a Docker container (`users.py`); each sandbox has a
user namespace of its own, so RLIMIT_NPROC counts only that sandbox's processes.

Where namespaces are forbidden (e.g. Ubuntu 23.10+ blocks unprivileged user namespaces) every run
is a SANDBOX_ERROR that says how to fix it. Running without confinement needs the backend named
"unconfined" explicitly (one plain subprocess per run, no warm sandboxes).
"""

from __future__ import annotations

import atexit
import functools
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import warnings
import weakref
from pathlib import Path

from . import libraries, programs
from .base import MAX_STDOUT, SANDBOX_CPUS, STOP, Limits, RawRun, SandboxUnavailable, Watch
from .cgroups import RunCgroup, cpu_quota_missing
from .owners import process_alive, work_dir_prefix
from .preload import preload_arguments
from .programs import PYTHON_FLAGS
from .runner import JOB_USER_FLAG, SHARED_MEMORY_SLACK
from .users import RUNNER_CAPABILITIES, RUNNER_UID, SANDBOX_UID, one_user_reason, two_user_namespace

NAMESPACE_HELP = (
    "bubblewrap could not create namespaces here. Install it (bash scripts/setup-env.sh installs every "
    "part; apt-get install bubblewrap for this one), "
    "or allow unprivileged user namespaces (sysctl kernel.apparmor_restrict_unprivileged_userns=0 "
    "on Ubuntu 23.10+), or use the Docker backend"
)

_backends: "weakref.WeakSet[LocalBackend]" = weakref.WeakSet()


def _python_dirs() -> list[str]:
    dirs = {os.path.realpath(p) for p in (sys.base_prefix, sys.prefix, sys.exec_prefix)}
    return sorted(d for d in dirs if not any(d.startswith(s + "/") for s in ("/usr", "/lib", "/bin")))


class LocalBackend:
    """bubblewrap sandboxes; `confined=False` (the "unconfined" backend) runs a plain subprocess."""

    name = "local"

    def __init__(self, confined: bool = True, python: str | None = None) -> None:
        self.confined = confined
        self.python = python or os.path.realpath(sys.executable)
        if confined and shutil.which("bwrap") is None:
            raise SandboxUnavailable(NAMESPACE_HELP)
        if not confined:
            self.name = "unconfined"
        self._idle: dict[Limits, list[_Sandbox]] = {}
        self._lock = threading.Lock()
        self._open: set[_Sandbox] = set()
        remove_orphans()
        if confined:
            _say_once_without_cpu_quota()
            _say_once_with_one_user()
        _backends.add(self)

    def library_paths(self, packages: tuple[str, ...]) -> list[str]:
        root = libraries.SANDBOX_ROOT if self.confined else libraries.host_library(packages)
        return libraries.search_paths(root, packages)

    def command(
        self,
        work: str,
        tmpfs_bytes: int = Limits().tmpfs_mb << 20,
        packages: tuple[str, ...] = (),
        userns: int | None = None,
    ) -> list[str]:
        """The bwrap command line that runs the runner with `work` as its /work, with the host's
        copies of `packages` bound read-only where `libraries.py` says; in user namespace `userns`
        (from `two_user_namespace`, passed to bwrap) where there is one."""
        if not self.confined:
            return [self.python, *PYTHON_FLAGS, f"{work}/.runner.py"]
        cmd = [
            "bwrap",
            *_users(userns),
            "--as-pid-1",  # no bwrap init holding our pipes while dumpable: the runner is pid 1
            "--die-with-parent",
            "--new-session",
            "--clearenv",
            "--setenv",
            "PATH",
            "/usr/bin:/bin",
            "--setenv",
            "HOME",
            "/work",
            "--setenv",
            "PYTHONDONTWRITEBYTECODE",
            "1",
            "--proc",
            "/proc",
            # read-only: inside bwrap the host's root (who owns a non-dumpable process's /proc files)
            # maps to the sandbox user, so a program could write the runner's `autogroup` (nice 19)
            # or `oom_score_adj`, which outlive the job. Docker's /proc files of the runner are root's.
            "--remount-ro",
            "/proc",
            "--dev",
            "/dev",
            "--size",
            str(tmpfs_bytes),
            "--perms",
            "1777",
            "--tmpfs",
            "/tmp",
            "--size",
            str(tmpfs_bytes),
            "--perms",
            "1777",
            "--tmpfs",
            "/dev/shm",
            # bwrap's /dev is a tmpfs the sandbox user may write: a file there would outlive the job
            # (the clean-up empties /work, /tmp and /dev/shm). Read-only, its devices still work.
            "--remount-ro",
            "/dev",
        ]
        for path in ("/usr", "/bin", "/lib", "/lib64", "/lib32", "/sbin", "/etc/ld.so.cache", "/etc/alternatives"):
            if os.path.exists(path):
                cmd += ["--ro-bind", path, path]
        for path in _python_dirs():
            cmd += _read_only(path, path)
        for source, target in libraries.bind_targets(packages):
            cmd += _read_only(source, target)
        cmd += ["--bind", work, "/work", "--remount-ro", "/", "--chdir", "/work"]
        job_user = [JOB_USER_FLAG, SANDBOX_UID] if userns is not None else []
        return cmd + [self.python, *PYTHON_FLAGS, "/work/.runner.py", *job_user]

    def run(self, job: bytes, nonce: str, limits: Limits, watch: Watch | None = None) -> RawRun:
        if not self.confined:
            return self._run_unconfined(job, nonce, limits)
        sandbox = self._take(limits)
        raw, healthy = sandbox.run(job, nonce, limits.wall_seconds, watch)
        if healthy and sandbox.clean():  # warm for the next job
            with self._lock:
                self._idle.setdefault(limits, []).append(sandbox)
        else:  # the runner died or stopped serving, or memory is still charged: replaced
            sandbox.close()
            with self._lock:
                self._open.discard(sandbox)
        return raw

    def _take(self, limits: Limits) -> "_Sandbox":
        with self._lock:
            idle = self._idle.get(limits)
            if idle:
                return idle.pop()
        sandbox = _Sandbox(self, limits)
        with self._lock:
            self._open.add(sandbox)
        return sandbox

    def _run_unconfined(self, job: bytes, nonce: str, limits: Limits) -> RawRun:
        work = tempfile.mkdtemp(prefix=work_dir_prefix())
        try:
            (Path(work) / ".runner.py").write_text(programs.RUNNER)
            proc = subprocess.Popen(
                self.command(work),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
                cwd=work,
                env={"PATH": "/usr/bin:/bin"},
            )
            try:
                out, err = proc.communicate(job + nonce.encode() + b"\n", timeout=limits.wall_seconds)
                timed_out = False
            except subprocess.TimeoutExpired:
                _kill_group(proc.pid)
                out, err = proc.communicate()
                timed_out = True
            finally:
                _kill_group(proc.pid)
            if proc.returncode != 0 and not timed_out and b"EVALKIT-" not in out:
                return RawRun(
                    out, proc.returncode, error=f"sandbox failed to start: {err.decode('utf-8', 'replace')[:300]}"
                )
            return RawRun(out[:MAX_STDOUT], proc.returncode, timed_out=timed_out)
        finally:
            shutil.rmtree(work, ignore_errors=True)

    def close(self) -> None:
        with self._lock:
            self._idle.clear()
            sandboxes, self._open = list(self._open), set()
        for sandbox in sandboxes:
            sandbox.close()


class _Sandbox:
    """One warm bwrap sandbox: its runner in `--serve` mode, its work dir and its cgroup."""

    def __init__(self, backend: LocalBackend, limits: Limits) -> None:
        self.work = tempfile.mkdtemp(prefix=work_dir_prefix())
        os.chmod(self.work, 0o1777)  # the job user's to write; the runner's files stay the runner's
        (Path(self.work) / ".runner.py").write_text(programs.RUNNER)
        self.group = RunCgroup.create(limits.sandbox_processes, limits.sandbox_memory_mb << 20, SANDBOX_CPUS)
        self.stderr = tempfile.TemporaryFile()
        userns = two_user_namespace()  # one of its own: RLIMIT_NPROC counts per namespace
        command = (self.group.enter_command() if self.group else []) + backend.command(
            self.work, limits.tmpfs_mb << 20, limits.packages, userns
        )
        preloaded = preload_arguments(limits.packages, backend.library_paths(limits.packages))
        try:
            self.proc = subprocess.Popen(
                command + ["--serve", *preloaded],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self.stderr,
                start_new_session=True,
                cwd=self.work,
                pass_fds=() if userns is None else (userns,),
            )
        finally:
            if userns is not None:
                os.close(userns)  # bwrap holds its own copy
        self.closed = False

    def run(self, job: bytes, nonce: str, wall_seconds: float, watch: Watch | None = None) -> tuple[RawRun, bool]:
        """(what came back, whether the sandbox can serve another job)."""
        done = f'EVALKIT-{nonce} {{"done": true}}\n'.encode()
        pending, out = memoryview(job + nonce.encode() + b"\n"), bytearray()
        stdin, stdout = self.proc.stdin.fileno(), self.proc.stdout.fileno()  # type: ignore[union-attr]
        deadline = time.monotonic() + wall_seconds
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return RawRun(bytes(out[:MAX_STDOUT]), None, timed_out=True), False
            readable, writable, _ = select.select([stdout], [stdin] if pending else [], [], left)
            if writable:
                try:
                    pending = pending[os.write(stdin, pending[:65536]) :]
                except OSError:  # the runner is gone; what it printed says why
                    pending = memoryview(b"")
            if readable:
                piece = os.read(stdout, 1 << 20)
                if not piece:
                    return self._ended(bytes(out)), False
                if len(out) < MAX_STDOUT:
                    out += piece
                if watch is not None and watch(piece):
                    pending = memoryview(bytes(pending) + STOP)
                if out.endswith(done):
                    return RawRun(bytes(out[:MAX_STDOUT]), 0), True

    def clean(self) -> bool:
        """Is the sandbox's memory back to where a job found it? Its runner removed what it could see;
        shared memory still charged to its cgroup (a job's segments the runner could not remove)
        would shrink every later job's memory, so such a sandbox is replaced."""
        shared = self.group.shared_memory_bytes() if self.group is not None else None
        return shared is None or shared <= SHARED_MEMORY_SLACK

    def _ended(self, out: bytes) -> RawRun:
        """The runner exited mid-job: the program killed it, or the sandbox never started."""
        try:
            code = self.proc.wait(5)
        except subprocess.TimeoutExpired:
            code = None
        if b"EVALKIT-" in out:
            return RawRun(out[:MAX_STDOUT], code)
        self.stderr.seek(0)
        text = self.stderr.read(4000).decode("utf-8", "replace").strip()
        if "namespace" in text or "Permission denied" in text or "uid map" in text:
            return RawRun(out, code, error=f"{NAMESPACE_HELP} ({text[:200]})")
        return RawRun(out, code, error=f"sandbox failed to start: {text[:300] or f'exit code {code}'}")

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        _kill_group(self.proc.pid)
        if self.group is not None:
            self.group.kill_all()
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                stream.close()  # type: ignore[union-attr]
            except OSError:
                pass
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            pass
        self.stderr.close()
        shutil.rmtree(self.work, ignore_errors=True)
        if self.group is not None:
            self.group.remove()


def _read_only(source: str, target: str) -> list[str]:
    """bwrap's arguments that bind `source` read-only at `target`. bubblewrap makes a target's
    missing parents of a mode that may keep out other users (700: a Python under /root, the allowed
    packages under /opt), and the job user could not reach them: empty parents of mode 755 are made
    first instead, which show nothing of the host's."""
    parents = [str(p) for p in reversed(Path(target).parents) if str(p) != "/"]
    return [*(arg for parent in parents for arg in ("--perms", "0755", "--dir", parent)), "--ro-bind", source, target]


def _users(userns: int | None) -> list[str]:
    """bubblewrap's namespaces and users: in a user namespace of two users, the runner is the
    sandbox's root with only `RUNNER_CAPABILITIES` and job code runs as the job user (the runner's
    `--job-user`), as in a Docker container; elsewhere bubblewrap maps one user for all of them."""
    if userns is None:
        return ["--unshare-all", "--cap-drop", "ALL", "--uid", "65534", "--gid", "65534"]
    namespaces = ["--unshare-pid", "--unshare-ipc", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try"]
    capabilities = [arg for cap in RUNNER_CAPABILITIES for arg in ("--cap-add", f"CAP_{cap}")]
    users = ["--userns", str(userns), "--uid", RUNNER_UID, "--gid", RUNNER_UID]
    return [*users, *namespaces, "--cap-drop", "ALL", *capabilities]


@functools.lru_cache(maxsize=1)
def _say_once_with_one_user() -> None:
    """Where the runner and job code share a user, the runner is kept from job code by the seccomp
    filter, its descriptors and a read-only /proc alone: say so, once a process."""
    why = one_user_reason()
    if why is not None:
        warnings.warn(
            f"local sandboxes run the runner and job code as one user: {why} (docs/code_sandbox.md)", stacklevel=3
        )


@functools.lru_cache(maxsize=1)
def _say_once_without_cpu_quota() -> None:
    """Where sandboxes get no CPU quota, a job's processes that leave its program's process group
    can take CPU from the sandboxes beside it until the job ends: say so, once a process."""
    why = cpu_quota_missing()
    if why is not None:
        warnings.warn(f"local sandboxes run without a CPU quota: {why} (docs/code_sandbox.md)", stacklevel=3)


def remove_orphans() -> None:
    """Work dirs and cgroups of processes that died without cleaning up (a batch worker killed mid-run)."""
    for path in Path(tempfile.gettempdir()).glob("evalkit-sbx-*-*"):
        pid = path.name.split("-")[2]
        if pid.isdigit() and not process_alive(int(pid)):
            shutil.rmtree(path, ignore_errors=True)
    RunCgroup.remove_orphans(lambda pid: not process_alive(pid))


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass


@atexit.register
def _close_all() -> None:
    for backend in list(_backends):
        backend.close()

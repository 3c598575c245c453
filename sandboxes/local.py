"""The local backend, for hosts without Docker: bubblewrap namespaces (user, pid, network, mount,
ipc, uts), a minimal read-only view of the host (system libraries and the Python install only:
no home directories, no /etc secrets, no environment), a fresh writable work dir per run,
size-capped tmpfs /tmp and /dev/shm, the runner's per-test rlimits, and a kill of the whole
process tree at the wall-clock limit (bwrap's pid namespace dies with it).

Where the host lets us (root, or a delegated cgroup) each run also gets its own cgroup with the
same pids and memory limits as a Docker sandbox: inside bwrap the user is mapped to the host's
uid, and when that is root RLIMIT_NPROC does not bind.

Where namespaces are forbidden (e.g. Ubuntu 23.10+ blocks unprivileged user namespaces) every run
is a SANDBOX_ERROR that says how to fix it. Running without confinement needs the backend named
"unconfined" explicitly.
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from . import programs
from .base import Limits, RawRun, SandboxUnavailable
from .cgroups import RunCgroup
from .cleanup import process_alive, work_dir_prefix

MAX_STDOUT = 64 << 20
NAMESPACE_HELP = ("bubblewrap could not create namespaces here. Install it (apt-get install bubblewrap), "
                  "or allow unprivileged user namespaces (sysctl kernel.apparmor_restrict_unprivileged_userns=0 "
                  "on Ubuntu 23.10+), or use the Docker backend")


def _python_dirs() -> list[str]:
    dirs = {os.path.realpath(p) for p in (sys.base_prefix, sys.prefix, sys.exec_prefix)}
    return sorted(d for d in dirs if not any(d.startswith(s + "/") for s in ("/usr", "/lib", "/bin")))


class LocalBackend:
    """bubblewrap sandbox; `confined=False` (the "unconfined" backend) runs a plain subprocess."""

    name = "local"

    def __init__(self, confined: bool = True, python: str | None = None) -> None:
        self.confined = confined
        remove_orphan_work_dirs()
        self.python = python or os.path.realpath(sys.executable)
        if confined and shutil.which("bwrap") is None:
            raise SandboxUnavailable(NAMESPACE_HELP)
        if not confined:
            self.name = "unconfined"

    def command(self, work: str, tmpfs_bytes: int = Limits().tmpfs_mb << 20) -> list[str]:
        runner = ["python3" if self.confined else self.python, "-I", "/work/.runner.py" if self.confined else f"{work}/.runner.py"]
        if not self.confined:
            return [self.python, "-I", f"{work}/.runner.py"]
        cmd = ["bwrap", "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
               "--uid", "65534", "--gid", "65534", "--clearenv", "--setenv", "PATH", "/usr/bin:/bin",
               "--setenv", "HOME", "/work", "--setenv", "PYTHONDONTWRITEBYTECODE", "1",
               "--proc", "/proc", "--dev", "/dev", "--size", str(tmpfs_bytes), "--tmpfs", "/tmp",
               "--size", str(tmpfs_bytes), "--tmpfs", "/dev/shm"]
        for path in ("/usr", "/bin", "/lib", "/lib64", "/lib32", "/sbin", "/etc/ld.so.cache", "/etc/alternatives"):
            if os.path.exists(path):
                cmd += ["--ro-bind", path, path]
        for path in _python_dirs():
            cmd += ["--ro-bind", path, path]
        cmd += ["--bind", work, "/work", "--remount-ro", "/", "--chdir", "/work"]
        return cmd + [self.python] + runner[1:]

    def run(self, job: bytes, nonce: str, limits: Limits) -> RawRun:
        work = tempfile.mkdtemp(prefix=work_dir_prefix())
        group = RunCgroup.create(limits.sandbox_processes, limits.sandbox_memory_mb << 20) if self.confined else None
        try:
            os.chmod(work, 0o777)
            (Path(work) / ".runner.py").write_text(programs.RUNNER)
            command = (group.enter_command() if group else []) + self.command(work, limits.tmpfs_mb << 20)
            proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, start_new_session=True, cwd=work,
                                    env={"PATH": "/usr/bin:/bin"} if not self.confined else None)
            try:
                out, err = proc.communicate(job + nonce.encode() + b"\n", timeout=limits.wall_seconds)
                timed_out = False
            except subprocess.TimeoutExpired:
                _kill_tree(proc)
                out, err = proc.communicate()
                timed_out = True
            finally:
                _kill_tree(proc)
                if group is not None:
                    group.kill_all()
            if proc.returncode != 0 and not timed_out and b"EVALKIT-" not in out:
                text = err.decode("utf-8", "replace").strip()
                if self.confined and ("namespace" in text or "Permission denied" in text or "uid map" in text):
                    return RawRun(out, proc.returncode, error=f"{NAMESPACE_HELP} ({text[:200]})")
                return RawRun(out, proc.returncode, error=f"sandbox failed to start: {text[:300]}")
            return RawRun(out[:MAX_STDOUT], proc.returncode, timed_out=timed_out)
        finally:
            shutil.rmtree(work, ignore_errors=True)
            if group is not None:
                group.remove()

    def close(self) -> None:
        pass


def remove_orphan_work_dirs() -> None:
    """Work dirs of processes that died without cleaning up (a batch worker killed mid-run)."""
    for path in Path(tempfile.gettempdir()).glob("evalkit-sbx-*-*"):
        pid = path.name.split("-")[2]
        if pid.isdigit() and not process_alive(int(pid)):
            shutil.rmtree(path, ignore_errors=True)


def _kill_tree(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        pass

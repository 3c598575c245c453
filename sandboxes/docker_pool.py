"""The Docker backend: hardened containers (no network, read-only root, tmpfs work dirs, memory
and swap limits, a pids limit, a CPU quota, no-new-privileges, every capability dropped, an
unprivileged user), kept warm in a pool and reused through `exec`.

Between runs the pool kills every process of the sandbox user and wipes /work, /tmp and /dev/shm, so a run
never sees a previous run's files or processes; a container that misbehaves is replaced.
Containers carry the owner's pid in a label: `close()` and interpreter exit remove them, and a
new pool removes any whose owner process is gone (e.g. after a SIGKILL).
"""
from __future__ import annotations

import atexit
import os
import queue
import secrets
import socket
import struct
import threading
import time
import weakref
from pathlib import Path
from typing import Any

from . import programs
from .base import Limits, RawRun, SandboxUnavailable
from .cleanup import process_alive
from .image import IMAGE

SANDBOX_UID = "10001"
LABEL = "evalkit.sandbox.owner"
MAX_STDOUT = 64 << 20
WIPED = "/work /tmp /dev/shm"
CLEANUP = (f"kill -9 -1 2>/dev/null; for d in {WIPED}; do rm -rf $d/* $d/.[!.]* 2>/dev/null; done; "
           f"ls -A {WIPED} | grep -v -e : -e '^$' | wc -l")

_pools: "weakref.WeakSet[DockerBackend]" = weakref.WeakSet()


def _owner() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


class DockerBackend:
    """`pool_size` warm containers (default); `pool_size=0` makes one fresh container per run."""

    name = "docker"

    def __init__(self, pool_size: int = 2, image: str = IMAGE, limits: Limits = Limits(), cpus: float = 1.0) -> None:
        try:
            import docker
        except ImportError:
            raise SandboxUnavailable("the Docker backend needs the docker package: pip install 'evalkit[code]'") from None
        try:
            self.client = docker.from_env(timeout=60)
            self.client.ping()
        except Exception as exc:
            raise SandboxUnavailable(f"the Docker daemon does not answer ({exc}); start it, or use the local backend") from None
        try:
            self.client.images.get(image)
        except Exception:
            raise SandboxUnavailable(f"image {image} is missing: run `evalkit sandbox build`") from None
        # the same whole-sandbox limits as the local backend's cgroup, so verdicts agree
        self.image, self.cpus, self.limits = image, cpus, limits
        self.pool_size = pool_size
        self.closed = False
        self._idle: queue.Queue = queue.Queue()
        self._all: set[str] = set()
        self._lock = threading.Lock()
        self.reap_orphans()
        for _ in range(pool_size):
            self._idle.put(self._start())
        _pools.add(self)

    # ------------------------------------------------------------------ containers
    def _start(self) -> Any:
        container = self.client.containers.run(
            self.image, ["sleep", "infinity"], detach=True, network_mode="none", read_only=True,
            tmpfs={"/work": "rw,exec,nosuid,size=256m,mode=1777", "/tmp": f"rw,nosuid,size={self.limits.tmpfs_mb}m,mode=1777"},
            shm_size=f"{self.limits.tmpfs_mb}m", mem_limit=f"{self.limits.sandbox_memory_mb}m",
            memswap_limit=f"{self.limits.sandbox_memory_mb}m", pids_limit=self.limits.sandbox_processes,
            nano_cpus=int(self.cpus * 1e9), cap_drop=["ALL"], security_opt=["no-new-privileges"],
            # PID 1 and its `sleep` belong to root (without capabilities), so the sandbox user's
            # `kill -9 -1` between runs ends every process of its own and never the container
            user="0", init=True, labels={LABEL: _owner()}, environment={"HOME": "/work"})
        with self._lock:
            self._all.add(container.id)
        return container

    def _remove(self, container: Any) -> None:
        try:
            container.remove(force=True)
        except Exception:
            pass
        with self._lock:
            self._all.discard(container.id)

    def _clean(self, container: Any) -> bool:
        """Kill every sandbox-user process and wipe the writable dirs; False if the container is unwell."""
        try:
            result = container.exec_run(["sh", "-c", CLEANUP], user=SANDBOX_UID)
            return result.exit_code == 0 and result.output.strip() == b"0"
        except Exception:
            return False

    def reap_orphans(self) -> int:
        """Remove containers left by evalkit processes on this host that no longer run."""
        removed = 0
        host = socket.gethostname()
        for container in self.client.containers.list(all=True, filters={"label": LABEL}):
            owner = container.labels.get(LABEL, "")
            owner_host, _, pid = owner.partition(":")
            if owner_host == host and pid.isdigit() and not process_alive(int(pid)):
                self._remove(container)
                removed += 1
        return removed

    # ------------------------------------------------------------------ runs
    def run(self, job: bytes, nonce: str, limits: Limits) -> RawRun:
        fresh = self.pool_size == 0
        try:
            container = self._start() if fresh else self._idle.get(timeout=300)
        except queue.Empty:
            return RawRun(b"", None, error="no sandbox container became free within 300 s")
        except Exception as exc:
            return RawRun(b"", None, error=f"could not start a sandbox container: {exc}")
        healthy = True
        try:
            raw = self._exec(container, job, nonce, limits)
            healthy = raw.error is None
        except Exception as exc:
            raw, healthy = RawRun(b"", None, error=f"docker exec failed: {type(exc).__name__}: {exc}"), False
        finally:
            if fresh:
                self._remove(container)
            else:
                threading.Thread(target=self._recycle, args=(container, healthy), daemon=True).start()
        return raw

    def _recycle(self, container: Any, healthy: bool) -> None:
        """Clean a used container and give it back; replace it if it is unwell."""
        if self.closed:
            self._remove(container)
            return
        if not (healthy and self._clean(container)):
            self._remove(container)
            try:
                container = self._start()
            except Exception:
                return  # the daemon is gone; runs will report it
        if self.closed:  # closed while this one was being cleaned
            self._remove(container)
            return
        self._idle.put(container)

    def _exec(self, container: Any, job: bytes, nonce: str, limits: Limits) -> RawRun:
        api = self.client.api
        work = f"/work/run-{secrets.token_hex(6)}"
        exec_id = api.exec_create(container.id, ["python3", *programs.PYTHON_FLAGS, "-c", programs.RUNNER], stdin=True, stdout=True,
                                  stderr=True, user=SANDBOX_UID, workdir="/work", environment={"HOME": work})["Id"]
        sock = api.exec_start(exec_id, socket=True)
        raw_sock = getattr(sock, "_sock", sock)
        deadline = time.monotonic() + limits.wall_seconds
        try:
            raw_sock.sendall(_with_work_dir(job, work) + nonce.encode() + b"\n")
            raw_sock.shutdown(socket.SHUT_WR)
            stdout, timed_out = _read_frames(raw_sock, deadline)
        finally:
            try:
                raw_sock.close()
            except OSError:
                pass
        if timed_out:
            container.exec_run(["sh", "-c", "kill -9 -1"], user=SANDBOX_UID)
            return RawRun(stdout, None, timed_out=True)
        code = api.exec_inspect(exec_id).get("ExitCode")
        return RawRun(stdout, code)

    def close(self) -> None:
        self.closed = True
        with self._lock:
            ids = list(self._all)
        for cid in ids:
            try:
                self.client.containers.get(cid).remove(force=True)
            except Exception:
                pass
        with self._lock:
            self._all.clear()
        while not self._idle.empty():
            self._idle.get_nowait()
        try:
            self.reap_orphans()  # containers of worker processes that were killed
        except Exception:
            pass


def _with_work_dir(job: bytes, work: str) -> bytes:
    """Insert the per-run work dir into the length-prefixed job."""
    import json

    _length, _, body = job.partition(b"\n")
    data = json.loads(body)
    data["work"] = work
    encoded = json.dumps(data).encode()
    return str(len(encoded)).encode() + b"\n" + encoded


def _read_frames(sock: Any, deadline: float) -> tuple[bytes, bool]:
    """Docker's multiplexed stream: 8-byte headers (stream id, size); keep stdout, drop stderr."""
    buffer, stdout = b"", bytearray()
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return bytes(stdout), True
        sock.settimeout(left)
        try:
            chunk = sock.recv(65536)
        except (socket.timeout, TimeoutError):
            return bytes(stdout), True
        if not chunk:
            return bytes(stdout), False
        buffer += chunk
        while len(buffer) >= 8:
            stream, size = buffer[0], struct.unpack(">I", buffer[4:8])[0]
            if len(buffer) < 8 + size:
                break
            if stream == 1 and len(stdout) < MAX_STDOUT:
                stdout += buffer[8:8 + size]
            buffer = buffer[8 + size:]


def remove_containers_of(pid: int) -> int:
    """Remove the sandbox containers owned by process `pid` on this host (0 if Docker is absent)."""
    try:
        import docker

        client = docker.from_env(timeout=30)
        found = client.containers.list(all=True, filters={"label": f"{LABEL}={socket.gethostname()}:{pid}"})
    except Exception:
        return 0
    for container in found:
        try:
            container.remove(force=True)
        except Exception:
            pass
    return len(found)


@atexit.register
def _close_pools() -> None:
    for pool in list(_pools):
        pool.close()

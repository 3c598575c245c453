"""The Docker backend: hardened containers (no network, read-only root, tmpfs work dirs, memory
and swap limits, a pids limit, a CPU quota, no-new-privileges, every capability dropped, an
unprivileged user), kept warm in a pool and reused through `exec`.

Each container keeps one runner serving job after job, talking to the host over a unix socket made
for it (see `_Session`; the `docker exec` stream where none connects); between jobs
the runner kills every other process of the sandbox user and wipes /work, /tmp and /dev/shm, so a
run never sees a previous run's files or processes. A container whose run overruns its wall clock
or breaks the protocol is replaced.
Containers carry the owner's pid in a label: `close()` and interpreter exit remove them, and a
new pool removes any whose owner process is gone (e.g. after a SIGKILL).
"""

from __future__ import annotations

import atexit
import glob
import os
import queue
import secrets
import shutil
import socket
import struct
import tempfile
import threading
import time
import weakref
from typing import Any

from . import libraries, programs
from .base import MAX_STDOUT, SANDBOX_CPUS, STOP, Limits, RawRun, SandboxUnavailable, Watch
from .image import IMAGE
from .owners import LABEL, process_alive
from .preload import preload_arguments
from .runner import CHANNEL_FLAG, JOB_USER_FLAG, SANDBOX_PIDS_LIMIT_FLAG
from .users import RUNNER_CAPABILITIES, RUNNER_UID, SANDBOX_UID

_pools: "weakref.WeakSet[DockerBackend]" = weakref.WeakSet()


def _owner() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


class DockerBackend:
    """`pool_size` warm containers (default); `pool_size=0` makes one fresh container per run."""

    name = "docker"

    def __init__(
        self, pool_size: int = 2, image: str = IMAGE, limits: Limits = Limits(), cpus: float = SANDBOX_CPUS
    ) -> None:
        try:
            import docker
        except ImportError:
            raise SandboxUnavailable(
                "the Docker backend needs the docker package: bash scripts/setup-env.sh installs every part "
                "(pip install 'evalkit-rl[code]' for this one)"
            ) from None
        try:
            self.client = docker.from_env(timeout=60)
            self.client.ping()
        except Exception as exc:
            raise SandboxUnavailable(
                f"the Docker daemon does not answer ({exc}); start it (bash scripts/setup-env.sh installs and starts "
                "it), or use the local backend"
            ) from None
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
        self._sessions: dict[str, _Session] = {}  # container id -> its serving runner
        self._channels: dict[str, str] = {}  # container id -> the host folder its runner's channel is made in
        self._lock = threading.Lock()
        self.reap_orphans()
        for _ in range(pool_size):
            self._idle.put(self._start())
        _pools.add(self)

    def library_paths(self, packages: tuple[str, ...]) -> list[str]:
        self._extra_mounts(packages)  # an allowed package neither in the image nor on this host fails here
        return libraries.search_paths(libraries.SANDBOX_ROOT, packages)

    @staticmethod
    def _extra_mounts(packages: tuple[str, ...]) -> dict[str, dict[str, str]]:
        """The host's copies of allowed packages the image lacks, bound read-only beside its own."""
        extra = tuple(p for p in packages if p not in libraries.IMAGE_PACKAGES)
        return {source: {"bind": target, "mode": "ro"} for source, target in libraries.bind_targets(extra)}

    # ------------------------------------------------------------------ containers
    def _start(self) -> Any:
        channels = _channel_dir()
        container = self.client.containers.run(
            self.image,
            ["sleep", "infinity"],
            detach=True,
            network_mode="none",
            read_only=True,
            tmpfs={
                "/work": "rw,exec,nosuid,size=256m,mode=1777",
                "/tmp": f"rw,nosuid,size={self.limits.tmpfs_mb}m,mode=1777",
            },
            shm_size=f"{self.limits.tmpfs_mb}m",
            mem_limit=f"{self.limits.sandbox_memory_mb}m",
            memswap_limit=f"{self.limits.sandbox_memory_mb}m",
            pids_limit=self.limits.sandbox_processes,
            nano_cpus=int(self.cpus * 1e9),
            cap_drop=["ALL"],
            cap_add=RUNNER_CAPABILITIES,
            security_opt=["no-new-privileges"],
            # PID 1 and its `sleep` belong to root, so the sandbox user's `kill -9 -1` ends every
            # process of its own and never the container; the runner, root too, kills only the job user's
            user="0",
            init=True,
            labels={LABEL: _owner()},
            environment={"HOME": "/work"},
            volumes={**self._extra_mounts(self.limits.packages), channels: {"bind": CHANNEL_MOUNT, "mode": "ro"}},
        )
        with self._lock:
            self._all.add(container.id)
            self._channels[container.id] = channels
        return container

    def _remove(self, container: Any) -> None:
        with self._lock:
            session = self._sessions.pop(container.id, None)
        if session is not None:
            session.close()
        try:
            container.remove(force=True)
        except Exception:
            pass
        with self._lock:
            self._all.discard(container.id)
            channels = self._channels.pop(container.id, None)
        if channels is not None:
            shutil.rmtree(channels, ignore_errors=True)

    def reap_orphans(self) -> int:
        """Remove containers left by evalkit processes on this host that no longer run."""
        return _reap_orphans(self.client)

    # ------------------------------------------------------------------ runs
    def run(self, job: bytes, nonce: str, limits: Limits, watch: Watch | None = None) -> RawRun:
        if self.pool_size == 0:
            return self._run_fresh(job, nonce, limits)
        try:
            container = self._idle.get(timeout=300)
        except queue.Empty:
            return RawRun(b"", None, error="no sandbox container became free within 300 s")
        healthy = False
        try:
            session = self._sessions.get(container.id) or self._open_session(container)
            raw, healthy = session.run(job, nonce, limits.wall_seconds, watch)  # the runner works in /work
        except Exception as exc:
            raw = RawRun(b"", None, error=f"docker exec failed: {type(exc).__name__}: {exc}")
        finally:
            if healthy and not self.closed:
                self._idle.put(container)  # the serving runner left it clean
            else:
                threading.Thread(target=self._replace, args=(container,), daemon=True).start()
        return raw

    def _open_session(self, container: Any) -> "_Session":
        preloaded = preload_arguments(self.limits.packages, self.library_paths(self.limits.packages))
        session = _Session(self.client.api, container.id, preloaded, self._channels.get(container.id))
        with self._lock:
            self._sessions[container.id] = session
        return session

    def _run_fresh(self, job: bytes, nonce: str, limits: Limits) -> RawRun:
        """One fresh container for this run, removed after it (how code-r1 uses Docker)."""
        try:
            container = self._start()
        except Exception as exc:
            return RawRun(b"", None, error=f"could not start a sandbox container: {exc}")
        try:
            return self._exec(container, job, nonce, limits)
        except Exception as exc:
            return RawRun(b"", None, error=f"docker exec failed: {type(exc).__name__}: {exc}")
        finally:
            self._remove(container)

    def _replace(self, container: Any) -> None:
        """Remove a container that overran or broke the protocol, and start a fresh one in its place."""
        self._remove(container)
        if self.closed:
            return
        try:
            fresh = self._start()
        except Exception:
            return  # the daemon is gone; runs will report it
        if self.closed:
            self._remove(fresh)
            return
        self._idle.put(fresh)

    def _exec(self, container: Any, job: bytes, nonce: str, limits: Limits) -> RawRun:
        api = self.client.api
        exec_id, raw_sock = _start_runner(api, container.id)
        deadline = time.monotonic() + limits.wall_seconds
        try:
            raw_sock.sendall(job + nonce.encode() + b"\n")  # a fresh container: its /work is the run's
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
            channels, self._channels = list(self._channels.values()), {}
        for folder in channels:
            shutil.rmtree(folder, ignore_errors=True)
        while not self._idle.empty():
            self._idle.get_nowait()
        try:
            self.reap_orphans()  # containers of worker processes that were killed
        except Exception:
            pass


class _Session:
    """A runner in `--serve` mode inside one container: job after job, each ending with a `done` line
    written after the runner has cleaned the container (killed every other sandbox-user process,
    emptied /work, /tmp and /dev/shm). It talks over a unix socket the host listened on for its one
    connection, in the container's channel folder (`/channel`, read-only there), closed and removed
    once the runner connected, before any job: the `docker exec` stream costs the Docker daemon about
    2 ms of CPU a program to relay. Where the runner cannot connect, that stream serves."""

    def __init__(
        self, api: Any, container_id: str, preloaded: list[str] | None = None, channels: str | None = None
    ) -> None:
        listener = _listen(channels) if channels is not None else None
        channel = [CHANNEL_FLAG, f"{CHANNEL_MOUNT}/{os.path.basename(listener[1])}"] if listener else []
        _exec_id, self.stream = _start_runner(api, container_id, "--serve", *(preloaded or []), *channel)
        self.sock, self.frames = self.stream, _Frames()
        if listener is not None:
            link = _accept_runner(*listener)
            if link is not None:  # the runner's stdin and stdout are this socket: plain bytes, no frames
                self.sock, self.frames = link, None

    def run(self, job: bytes, nonce: str, wall_seconds: float, watch: Watch | None = None) -> tuple[RawRun, bool]:
        """(what came back, whether the session can serve another job)."""
        done = f'EVALKIT-{nonce} {{"done": true}}\n'.encode()
        deadline = time.monotonic() + wall_seconds
        self.sock.settimeout(wall_seconds)
        self.sock.sendall(job + nonce.encode() + b"\n")
        stdout = bytearray()
        while not stdout.endswith(done):
            left = deadline - time.monotonic()
            if left <= 0:
                return RawRun(bytes(stdout), None, timed_out=True), False
            self.sock.settimeout(left)
            try:
                chunk = self.sock.recv(65536)
            except (socket.timeout, TimeoutError):
                return RawRun(bytes(stdout), None, timed_out=True), False
            if not chunk:  # the runner died mid-job (the program killed it): what it said still counts
                return RawRun(bytes(stdout), None), False
            piece = self.frames.stdout_of(chunk) if self.frames is not None else chunk
            if len(stdout) < MAX_STDOUT:
                stdout += piece
            if watch is not None and watch(piece):
                self.sock.sendall(STOP)
        return RawRun(bytes(stdout), 0), True

    def close(self) -> None:
        for sock in {self.sock, self.stream}:
            try:
                sock.close()
            except OSError:
                pass


CHANNEL_MOUNT = "/channel"  # where a container sees its host folder of channels (read-only)
CHANNEL_PREFIX = "evalkit-channel-"
CHANNEL_SECONDS = 15.0  # for a runner to connect: it starts (and preloads its packages) in well under a second


def _channel_dir() -> str:
    """A host folder for one container's channels, reachable by the runner (root) only."""
    # named with the owner's pid, so that `_reap_orphans` removes the folders of a process that is gone
    folder = tempfile.mkdtemp(prefix=f"{CHANNEL_PREFIX}{os.getpid()}-", suffix="-")
    try:
        os.chown(folder, int(RUNNER_UID), -1)
    except OSError:  # not root: the peer's user id is still checked when it connects
        os.chmod(folder, 0o755)
    return folder


def _listen(folder: str) -> tuple[socket.socket, str] | None:
    """A unix socket listening in `folder` for the runner's one connection, and its path."""
    path = os.path.join(folder, f"{secrets.token_hex(8)}.sock")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        listener.bind(path)
        os.chmod(path, 0o666)  # the folder keeps out everyone but the sandbox user (and root)
        listener.listen(1)
    except OSError:
        listener.close()
        return None
    return listener, path


def _accept_runner(listener: socket.socket, path: str) -> socket.socket | None:
    """The runner's connection (a peer of the container's root: no job code, which runs as the
    sandbox user, can pass for it), or None if none came in time (a daemon
    on another host, a remapped user namespace): the session then uses the exec stream. The listener
    is closed and its file removed either way, so nothing in the sandbox can connect later."""
    deadline = time.monotonic() + CHANNEL_SECONDS
    try:
        while (left := deadline - time.monotonic()) > 0:
            listener.settimeout(left)
            try:
                link, _ = listener.accept()
            except (socket.timeout, TimeoutError, OSError):
                return None
            uid = struct.unpack("3i", link.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))[1]
            if uid == int(RUNNER_UID):
                link.settimeout(None)
                return link
            link.close()  # not the sandbox's runner
        return None
    finally:
        listener.close()
        try:
            os.unlink(path)
        except OSError:
            pass


def _start_runner(api: Any, container_id: str, *args: str) -> tuple[str, Any]:
    """The runner started in the container as root, its job code as the sandbox user, in /work:
    (exec id, its raw socket)."""
    exec_id = api.exec_create(
        container_id,
        [
            "python3",
            *programs.PYTHON_FLAGS,
            "-c",
            programs.RUNNER,
            *args,
            JOB_USER_FLAG,
            SANDBOX_UID,
            SANDBOX_PIDS_LIMIT_FLAG,
        ],
        stdin=True,
        stdout=True,
        stderr=True,
        user=RUNNER_UID,
        workdir="/work",
        environment={"HOME": "/work"},
    )["Id"]
    sock = api.exec_start(exec_id, socket=True)
    return exec_id, getattr(sock, "_sock", sock)


class _Frames:
    """Docker's multiplexed stream: 8-byte headers (stream id, size); stdout kept, stderr dropped."""

    def __init__(self) -> None:
        self.buffer = b""

    def stdout_of(self, chunk: bytes) -> bytes:
        self.buffer += chunk
        out = bytearray()
        while len(self.buffer) >= 8:
            stream, size = self.buffer[0], struct.unpack(">I", self.buffer[4:8])[0]
            if len(self.buffer) < 8 + size:
                break
            if stream == 1:
                out += self.buffer[8 : 8 + size]
            self.buffer = self.buffer[8 + size :]
        return bytes(out)


def _read_frames(sock: Any, deadline: float) -> tuple[bytes, bool]:
    """All of a one-shot exec's stdout, until it closes or the deadline passes: (stdout, timed out)."""
    frames, stdout = _Frames(), bytearray()
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
        if len(stdout) < MAX_STDOUT:
            stdout += frames.stdout_of(chunk)


def _owned(client: Any, owner: str | None = None) -> list[tuple[str, str]]:
    """(container id, owner label) of every sandbox container, or of one owner's. Read from the list
    call alone: inspecting each one after listing fails when another process removed it meanwhile
    (two pools starting at once both reap the same orphan)."""
    label = LABEL if owner is None else f"{LABEL}={owner}"
    return [
        (c["Id"], (c.get("Labels") or {}).get(LABEL, ""))
        for c in client.api.containers(all=True, filters={"label": label})
    ]


def _remove_quietly(client: Any, container_id: str) -> bool:
    """Remove one container; False when it was already gone (another process got there first)."""
    try:
        client.api.remove_container(container_id, force=True)
        return True
    except Exception:
        return False


def _reap_orphans(client: Any) -> int:
    host, removed = socket.gethostname(), 0
    for container_id, owner in _owned(client):
        owner_host, _, pid = owner.partition(":")
        if owner_host == host and pid.isdigit() and not process_alive(int(pid)):
            removed += _remove_quietly(client, container_id)
    for folder in glob.glob(os.path.join(tempfile.gettempdir(), f"{CHANNEL_PREFIX}*-")):  # their channel folders
        pid = os.path.basename(folder)[len(CHANNEL_PREFIX) :].split("-")[0]
        if pid.isdigit() and not process_alive(int(pid)):
            shutil.rmtree(folder, ignore_errors=True)
    return removed


def remove_containers_of(pid: int) -> int:
    """Remove the sandbox containers owned by process `pid` on this host (0 if Docker is absent)."""
    try:
        import docker

        client = docker.from_env(timeout=30)
        found = _owned(client, f"{socket.gethostname()}:{pid}")
    except Exception:
        return 0
    return sum(_remove_quietly(client, container_id) for container_id, _owner in found)


def reap_orphan_containers() -> int:
    """Remove the sandbox containers on this host whose owning process is gone (0 if Docker is absent)."""
    try:
        import docker

        return _reap_orphans(docker.from_env(timeout=30))
    except Exception:
        return 0


@atexit.register
def _close_pools() -> None:
    for pool in list(_pools):
        pool.close()

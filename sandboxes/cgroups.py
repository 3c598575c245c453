"""A control group per sandbox run, where the host lets us make one (as root, or with a delegated
cgroup): a pids limit that binds whatever uid the host runs as (RLIMIT_NPROC does not bind root),
a memory limit that also counts the run's tmpfs (/tmp, /dev/shm) pages, and, where the `cpu`
controller can be written too, a CPU quota for all of the sandbox's processes together (as a Docker
container's `cpus`): children that leave a program's process group and spin take the sandbox's own
share, never the CPU of the sandboxes beside it. Where it cannot, `cpu_quota_missing` says so once.

Both cgroup v1 (one hierarchy per controller) and v2 (one unified tree) are handled; where
neither can be written, `RunCgroup.create` returns None and the runner's rlimits are the limits.
"""

from __future__ import annotations

import os
import secrets
import time
from pathlib import Path
from typing import Callable

ROOT = Path("/sys/fs/cgroup")


def _own_paths() -> dict[str, str]:
    """This process's cgroup path per controller ("" for the v2 tree)."""
    paths: dict[str, str] = {}
    try:
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _id, controllers, path = line.split(":", 2)
            for name in controllers.split(",") if controllers else [""]:
                paths[name] = path
    except (OSError, ValueError):
        pass
    return paths


def _parents() -> dict[str, Path] | None:
    """Where to make run groups: {"pids": dir, "memory": dir} and "cpu": dir where that controller is
    writable too (the same dir for each on v2)."""
    own = _own_paths()
    v1 = {c: ROOT / c / own[c].lstrip("/") for c in ("pids", "memory", "cpu") if c in own and (ROOT / c).is_dir()}
    v1 = {c: path for c, path in v1.items() if os.access(path, os.W_OK)}
    if {"pids", "memory"} <= set(v1):
        return v1
    if "" in own and (ROOT / "cgroup.controllers").exists():
        base = ROOT / own[""].lstrip("/")
        try:
            enabled = set((base / "cgroup.subtree_control").read_text().split())
        except OSError:
            return None
        if {"pids", "memory"} <= enabled and os.access(base, os.W_OK):
            return {c: base for c in ("pids", "memory", "cpu") if c in enabled}
    return None


CPU_PERIOD_US = 100_000


def cpu_quota_missing() -> str | None:
    """Why sandboxes get no CPU quota on this host, or None where they do."""
    parents = _parents()
    if parents is None:
        return "no cgroup can be made here (run as root, or delegate a cgroup)"
    if "cpu" not in parents:
        return "the cgroup cpu controller cannot be written here"
    return None


class RunCgroup:
    """One run's group(s). `enter_command` puts a shell into it before it execs the sandbox."""

    def __init__(self, dirs: list[Path]) -> None:
        self.dirs = dirs

    @classmethod
    def create(cls, pids_max: int, memory_bytes: int, cpus: float | None = None) -> "RunCgroup | None":
        parents = _parents()
        if parents is None:
            return None
        name = f"evalkit-{os.getpid()}-{secrets.token_hex(4)}"
        made: list[Path] = []
        try:
            for controller, parent in parents.items():
                path = parent / name
                if path not in made:
                    path.mkdir()
                    made.append(path)
                if controller == "cpu":
                    if cpus is not None:
                        quota = str(int(cpus * CPU_PERIOD_US))
                        if (path / "cpu.max").exists():
                            (path / "cpu.max").write_text(f"{quota} {CPU_PERIOD_US}")
                        else:
                            (path / "cpu.cfs_period_us").write_text(str(CPU_PERIOD_US))
                            (path / "cpu.cfs_quota_us").write_text(quota)
                elif controller == "pids":
                    (path / "pids.max").write_text(str(pids_max))
                elif (path / "memory.max").exists():
                    (path / "memory.max").write_text(str(memory_bytes))
                    (path / "memory.swap.max").write_text("0") if (path / "memory.swap.max").exists() else None
                else:
                    (path / "memory.limit_in_bytes").write_text(str(memory_bytes))
        except OSError:
            cls(made).remove()
            return None
        return cls(made)

    @classmethod
    def remove_orphans(cls, owner_gone: "Callable[[int], bool]") -> int:
        """Kill what is left in, and remove, the run groups whose owner process `owner_gone`."""
        parents = _parents()
        found = {d for parent in (parents or {}).values() for d in parent.glob("evalkit-*-*")}
        orphans = [d for d in found if d.name.split("-")[1].isdigit() and owner_gone(int(d.name.split("-")[1]))]
        for d in orphans:
            group = cls([d])
            group.kill_all()
            group.remove()
        return len(orphans)

    def enter_command(self) -> list[str]:
        """`sh -c` that moves itself into the group(s), then execs the rest of the command line."""
        moves = " && ".join(f"echo $$ > '{d}/cgroup.procs'" for d in self.dirs)
        return ["sh", "-c", f'{moves} && exec "$@"', "sh"]

    def kill_all(self) -> None:
        """SIGKILL every process left in the group (a daemon that escaped the process group)."""
        for d in self.dirs:
            kill = d / "cgroup.kill"
            if kill.exists():
                try:
                    kill.write_text("1")
                    continue
                except OSError:
                    pass
            try:
                pids = [int(p) for p in (d / "cgroup.procs").read_text().split()]
            except (OSError, ValueError):
                continue
            for pid in pids:
                try:
                    os.kill(pid, 9)
                except OSError:
                    pass

    def shared_memory_bytes(self) -> int | None:
        """Shared memory charged to the group (tmpfs files, SysV segments): what a job can leave
        behind in a warm sandbox. None where the memory controller's stats cannot be read."""
        from .runner import shared_memory_bytes  # the runner's own reading, of this group's file

        return shared_memory_bytes([d / "memory.stat" for d in self.dirs])

    def remove(self) -> None:
        for d in self.dirs:
            for _ in range(50):
                try:
                    d.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:  # processes still exiting
                    time.sleep(0.01)


__all__ = ["RunCgroup", "cpu_quota_missing"]

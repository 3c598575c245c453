"""Releasing what a process that was killed held in sandboxes: its Docker containers (labelled
with their owner's pid) and its local work dirs (named with it). Callers are the batch pool, after
it kills a worker, and each backend, when it starts, for owners that died unseen."""

from __future__ import annotations

import glob
import os
import shutil
import tempfile


def work_dir_prefix(pid: int | None = None) -> str:
    return f"evalkit-sbx-{os.getpid() if pid is None else pid}-"


def remove_work_dirs(pid: int) -> int:
    """Delete the local backend's work dirs of process `pid`."""
    dirs = glob.glob(os.path.join(tempfile.gettempdir(), work_dir_prefix(pid) + "*"))
    for path in dirs:
        shutil.rmtree(path, ignore_errors=True)
    return len(dirs)


def process_alive(pid: int) -> bool:
    """True while `pid` runs. A zombie (dead, not yet reaped by whoever adopted it: a killed Ray
    actor's pool worker waits on an init that may reap late) is dead: what it owned can go."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rpartition(")")[2].split()[0] != "Z"
    except (OSError, IndexError):
        return True


def family_alive(pids: set[int]) -> bool:
    """True while one of `pids`, or a process in a group one of them leads, is alive. A Ray actor
    leads its own process group and the pool workers it started stay in it after it dies, so this
    turns False only once nothing that could still create or hold a sandbox there is left."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                state, _ppid, pgrp = fh.read().rpartition(")")[2].split()[:3]
        except (OSError, ValueError):
            continue  # gone meanwhile
        if state != "Z" and (int(entry) in pids or int(pgrp) in pids):
            return True
    return False


def release_process(pid: int) -> None:
    """Everything sandbox-related that process `pid` left: containers and work dirs."""
    remove_work_dirs(pid)
    from .cgroups import RunCgroup

    RunCgroup.remove_orphans(lambda owner: owner == pid)
    from .docker_pool import remove_containers_of

    remove_containers_of(pid)


def release_orphans(docker: bool = False) -> None:
    """Everything sandbox-related left on this host by evalkit processes that are gone."""
    from .local import remove_orphans

    remove_orphans()
    if docker:
        from .docker_pool import reap_orphan_containers

        reap_orphan_containers()

"""Who owns a sandbox and whether it still lives: the local backend's work dirs are named with
their owner's pid (Docker containers carry it as a label), so what a process that died left can be
found and released (`cleanup.py`)."""

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

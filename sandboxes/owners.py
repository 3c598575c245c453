"""Who owns a sandbox and whether it still lives: the local backend's work dirs are named with
their owner's pid (Docker containers carry it as a label), so what a process that died left can be
found and released (`cleanup.py`)."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile

LABEL = "evalkit.sandbox.owner"  # a Docker sandbox's label: "<host>:<pid of the process that made it>"


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


def container_owners() -> dict[str, int]:
    """Every sandbox container on this host (asked of Docker's command line, so a process without
    the docker package can ask too) and the pid of the process that made it; {} where Docker cannot
    be asked."""
    try:
        listed = subprocess.run(
            ["docker", "ps", "-a", "--filter", f"label={LABEL}", "--format", f'{{{{.ID}}}} {{{{.Label "{LABEL}"}}}}'],
            capture_output=True,
            text=True,
            timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired):
        return {}
    rows = (line.split() for line in listed.stdout.splitlines() if line.strip())
    return {
        row[0]: int(row[1].rpartition(":")[2]) for row in rows if len(row) == 2 and row[1].rpartition(":")[2].isdigit()
    }


def descendants(pid: int) -> set[int]:
    """Every process below `pid` (from /proc's parent links; `pid` itself not included)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    parent = int(fh.read().rpartition(")")[2].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            children.setdefault(parent, []).append(int(entry))
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found

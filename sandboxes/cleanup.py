"""Releasing what a process that was killed held in sandboxes: its Docker containers (labelled
with their owner's pid) and its local work dirs (named with it). Callers are the batch pool, after
it kills a worker, and each backend, when it starts, for owners that died unseen."""

from __future__ import annotations

from .cgroups import RunCgroup
from .docker_pool import reap_orphan_containers, remove_containers_of
from .local import remove_orphans
from .owners import remove_work_dirs


def release_process(pid: int) -> None:
    """Everything sandbox-related that process `pid` left: containers and work dirs."""
    remove_work_dirs(pid)
    RunCgroup.remove_orphans(lambda owner: owner == pid)
    remove_containers_of(pid)


def release_orphans(docker: bool = False) -> None:
    """Everything sandbox-related left on this host by evalkit processes that are gone."""
    remove_orphans()
    if docker:
        reap_orphan_containers()

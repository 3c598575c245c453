"""Extra pure-Python packages a sandbox offers the program: the judge's Python environment.

Public LeetCode-style data sets assume LeetCode's judge, which has `sortedcontainers` (some rows'
trusted preamble imports it). The sandbox interpreter runs `python3 -I -S`, so nothing of the host's
site-packages is importable; each allowed package instead sits alone in its own directory,
`<root>/<name>/<name>`, and only the directories of the packages a run allows go on `sys.path`.
A package that is not allowed stays unimportable (a runtime error of the program, never ERROR).

Where the package comes from: the Docker image has the default set installed at `SANDBOX_ROOT`
(`evalkit sandbox build`); the local backend binds the host's installed copy read-only there, and
so does the Docker backend for an allowed package the image lacks.
"""

from __future__ import annotations

import importlib.util
import os
import re
import tempfile
from pathlib import Path

from .base import SandboxUnavailable

SANDBOX_ROOT = "/opt/evalkit-lib"
DEFAULT_PACKAGES: tuple[str, ...] = ("sortedcontainers",)  # what LeetCode's Python judge offers
IMAGE_PACKAGES: tuple[str, ...] = DEFAULT_PACKAGES  # baked into the Docker image
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


class PackageUnavailable(SandboxUnavailable):
    """An allowed package is not installed where the sandbox takes it from."""


def check_names(packages: tuple[str, ...] | list[str]) -> None:
    """Top-level import names only (`sortedcontainers`, not `sortedcontainers.sortedlist`)."""
    for name in packages:
        if not isinstance(name, str) or not _NAME.match(name):
            raise ValueError(f"packages must be top-level import names, got {name!r}")


def host_location(name: str) -> Path:
    """The host's installed copy of a top-level package or module (found without importing it)."""
    spec = importlib.util.find_spec(name)
    if spec is None:
        raise PackageUnavailable(f"package {name!r} is not installed on this host: pip install {name}")
    if spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations)))
    if spec.origin and spec.origin.endswith(".py"):
        return Path(spec.origin)
    raise PackageUnavailable(f"package {name!r} is not a pure-Python package or module ({spec.origin})")


def bind_targets(packages: tuple[str, ...]) -> list[tuple[str, str]]:
    """(host path, sandbox path) for each package: the host copy bound at `<root>/<name>/<base>`."""
    pairs = []
    for name in packages:
        source = host_location(name)
        pairs.append((str(source), f"{SANDBOX_ROOT}/{name}/{source.name}"))
    return pairs


def host_library(packages: tuple[str, ...]) -> str:
    """For a run with no sandbox (the "unconfined" backend): a host directory laid out like
    `SANDBOX_ROOT`, of symlinks to the installed copies."""
    root = Path(tempfile.gettempdir()) / f"evalkit-lib-{os.getuid()}"
    for name in packages:
        source = host_location(name)
        link = root / name / source.name
        link.parent.mkdir(parents=True, exist_ok=True)
        if not link.is_symlink() or os.readlink(link) != str(source):
            tmp = link.with_name(f".{source.name}.{os.getpid()}")
            tmp.unlink(missing_ok=True)
            tmp.symlink_to(source)
            tmp.replace(link)
    return str(root)


def search_paths(root: str, packages: tuple[str, ...]) -> list[str]:
    """The `sys.path` entries that make exactly `packages` importable."""
    return [f"{root}/{name}" for name in packages]


def prelude(paths: list[str]) -> str:
    """Source that puts `paths` first on the interpreter's `sys.path` (empty when none)."""
    if not paths:
        return ""
    return f"import sys as _sys\n_sys.path[:0] = {paths!r}\ndel _sys\n"

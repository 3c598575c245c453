"""Every name a module promises in `__all__` imports: a public name that raises on import (a module
renamed under it) is a broken promise to every user who copies it from the docs."""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("verifiers", "evalkit", "sandboxes", "pytest_plugin")


def declares_all(path: Path) -> bool:
    return any(line.startswith("__all__") for line in path.read_text().splitlines())


def modules_with_all() -> list[str]:
    """Every module of our packages whose source declares `__all__` (read, not imported)."""
    found = []
    for package in PACKAGES:
        init = ROOT / package / "__init__.py"
        if declares_all(init):
            found.append(package)
        for info in pkgutil.walk_packages([str(ROOT / package)], prefix=f"{package}."):
            path = ROOT / (info.name.replace(".", "/") + ("/__init__.py" if info.ispkg else ".py"))
            if path.exists() and declares_all(path):
                found.append(info.name)
    return found


@pytest.mark.parametrize("module", modules_with_all())
def test_every_name_in_all_imports(module):
    mod = importlib.import_module(module)
    missing = []
    for name in mod.__all__:
        try:
            getattr(mod, name)
        except Exception as exc:  # an AttributeError, or a lazy import that fails
            missing.append(f"{name}: {type(exc).__name__}: {exc}")
    assert not missing, missing

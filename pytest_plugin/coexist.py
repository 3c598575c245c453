"""Is the `verifiers` package on the path evalkit's? PyPI has another popular package whose
import name is also `verifiers`; with it installed, `import verifiers` finds theirs. The check
reads the package's files without importing it, so a pytest session that never uses evalkit is
never broken by it."""

from __future__ import annotations

import importlib.util
from functools import lru_cache
from pathlib import Path

# Files only evalkit's `verifiers` has side by side.
OUR_FILES = ("registry.py", "winrate.py", "score.py", "splits.py")
FIX = (
    "install evalkit in its own virtual environment (python -m venv), or remove the other package "
    "(pip uninstall verifiers) and reinstall evalkit"
)


@lru_cache(maxsize=1)
def foreign_verifiers() -> str | None:
    """None when `verifiers` is evalkit's (or absent); else where the other one lives."""
    spec = importlib.util.find_spec("verifiers")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations)))
    return None if all((folder / name).is_file() for name in OUR_FILES) else str(folder)


def conflict_message() -> str:
    return (
        f"the `verifiers` package at {foreign_verifiers()} is not evalkit's (PyPI has another package with "
        f"that import name); {FIX}"
    )

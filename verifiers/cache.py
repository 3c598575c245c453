"""An on-disk score cache (SQLite), so a rerun never pays twice for the same item.

A key is the item (completion and task), the scorer's config and a digest of the code that scores
(`code_version`): a fix to a verifier (a hole a model found) must never be undone by the scores
the old code cached, so any change to that code starts the cache afresh.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import json
import sqlite3
import threading
from pathlib import Path
from typing import Any, Iterable

from .score import Score


class ScoreCache:
    """Maps item hashes (`batch._identities`) to scores. Safe to share between threads of one process."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS scores (key TEXT PRIMARY KEY, score TEXT NOT NULL)")
        self._lock = threading.Lock()

    def get_many(self, keys: Iterable[str]) -> dict[str, Score]:
        keys = list(keys)
        found: dict[str, Score] = {}
        with self._lock:
            for start in range(0, len(keys), 500):
                part = keys[start : start + 500]
                rows = self._db.execute(
                    f"SELECT key, score FROM scores WHERE key IN ({','.join('?' * len(part))})", part
                )
                found.update({k: Score.from_dict(json.loads(v)) for k, v in rows})
        return found

    def put_many(self, scores: dict[str, Score]) -> None:
        with self._lock, self._db:
            self._db.executemany(
                "INSERT OR REPLACE INTO scores VALUES (?, ?)",
                [(k, json.dumps(s.to_dict())) for k, s in scores.items()],  # ASCII: any str round-trips
            )

    def __len__(self) -> int:
        with self._lock:
            return self._db.execute("SELECT COUNT(*) FROM scores").fetchone()[0]

    def close(self) -> None:
        self._db.close()


SCORING_PACKAGES = ("verifiers", "sandboxes")  # ours: every reward is computed by code in these


def code_version(scorer: Any) -> str:
    """A digest of the source that gives `scorer`'s rewards: our scoring packages, and the file
    that defines its class where that is elsewhere (a third-party verifier)."""
    try:
        own = str(Path(inspect.getfile(type(scorer))).resolve())
    except (TypeError, OSError):
        own = ""
    return _digest_of(own)


@functools.lru_cache(maxsize=None)
def _digest_of(extra_file: str) -> str:
    import importlib

    files = {str(path.resolve()) for name in SCORING_PACKAGES for path in _sources(importlib.import_module(name))}
    if extra_file:
        files.add(extra_file)
    digest = hashlib.blake2b(digest_size=16)
    for file in sorted(files):
        digest.update(Path(file).name.encode() + b"\0")
        try:
            digest.update(Path(file).read_bytes())
        except OSError:
            digest.update(b"(unreadable)")
    return digest.hexdigest()


def _sources(package: Any) -> list[Path]:
    """A package's Python files and the sandbox image's recipe (what a program runs on)."""
    root = Path(package.__file__).parent
    return [*root.rglob("*.py"), *root.rglob("Dockerfile")]

"""An on-disk score cache (SQLite), so a rerun never pays twice for the same item."""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path
from typing import Iterable

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

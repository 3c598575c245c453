"""Append-only JSONL files that survive interruption: a rerun picks up where the last one stopped."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Iterator

from verifiers.text import valid_data


def read_complete_records(path: Path) -> Iterator[dict[str, Any]]:
    """Every complete JSON object line of `path`; a torn last line (a killed writer) is dropped from disk."""
    if not path.exists():
        return
    good_end = 0
    with path.open("rb") as fh:
        for raw in fh:
            if not raw.endswith(b"\n"):
                break
            try:
                record = json.loads(raw)
            except json.JSONDecodeError:
                break
            good_end += len(raw)
            if isinstance(record, dict):
                yield record
    if path.stat().st_size != good_end:
        with path.open("r+b") as fh:
            fh.truncate(good_end)


class JsonlWriter:
    """Writes whole lines and flushes them to the OS, so an interrupt never loses a finished record."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = path.open("a", encoding="utf-8")

    def write(self, record: dict[str, Any]) -> None:
        line = json.dumps(record, ensure_ascii=False)
        try:
            line.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate from a program or a JSON escape: never a lost record
            line = json.dumps(valid_data(record), ensure_ascii=False)
        self._fh.write(line + "\n")

    def flush(self) -> None:
        self._fh.flush()
        os.fsync(self._fh.fileno())

    def close(self) -> None:
        self.flush()
        self._fh.close()

    def __enter__(self) -> "JsonlWriter":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def strict_data(value: Any) -> Any:
    """`value` as strict JSON data: NaN and infinities become null (`JSON.parse` refuses bare `NaN`),
    and floats lose the noise of binary arithmetic (12 significant digits: 0.44999999999999996 is 0.45)."""
    if isinstance(value, float):
        return float(f"{value:.12g}") if value == value and abs(value) != float("inf") else None
    if isinstance(value, dict):
        return {k: strict_data(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [strict_data(v) for v in value]
    return value


def strict_dumps(value: Any, **options: Any) -> str:
    """`json.dumps` of `strict_data(value)`, refusing anything that is still not strict JSON."""
    return json.dumps(strict_data(value), allow_nan=False, **options)

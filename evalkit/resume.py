"""What a resumable output was made with, so a rerun never mixes results from different settings.

Beside each resumable output sits a small JSON "stamp" of everything that decides its rows (the
verifier and its config, the input, the model and sampling). A rerun with a different stamp is
refused before any work, with one line saying what differs and how to start fresh.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator


class StampMismatch(ValueError):
    """The output was made with other settings."""


def first_difference(old: dict[str, Any], new: dict[str, Any], prefix: str = "") -> str | None:
    """The first key path whose value differs, as "key: OLD there, NEW now"; None if equal."""
    for key in sorted(set(old) | set(new)):
        a, b = old.get(key), new.get(key)
        if a == b:
            continue
        if isinstance(a, dict) and isinstance(b, dict):
            found = first_difference(a, b, f"{prefix}{key}.")
            if found:
                return found
        return f"{prefix}{key}: {json.dumps(a)[:80]} there, {json.dumps(b)[:80]} now"
    return None


def check_stamp(path: Path, stamp: dict[str, Any], what: str, fresh_hint: str) -> None:
    """Raise StampMismatch when `path` holds a different stamp; write it when there is none."""
    if path.exists():
        try:
            old = json.loads(path.read_text())
        except (OSError, json.JSONDecodeError):
            old = {}
        difference = first_difference(old, stamp)
        if difference:
            raise StampMismatch(f"{what} was made with other settings ({difference}); {fresh_hint}")
        return
    write_atomically(path, json.dumps(stamp, indent=2, sort_keys=True) + "\n")


def write_atomically(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def rewrite_without(path: Path, records: Iterable[dict[str, Any]], drop: Callable[[dict[str, Any]], bool]) -> int:
    """Rewrite the JSONL at `path` without the records `drop` selects; returns how many were dropped."""
    keep, dropped = [], 0
    for record in records:
        if drop(record):
            dropped += 1
        else:
            keep.append(record)
    if dropped:
        write_atomically(path, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in keep))
    return dropped


def check_writable(path: Path) -> None:
    """Raise OSError now when `path` (a file to be created or appended to) cannot be written."""
    if path.is_dir() or not path.name:
        raise IsADirectoryError(21, "is a directory; name the file to write", str(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    probe = path.parent / f".{path.name}.probe-{os.getpid()}"
    probe.write_text("")
    probe.unlink()
    if path.exists() and not os.access(path, os.W_OK):
        raise PermissionError(13, "Permission denied", str(path))


@contextlib.contextmanager
def exclusive_writer(output: Path) -> Iterator[None]:
    """Hold `output`'s lock (on `OUTPUT.lock`, an advisory lock the kernel drops when the process ends)
    while writing it: a second process on the same output is refused in one line instead of
    interleaving rows with ours."""
    import fcntl

    from evalkit.commands import CommandError

    lock_path = output.with_name(output.name + ".lock")
    with lock_path.open("a") as lock:
        try:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise CommandError(
                f"another process is writing {output} (it holds {lock_path}); wait for it, or write to another -o"
            ) from None
        yield  # the file stays: removing it would let a process that opened it meanwhile lock a file no one sees

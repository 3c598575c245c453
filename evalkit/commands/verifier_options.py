"""Naming several verifiers on one command line, as `evalkit serve` and `evalkit eval` both do:
`--verifier [KEY=]NAME` (repeatable; KEY names a second config of one verifier), each followed by
an optional `--config JSON` (or `@FILE`), or a JSON file `{"KEY": {"verifier": NAME, "config":
{...}}}`. One rule for both commands, so a table of verifiers means the same thing everywhere."""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalkit.commands import CommandError
from verifiers.records import json_object

FILE_SHAPE = '{"KEY": {"verifier": NAME, "config": {...}}, ...}'


@dataclass
class VerifierEntry:
    """One named verifier of a command: its key, the registered name, its config, and (eval's
    suite files only) the task file it is evaluated on."""

    key: str
    name: str
    config: dict[str, Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def read_config(text: str, flag: str = "--config") -> dict[str, Any]:
    """A JSON object given inline or as `@FILE`."""
    try:
        return json_object(Path(text[1:]).read_text() if text.startswith("@") else text, flag)
    except OSError as exc:
        raise CommandError(f"{flag}: cannot read {text[1:]}: {exc.strerror}") from None
    except ValueError as exc:
        raise CommandError(str(exc)) from None


class VerifierEntries(argparse.Action):
    """`--verifier` starts an entry; `--config` fills in the latest one (namespace.verifiers). A
    `--config` before any `--verifier` waits for the first one (namespace.pending_config), so the
    one-verifier form works in either order: `--config '{...}' --verifier game24`."""

    def __call__(self, parser: Any, namespace: argparse.Namespace, value: Any, option: Any = None) -> None:
        entries: list[VerifierEntry] = list(getattr(namespace, "verifiers", None) or [])
        pending = getattr(namespace, "pending_config", None)
        if self.dest == "verifier":
            key, _, name = value.rpartition("=")
            entries.append(VerifierEntry(key or name, name, pending))
            namespace.pending_config = None
        else:
            if (not entries and pending is not None) or (entries and entries[-1].config is not None):
                raise argparse.ArgumentError(self, "each --config follows the --verifier it configures")
            try:
                config = read_config(value)
            except CommandError as exc:
                raise argparse.ArgumentError(self, str(exc)) from None
            if entries:
                entries[-1].config = config
            else:
                namespace.pending_config = config
        namespace.verifiers = entries


def add_verifier_arguments(parser: argparse.ArgumentParser, help_verifier: str) -> None:
    parser.set_defaults(verifiers=None, pending_config=None)
    parser.add_argument("--verifier", action=VerifierEntries, metavar="[KEY=]NAME", help=help_verifier)
    parser.add_argument(
        "--config", action=VerifierEntries, metavar="JSON", help="config (JSON or @FILE) of the --verifier before it"
    )


def entries_from_file(path: Path, flag: str, extra_keys: tuple[str, ...] = ()) -> list[VerifierEntry]:
    """The entries of a JSON file `{"KEY": {"verifier": NAME, "config": {...}, ...}}`; `extra_keys`
    are the other fields an entry may have."""
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise CommandError(f"cannot read {flag}: {exc}") from None
    if (
        not isinstance(data, dict)
        or not data
        or not all(isinstance(v, dict) and "verifier" in v for v in data.values())
    ):
        raise CommandError(f"{flag} must hold {FILE_SHAPE}")
    entries = []
    for key, value in data.items():
        unknown = sorted(set(value) - {"verifier", "config", *extra_keys})
        if unknown:
            raise CommandError(f"{flag}: entry {key!r} has unknown field(s) {', '.join(unknown)}")
        config = value.get("config") or {}
        if not isinstance(config, dict):
            raise CommandError(f"{flag}: the config of {key!r} must be a JSON object")
        entries.append(
            VerifierEntry(key, str(value["verifier"]), dict(config), {k: value[k] for k in extra_keys if k in value})
        )
    return entries


def merged(file_entries: list[VerifierEntry], line_entries: list[VerifierEntry] | None) -> list[VerifierEntry]:
    """File entries, then command-line ones; a key named twice is refused."""
    table: dict[str, VerifierEntry] = {}
    for entry in [*file_entries, *(line_entries or [])]:
        if entry.key in table:
            raise CommandError(f"verifier key {entry.key!r} is named twice; name one KEY=NAME")
        table[entry.key] = entry
    return list(table.values())

"""List every verifier `verifiers.get` accepts, with its default config."""

from __future__ import annotations

import argparse
import json


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")


def run(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    import verifiers

    rows = []
    for name in verifiers.names():
        try:
            config = verifiers.verifier_class(name).default_config()
            rows.append((name, config, ""))
        except Exception as exc:  # one broken plugin must not hide the others
            from evalkit.install_hints import missing_part

            rows.append((name, None, f"cannot load: {missing_part(exc) or f'{type(exc).__name__}: {exc}'}"))
    if args.json:
        print(json.dumps({n: (c if c is not None else {"error": e}) for n, c, e in rows}, indent=2))
        return 0
    table = Table("verifier", "default config")
    for name, config, error in rows:
        table.add_row(name, error or json.dumps(config))
    Console().print(table)
    return 0

"""Serve verifiers over HTTP: batch scoring, OpenRLHF's remote reward protocol, health, metrics.

What is served is fixed here, at start: `--verifier NAME` (repeatable; `KEY=NAME` serves NAME under
another key), each followed by an optional `--config JSON`, or `--config-file FILE`
(`{"KEY": {"verifier": NAME, "config": {...}}}`). With neither, every installed verifier is served
at its default config. Clients name a key; they set no config unless `--allow-client-config`.
Binding beyond loopback needs a bearer token (`--token` or EVALKIT_TOKEN).
"""

from __future__ import annotations

import argparse
import ipaddress
import os
from pathlib import Path
from typing import Any

from evalkit.commands import CommandError, check_count
from evalkit.commands.verifier_options import add_verifier_arguments, entries_from_file, merged
from evalkit.server_limits import ServerLimits

LIMITS = ServerLimits()  # each option's default is the server's own


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_verifier_arguments(parser, "a verifier to serve (repeatable)")
    parser.add_argument("--config-file", type=Path, help='JSON: {"KEY": {"verifier": NAME, "config": {...}}}')
    parser.add_argument("--allow-client-config", action="store_true", help="let requests set a verifier's config")
    parser.add_argument("--token", default=None, help="bearer token clients must send (default: $EVALKIT_TOKEN)")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (beyond loopback needs --token)")
    parser.add_argument("--port", type=int, default=8765, help="port to listen on")
    mb = 1 << 20
    # (option, type, default from ServerLimits, help): each default has one home, the dataclass
    for option, kind, default, help_text in (
        ("--concurrency", int, LIMITS.concurrency, "requests scored at once"),
        (
            "--max-waiting",
            int,
            LIMITS.max_waiting,
            "requests admitted beyond those (429 past it); at least the "
            "samples a one-request-per-sample client has in flight",
        ),
        ("--max-items", int, LIMITS.max_items, "items per request (413 past it)"),
        (
            "--timeout",
            float,
            LIMITS.timeout,
            "seconds per request; items not scored by then come back as 'error' (not scored) "
            "(default: the batch's own deadline, its items' time budgets over the workers)",
        ),
        ("--max-body-mb", float, LIMITS.max_body_bytes / mb, "request size limit (413 beyond)"),
        ("--max-admitted-mb", float, LIMITS.max_admitted_bytes / mb, "request bodies held at once (429 beyond)"),
        ("--body-seconds", float, LIMITS.body_seconds, "to receive a request's body (408 beyond)"),
        ("--max-client-configs", int, LIMITS.max_client_configs, "client-config verifiers kept at once"),
        (
            "--max-bodies-per-client",
            int,
            LIMITS.max_bodies_per_client,
            "request bodies one client address may be sending at once (429 past it)",
        ),
    ):
        parser.add_argument(option, type=kind, default=default, help=help_text)
    parser.add_argument("--workers", type=int, default=None, help="scoring worker processes per verifier")


def served_from(args: argparse.Namespace) -> dict[str, tuple[str, dict[str, Any]]] | None:
    """The served table from the command line or the config file; None: the default (everything)."""
    if args.pending_config is not None and not args.verifiers:
        raise CommandError("--config configures a --verifier: name the verifier to serve")
    from_file = entries_from_file(args.config_file, "--config-file") if args.config_file is not None else []
    table = {e.key: (e.name, e.config or {}) for e in merged(from_file, args.verifiers)}
    return table or None


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def run(args: argparse.Namespace) -> int:
    import uvicorn

    import verifiers
    from evalkit.server import create_app

    check_count("--workers", args.workers, least=0)
    if not 0 <= args.port <= 65535:
        raise CommandError(f"--port must be 0-65535, got {args.port}")
    token = args.token or os.environ.get("EVALKIT_TOKEN") or None
    if token is None and not is_loopback(args.host):
        raise CommandError(
            f"binding to {args.host} exposes the server beyond this machine: set a bearer token "
            "with --token or EVALKIT_TOKEN (clients send 'Authorization: Bearer <token>')"
        )
    try:
        limits = ServerLimits(
            concurrency=args.concurrency,
            max_waiting=args.max_waiting,
            timeout=args.timeout,
            max_body_bytes=int(args.max_body_mb * (1 << 20)),
            max_admitted_bytes=int(args.max_admitted_mb * (1 << 20)),
            body_seconds=args.body_seconds,
            max_items=args.max_items,
            max_client_configs=args.max_client_configs,
            max_bodies_per_client=args.max_bodies_per_client,
        )
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    app = create_app(
        served_from(args), limits, allow_client_config=args.allow_client_config, token=token, workers=args.workers
    )
    try:
        app.state.service.check_served()  # a bad name or config fails now, in one line
    except (verifiers.UnknownVerifier, TypeError, ValueError) as exc:
        app.state.service.close()
        raise CommandError(f"cannot serve: {exc}") from None
    print(f"serving {', '.join(sorted(app.state.service.served))} on http://{args.host}:{args.port}", flush=True)
    # connections past the admitted requests are refused by uvicorn itself (503), before any body is read
    connections = limits.concurrency + limits.max_waiting + 64
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning", limit_concurrency=connections)
    return 0

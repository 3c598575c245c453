"""Serve verifiers over HTTP: batch scoring, OpenRLHF's remote reward protocol, health, metrics."""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--concurrency", type=int, default=4, help="requests scored at once")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per request before a 504")
    parser.add_argument("--max-body-mb", type=float, default=8.0, help="request size limit (413 beyond)")
    parser.add_argument("--workers", type=int, default=None, help="scoring worker processes per verifier")


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from evalkit.server import create_app

    app = create_app(args.concurrency, args.timeout, int(args.max_body_mb * (1 << 20)), args.workers)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0

"""`verity serve`: verify narrations and answers over HTTP (JSON), on 127.0.0.1 by default.

Needs the ``serve`` extra (Starlette and uvicorn).
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from verity.cli.commands._options import _seconds, int_in_range
from verity.core.gates import PROFILES
from verity.extras import require_extra

__all__ = ["DEFAULT_WORKERS", "add_arguments", "run"]


def _cores() -> int:
    """The cores this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


#: Worker processes by default: one a core, at most four.
DEFAULT_WORKERS = max(1, min(_cores(), 4))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to bind (default: 127.0.0.1, loopback only)"
    )
    parser.add_argument(
        "--port", type=int_in_range(0, 65535), default=8080, help="port (default: 8080; 0: any)"
    )
    parser.add_argument(
        "--graphs",
        metavar="DIR",
        help="preload the graphs under DIR (recursively), addressable by graph_id",
    )
    parser.add_argument(
        "--max-body",
        type=int_in_range(1),
        default=1024 * 1024,
        metavar="BYTES",
        help="largest request body; a larger one gets 413 (default: 1048576)",
    )
    parser.add_argument(
        "--gates",
        metavar="MODULE:ATTR",
        action="append",
        default=[],
        help="a derived profile (or custom gates, added to strict) that requests may name in "
        '"profile"; repeatable',
    )
    parser.add_argument(
        "--workers",
        type=int_in_range(1),
        default=DEFAULT_WORKERS,
        metavar="N",
        help="worker processes that verify requests, each one request at a time, each with "
        f"the --graphs loaded once; the event loop only reads and answers (default: one a "
        f"core, at most 4: {DEFAULT_WORKERS} here)",
    )
    parser.add_argument(
        "--timeout",
        type=_seconds,
        default=30.0,
        metavar="SECONDS",
        help="a request not answered within SECONDS (waiting for a worker included) gets "
        "503 input.timeout, and the work still running for it is stopped (default: 30)",
    )


def _serving(address: tuple[Any, ...], graphs: int, profiles: list[str], workers: int) -> str:
    """The line that says where the service listens and what it serves."""
    host, port = address[:2]
    shown = f"[{host}]" if ":" in host else host
    return (
        f"verity: serving on http://{shown}:{port} (graphs: {graphs}; profiles "
        f"{', '.join(profiles)}; workers: {workers}); SIGTERM or Ctrl-C stops"
    )


def run(args: argparse.Namespace) -> int:
    require_extra("serve", "verity serve")
    from verity.core.profiles import Profile, load_gates
    from verity.serve import listen
    from verity.serve import run as serve
    from verity.serve.app import create_app
    from verity.serve.workers import Workers
    from verity.stream import load_graph_dir

    graphs = load_graph_dir(args.graphs) if args.graphs else {}
    profiles: dict[str, Profile] = {}
    for spec in args.gates:
        profile = load_gates(spec, None)
        profiles[profile.name] = profile
    workers = Workers(args.workers, graphs, profiles, graph_dir=args.graphs)
    try:
        workers.start()  # before the socket exists, so that no worker holds it open
        with listen(args.host, args.port) as sock:
            line = _serving(sock.getsockname(), len(graphs), [*PROFILES, *profiles], args.workers)
            app = create_app(workers, max_body=args.max_body, timeout=args.timeout)
            serve(app, sock, on_start=lambda: print(line, file=sys.stderr, flush=True))
    finally:
        workers.close()
    print("verity: stopped", file=sys.stderr, flush=True)
    return 0

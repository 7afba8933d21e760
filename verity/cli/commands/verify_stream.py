"""`verity verify-stream GRAPHS_DIR NARRATIONS.jsonl`: one report line per narration line.

SIGINT or SIGTERM ends the command with one line on stderr naming the signal and the
number of complete lines written, and exit status 128 + the signal's number (130, 143),
once its worker processes have stopped.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from verity.cli.commands._options import add_gates, chosen_profile, int_in_range
from verity.core.gates import PROFILES
from verity.errors import InputError
from verity.interrupts import Stopped, stopped_by_signals
from verity.stream import ENGINES, verify_stream


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("graphs", metavar="GRAPHS_DIR", help="directory of evidence graph files")
    parser.add_argument("narrations", metavar="NARRATIONS.jsonl", help="narrations, one per line")
    parser.add_argument("--profile", choices=PROFILES, default="strict")
    add_gates(parser)
    parser.add_argument(
        "--jobs",
        type=int_in_range(1),
        default=1,
        help="worker processes (default 1); with --engine dask and no --scheduler, the "
        "workers of the local Dask cluster",
    )
    parser.add_argument(
        "--engine",
        choices=ENGINES,
        default="local",
        help="local: this process and --jobs workers; dask: a Dask cluster (the dask extra)",
    )
    parser.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="Dask scheduler address (e.g. tcp://10.0.0.5:8786); default: a LocalCluster",
    )


def _lines(handle: BinaryIO) -> Iterator[bytes]:
    for line in handle:
        yield line.rstrip(b"\r\n")


def run(args: argparse.Namespace) -> int:
    if args.scheduler is not None and args.engine != "dask":
        raise InputError("--scheduler needs --engine dask")
    if args.engine == "dask":
        from verity.stream_dask import require_dask

        require_dask()
    profile = chosen_profile(args)
    if args.narrations == "-":
        handle: BinaryIO = sys.stdin.buffer
    else:
        path = Path(args.narrations)
        if not path.is_file():
            raise InputError(f"narrations file {path} does not exist or is not a file")
        handle = path.open("rb")
    out = sys.stdout
    written = 0
    try:
        stream = verify_stream(
            _lines(handle),
            args.graphs,
            profile,
            args.jobs,
            engine=args.engine,
            scheduler=args.scheduler,
        )
        with stopped_by_signals(), contextlib.closing(stream):
            for line in stream:
                # counted before it is written: a signal is handled (and Stopped raised)
                # when a call returns or the loop turns, so never between the two
                written += 1
                out.write(line + "\n")
    except Stopped as stop:
        out.flush()
        print(
            f"verity verify-stream: interrupted ({stop.name}); {written} lines written",
            file=sys.stderr,
        )
        return stop.exit_status
    finally:
        if handle is not sys.stdin.buffer:
            handle.close()
    out.flush()
    return 0

"""`verity verify-stream GRAPHS_DIR NARRATIONS.jsonl`: one report line per narration line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from verity.errors import InputError
from verity.gates import PROFILES
from verity.stream import verify_stream


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("graphs", metavar="GRAPHS_DIR", help="directory of evidence graph files")
    parser.add_argument("narrations", metavar="NARRATIONS.jsonl", help="narrations, one per line")
    parser.add_argument("--profile", choices=PROFILES, default="strict")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")


def _lines(handle: BinaryIO) -> Iterator[bytes]:
    for line in handle:
        yield line.rstrip(b"\r\n")


def run(args: argparse.Namespace) -> int:
    if args.narrations == "-":
        handle: BinaryIO = sys.stdin.buffer
    else:
        path = Path(args.narrations)
        if not path.is_file():
            raise InputError(f"narrations file {path} does not exist or is not a file")
        handle = path.open("rb")
    out = sys.stdout
    try:
        for line in verify_stream(_lines(handle), args.graphs, args.profile, args.jobs):
            out.write(line)
            out.write("\n")
    finally:
        if handle is not sys.stdin.buffer:
            handle.close()
    out.flush()
    return 0

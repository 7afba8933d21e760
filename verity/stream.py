"""Verify a stream of narrations (JSON Lines) in bounded memory, optionally in parallel.

Each input line is one narration naming its ``graph_id``; each output line is
``{"line": N, "report": {...}}`` or, for a line that cannot be used,
``{"line": N, "error": {"code": ..., "message": ...}}``, in input order. Input is read
in windows of a bounded number of lines, so resident memory does not grow with the
length of the stream.
"""

from __future__ import annotations

import json
import multiprocessing
from collections.abc import Iterable, Iterator, Mapping
from itertools import islice
from pathlib import Path
from typing import Any

from verity.errors import InputError, VerityError
from verity.graph import EvidenceGraph, load_graph
from verity.jsonio import loads, path_text

__all__ = ["CHUNK_LINES", "load_graph_dir", "verify_lines", "verify_stream"]

#: Lines handed to a worker at a time.
CHUNK_LINES = 256
#: Chunks in flight per worker; bounds memory to about jobs * 4 * CHUNK_LINES lines.
_CHUNKS_PER_JOB = 4


def load_graph_dir(directory: str | Path) -> dict[str, EvidenceGraph]:
    """Every ``*.json`` graph under ``directory`` (recursively), by graph id."""
    root = Path(directory)
    if not root.is_dir():
        raise InputError(f"graphs directory {path_text(root)} does not exist or is not a directory")
    graphs: dict[str, EvidenceGraph] = {}
    for path in sorted(root.rglob("*.json")):
        graph = load_graph(path)
        if graph.graph_id in graphs:
            raise InputError(f"two graphs in {path_text(root)} have the id {graph.graph_id!r}")
        graphs[graph.graph_id] = graph
    if not graphs:
        raise InputError(f"no *.json graphs under {path_text(root)}")
    return graphs


def _error_line(number: int, code: str, message: str) -> str:
    body = {"line": number, "error": {"code": code, "message": message}}
    return json.dumps(body, ensure_ascii=False)


def _verify_line(number: int, raw: bytes, graphs: Mapping[str, EvidenceGraph], profile: str) -> str:
    from verity.verify import verify

    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return _error_line(number, "input.invalid_utf8", f"not valid UTF-8 (byte {exc.start})")
    if not text.strip():
        return _error_line(number, "input.empty_line", "the line is empty")
    try:
        data = loads(text, f"line {number}")
        if not isinstance(data, dict):
            raise InputError(f"line {number} is not a JSON object")
        graph_id = data.get("graph_id")
        if not isinstance(graph_id, str):
            raise InputError(f"line {number} names no graph_id")
        graph = graphs.get(graph_id)
        if graph is None:
            return _error_line(number, "input.unknown_graph", f"no graph with id {graph_id!r}")
        report = verify(graph, data, profile=profile)
    except VerityError as exc:
        return _error_line(number, "input.unusable", str(exc))
    except Exception as exc:  # a line must never stop the stream
        return _error_line(number, "internal.error", f"{type(exc).__name__}: {exc}"[:500])
    return json.dumps({"line": number, "report": report.to_dict()}, ensure_ascii=False)


def verify_lines(
    lines: Iterable[tuple[int, bytes]], graphs: Mapping[str, EvidenceGraph], profile: str
) -> list[str]:
    """Verify numbered raw lines in this process; one output line each."""
    return [_verify_line(n, raw, graphs, profile) for n, raw in lines]


# Worker-process state: the graphs and profile, loaded once per worker.
_WORKER: dict[str, Any] = {}


def _init_worker(graph_dir: str, profile: str) -> None:
    _WORKER["graphs"] = load_graph_dir(graph_dir)
    _WORKER["profile"] = profile


def _work(chunk: list[tuple[int, bytes]]) -> list[str]:
    return verify_lines(chunk, _WORKER["graphs"], _WORKER["profile"])


def _chunks(lines: Iterable[bytes]) -> Iterator[list[tuple[int, bytes]]]:
    numbered = enumerate(lines, start=1)
    while chunk := list(islice(numbered, CHUNK_LINES)):
        yield chunk


def verify_stream(
    lines: Iterable[bytes], graph_dir: str | Path, profile: str = "strict", jobs: int = 1
) -> Iterator[str]:
    """Yield one output line (without newline) per input line, in input order."""
    from verity.gates import gates_for

    gates_for(profile)  # an unknown profile fails before any work
    if jobs < 1:
        raise InputError("--jobs must be at least 1")
    if jobs == 1:
        graphs = load_graph_dir(graph_dir)
        for chunk in _chunks(lines):
            yield from verify_lines(chunk, graphs, profile)
        return
    load_graph_dir(graph_dir)  # fail early, in this process, on a bad directory
    ctx = multiprocessing.get_context("spawn")
    window = jobs * _CHUNKS_PER_JOB
    with ctx.Pool(jobs, initializer=_init_worker, initargs=(str(graph_dir), profile)) as pool:
        chunks = _chunks(lines)
        while batch := list(islice(chunks, window)):
            for out in pool.imap(_work, batch):
                yield from out

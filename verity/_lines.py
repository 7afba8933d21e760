"""The lines of ``verify-stream``, shared by its engines (:mod:`verity.stream` and
:mod:`verity.stream_dask`): graphs by id, numbered chunks of lines, one output line per
input line, and the output of chunks verified elsewhere gathered back in input order.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from itertools import islice
from pathlib import Path
from typing import Any, TypeVar

from verity.core.claims import parse_narration
from verity.core.graph import EvidenceGraph, load_graph
from verity.core.profiles import Profile
from verity.core.verify import verify_parsed
from verity.errors import InputError, VerityError
from verity.formats import LP_LABELS_FORMAT, NARRATION_FORMAT, REPORT_FORMAT, SPEC_FORMAT
from verity.jsonio import loads, path_text, read_json

__all__ = [
    "CHUNK_LINES",
    "LINE_ERROR_CODES",
    "Chunk",
    "chunks",
    "in_order",
    "load_graph_dir",
    "verify_lines",
]

#: Lines verified together (by a worker process, with ``jobs > 1``).
CHUNK_LINES = 256

#: Numbered raw lines, numbers from 1.
Chunk = list[tuple[int, bytes]]

#: Formats of files that sit beside graphs (``examples/``) and are not graphs.
_NOT_GRAPHS = frozenset({NARRATION_FORMAT, REPORT_FORMAT, SPEC_FORMAT, LP_LABELS_FORMAT})


def _other_format(path: Path) -> bool:
    """True when ``path`` is a JSON object of another verity format (a narration...)."""
    data = read_json(path, "graph file")
    return isinstance(data, dict) and data.get("format") in _NOT_GRAPHS


def load_graph_dir(directory: str | Path) -> dict[str, EvidenceGraph]:
    """Every ``*.json`` graph under ``directory`` (recursively), by graph id.

    Files of another verity format (narrations, reports, SQL specs) are skipped, so a
    folder such as ``examples/`` works; any other file must be a valid graph.
    """
    root = Path(directory)
    if not root.is_dir():
        raise InputError(f"graphs directory {path_text(root)} does not exist or is not a directory")
    graphs: dict[str, EvidenceGraph] = {}
    for path in sorted(root.rglob("*.json")):
        if _other_format(path):
            continue
        graph = load_graph(path)
        if graph.graph_id in graphs:
            raise InputError(f"two graphs in {path_text(root)} have the id {graph.graph_id!r}")
        graphs[graph.graph_id] = graph
    if not graphs:
        raise InputError(f"no *.json graphs under {path_text(root)}")
    return graphs


#: The codes of an output line for an input line that cannot be used, with what they mean.
LINE_ERROR_CODES: dict[str, str] = {
    "input.invalid_utf8": "the line is not valid UTF-8",
    "input.empty_line": "the line is empty",
    "input.unknown_graph": "the narration names a graph_id no loaded graph has",
    "input.unusable": "the line is not a usable narration (its message says why)",
    "internal.error": "verifying the line failed unexpectedly; the stream goes on",
}
_INVALID_UTF8, _EMPTY_LINE, _UNKNOWN_GRAPH, _UNUSABLE, _INTERNAL = LINE_ERROR_CODES


def _error_line(number: int, code: str, message: str) -> str:
    body = {"line": number, "error": {"code": code, "message": message}}
    return json.dumps(body, ensure_ascii=False)


def _read_line(number: int, text: str) -> tuple[str, dict[str, Any]]:
    """(graph id, JSON object) of a line's text."""
    data = loads(text, f"line {number}")
    if not isinstance(data, dict):
        raise InputError(f"line {number} is not a JSON object")
    graph_id = data.get("graph_id")
    if not isinstance(graph_id, str):
        raise InputError(f"line {number} names no graph_id")
    return graph_id, data


def _verify_line(
    number: int, raw: bytes, graphs: Mapping[str, EvidenceGraph], profile: str | Profile
) -> str:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return _error_line(number, _INVALID_UTF8, f"not valid UTF-8 (byte {exc.start})")
    if not text.strip():
        return _error_line(number, _EMPTY_LINE, "the line is empty")
    try:
        graph_id, data = _read_line(number, text)
        graph = graphs.get(graph_id)
        if graph is None:
            return _error_line(number, _UNKNOWN_GRAPH, f"no graph with id {graph_id!r}")
        parsed = parse_narration(data)
        report = verify_parsed(graph, parsed, profile=profile, on_fail="filter")
    except VerityError as exc:
        return _error_line(number, _UNUSABLE, str(exc))
    except Exception as exc:  # a line must never stop the stream
        return _error_line(number, _INTERNAL, f"{type(exc).__name__}: {exc}"[:500])
    return json.dumps({"line": number, "report": report.to_dict()}, ensure_ascii=False)


def verify_lines(
    lines: Iterable[tuple[int, bytes]],
    graphs: Mapping[str, EvidenceGraph],
    profile: str | Profile,
) -> list[str]:
    """Verify numbered raw lines in this process; one output line each."""
    return [_verify_line(n, raw, graphs, profile) for n, raw in lines]


def chunks(lines: Iterable[bytes], size: int = CHUNK_LINES) -> Iterator[Chunk]:
    """The lines numbered from 1, in lists of at most ``size``."""
    numbered = enumerate(lines, start=1)
    while chunk := list(islice(numbered, size)):
        yield chunk


_Pending = TypeVar("_Pending")


def in_order(
    chunked: Iterable[Chunk],
    submit: Callable[[Chunk], _Pending],
    result: Callable[[_Pending], list[str]],
    limit: int,
) -> Iterator[str]:
    """The output lines of every chunk, in input order: each chunk is handed to ``submit``
    as soon as fewer than ``limit`` are pending, and ``result`` waits for the oldest one.

    At most ``limit`` chunks are submitted and not yet yielded (their lines and output are
    all the memory the stream holds), however long the input is.
    """
    pending: deque[_Pending] = deque()
    for chunk in chunked:
        pending.append(submit(chunk))
        if len(pending) >= limit:
            yield from result(pending.popleft())
    while pending:
        yield from result(pending.popleft())

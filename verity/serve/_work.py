"""What a worker process of ``verity serve`` does with a request body.

The service's event loop only reads a body and hands its bytes to a worker; decoding,
parsing (duplicate keys refused), checking the fields, verifying and rendering the JSON
answer all happen here, so a large request never holds up the small ones. A worker
answers ``(status, body bytes, log line or None)``; it never raises for a request.
"""

from __future__ import annotations

import json
import os
import pickle
import threading
import time
from collections.abc import Mapping
from typing import Any

from verity._lines import load_graph_dir
from verity.answer import check_answer
from verity.core.gates import PROFILES
from verity.core.graph import EvidenceGraph, load_graph
from verity.core.paraphrase import cited_ids, paraphrase_warnings, text_check_applies
from verity.core.profiles import Profile
from verity.core.verify import verify
from verity.errors import InputError, VerityError
from verity.jsonio import loads
from verity.stream import _leave_signals_to_the_stream

__all__ = ["ROUTES", "Answer", "answer", "error_body", "start_worker"]

#: A worker's answer: HTTP status, JSON body, a line for the service's log (or None).
Answer = tuple[int, bytes, str | None]

#: The routes a worker answers, with the fields their bodies may hold.
ROUTES: dict[str, frozenset[str]] = {
    "verify": frozenset({"graph", "narration", "profile"}),
    "check-answer": frozenset({"answer", "passages", "graph"}),
}

#: Seconds between a worker's checks that the service's process is still there.
_WATCH_S = 1.0

# This worker's graphs and derived profiles, or why they could not be loaded.
_STATE: dict[str, Any] = {}


class Reject(Exception):
    """A request the service answers with an error body."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def render(data: Any) -> bytes:
    """A JSON body as Starlette's ``JSONResponse`` renders it (compact, UTF-8)."""
    text = json.dumps(data, ensure_ascii=False, allow_nan=False, indent=None, separators=(",", ":"))
    return text.encode("utf-8")


def error_body(code: str, message: str) -> bytes:
    """The body of an error answer: ``{"error": {"code", "message"}}``."""
    return render({"error": {"code": code, "message": message[:500]}})


def start_worker(
    graphs: Mapping[str, EvidenceGraph] | None, graph_dir: str | None, pickled_profiles: bytes
) -> None:
    """A worker's initializer: its graphs (``graphs`` as given, to a forked worker, or
    loaded from ``graph_dir``) and the derived profiles; never raises (a failure is kept
    and answered by every request as a 500)."""
    _leave_signals_to_the_stream()
    _end_with(os.getppid())
    try:
        profiles = pickle.loads(pickled_profiles)
        loaded = dict(graphs) if graphs is not None else {}
        if graphs is None and graph_dir is not None:
            loaded = load_graph_dir(graph_dir)
        _STATE.update(graphs=loaded, profiles=profiles)
    except Exception as exc:
        _STATE["failed"] = f"{type(exc).__name__}: {exc}"[:300]


def _end_with(service: int) -> None:
    """End this worker once the service's process is gone: killed, it could not end its
    workers, and a worker waits for work for ever (a watcher thread, once a second)."""

    def watch() -> None:
        while os.getppid() == service:
            time.sleep(_WATCH_S)
        os._exit(0)

    threading.Thread(target=watch, name="verity-watch-service", daemon=True).start()


def ready() -> str | None:
    """Why the worker could not start, or None (the service waits for this before
    serving)."""
    failed: str | None = _STATE.get("failed")
    return failed


def _body(raw: bytes, fields: frozenset[str]) -> dict[str, Any]:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Reject(400, "input.invalid_utf8", f"not valid UTF-8 (byte {exc.start})") from None
    data = loads(text, "the request body", unique_keys=True)
    if not isinstance(data, dict):
        raise InputError("the request body is not a JSON object")
    unknown = sorted(set(data) - fields)
    if unknown:
        raise InputError(
            f"unknown field {unknown[0][:80]!r}; the fields are {', '.join(sorted(fields))}"
        )
    return data


def _graph(value: Any) -> EvidenceGraph:
    if isinstance(value, str):
        graph: EvidenceGraph | None = _STATE["graphs"].get(value)
        if graph is None:
            raise Reject(400, "input.unknown_graph", f"no graph with id {value[:80]!r}")
        return graph
    if isinstance(value, dict):
        return load_graph(value)
    raise InputError('"graph" must be an evidence graph object or a graph_id string')


def _profile(value: Any) -> str | Profile:
    derived: dict[str, Profile] = _STATE["profiles"]
    if value in PROFILES:
        return str(value)
    if isinstance(value, str) and value in derived:
        return derived[value]
    names = ", ".join([*PROFILES, *derived])
    raise InputError(f"unknown profile {str(value)[:80]!r}; choose one of {names}")


def _verify(data: dict[str, Any]) -> Any:
    for name in ("graph", "narration"):
        if name not in data:
            raise InputError(f'the request body has no "{name}"')
    if not isinstance(data["narration"], dict):
        raise InputError('"narration" must be a narration object')
    profile = _profile(data.get("profile", "strict"))
    graph = _graph(data["graph"])
    report = verify(graph, data["narration"], profile, on_fail="filter")
    if text_check_applies(profile):  # the warning verity verify gives, in the report
        warnings = paraphrase_warnings(graph, cited_ids([data["narration"]]))
        report = report.model_copy(update={"warnings": warnings})
    return report.to_dict()


def _check_answer(data: dict[str, Any]) -> Any:
    text, passages = data.get("answer"), data.get("passages")
    if not isinstance(text, str):
        raise InputError('"answer" must be a string')
    if "graph" in data:
        if "passages" in data:
            raise InputError('give "passages" or "graph", not both')
        graph = _graph(data["graph"])
        out: dict[str, Any] = check_answer(text, graph=graph).to_dict()
        warnings = paraphrase_warnings(graph, what="the nodes")
        if warnings:  # as verity check-answer --graph --json gives it
            out["warnings"] = [w.model_dump(mode="json") for w in warnings]
        return out
    if "passages" not in data:
        raise InputError('the request body has no "passages" (or "graph")')
    if not isinstance(passages, list):
        raise InputError('"passages" must be a list of {"id", "text"} objects')
    return check_answer(text, passages).to_dict()


def answer(route: str, raw: bytes) -> Answer:
    """The answer to a request body on ``route`` (a key of :data:`ROUTES`): 200 and the
    result, 400 for unusable input, 500 for a failure of the service itself."""
    try:
        failed = _STATE.get("failed")
        if failed is not None:
            raise RuntimeError(f"the worker process could not start ({failed})")
        data = _body(raw, ROUTES[route])
        result = _verify(data) if route == "verify" else _check_answer(data)
        return 200, render(result), None
    except Reject as exc:
        return exc.status, error_body(exc.code, exc.message), None
    except VerityError as exc:
        message = " ".join(str(exc).split()) or "unusable input"
        return 400, error_body("input.unusable", message), None
    except Exception as exc:  # never a traceback to the client; one line in the log
        kind = type(exc).__name__
        body = error_body("internal.error", f"the server failed ({kind})")
        return 500, body, f"{kind}: {exc}"[:500]

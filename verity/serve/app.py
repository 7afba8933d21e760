"""The ASGI application of ``verity serve``: verification over HTTP, JSON in and out.

Routes: ``GET /healthz``; ``POST /v1/verify`` with ``{"graph": GRAPH_OR_ID, "narration":
{...}, "profile": NAME}`` answers the report of ``verity verify --json``; ``POST
/v1/check-answer`` with ``{"answer": "...", "passages": [...]}`` or ``{"answer": "...",
"graph": GRAPH_OR_ID}`` answers the result of ``verity check-answer --json`` (with
``--graph`` for a graph). Unusable input answers 400 with ``{"error": {"code",
"message"}}`` (the codes of ``verify-stream``'s error lines), a body over the limit 413,
an unknown path 404, a wrong method 405, and a failure of the server itself 500 with
``internal.error``; no traceback ever reaches a client.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from verity.answer import check_answer
from verity.core.gates import PROFILES
from verity.core.graph import EvidenceGraph, load_graph
from verity.core.profiles import Profile
from verity.core.verify import verify
from verity.errors import InputError, VerityError
from verity.jsonio import loads

__all__ = ["MAX_BODY_BYTES", "create_app", "service_version"]

#: The default limit on a request body (``--max-body``): 1 MiB.
MAX_BODY_BYTES = 1024 * 1024

_LOG = logging.getLogger("verity.serve")
_HTTP_CODES = {404: "http.not_found", 405: "http.method_not_allowed"}


class _Reject(Exception):
    """A request the service answers with an error body."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def _error(
    status: int, code: str, message: str, headers: dict[str, str] | None = None
) -> JSONResponse:
    body = {"error": {"code": code, "message": message[:500]}}
    return JSONResponse(body, status_code=status, headers=headers)


def _allowed(exc: Exception) -> str:
    """The ``Allow`` header of a 405: the route's methods, sorted (Starlette's set has no
    order)."""
    headers = getattr(exc, "headers", None) or {}
    methods = {m.strip() for m in str(headers.get("Allow", "")).split(",") if m.strip()}
    return ", ".join(sorted(methods))


def service_version() -> str:
    """The installed verity version (the package's own outside an installation)."""
    from importlib import metadata

    from verity import __version__
    from verity.extras import DISTRIBUTION

    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return __version__


async def _body(request: Request, max_body: int) -> bytes:
    too_large = _Reject(413, "input.too_large", f"the request body is over {max_body} bytes")
    declared = request.headers.get("content-length")
    if declared is not None:
        if not declared.isdigit():
            raise _Reject(400, "input.unusable", "the Content-Length header is not a number")
        if int(declared) > max_body:
            raise too_large
    parts: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > max_body:
            raise too_large
        parts.append(chunk)
    return b"".join(parts)


async def _object(request: Request, max_body: int, fields: frozenset[str]) -> dict[str, Any]:
    raw = await _body(request, max_body)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _Reject(400, "input.invalid_utf8", f"not valid UTF-8 (byte {exc.start})") from None
    data = loads(text, "the request body")
    if not isinstance(data, dict):
        raise InputError("the request body is not a JSON object")
    unknown = sorted(set(data) - fields)
    if unknown:
        raise InputError(
            f"unknown field {unknown[0][:80]!r}; the fields are {', '.join(sorted(fields))}"
        )
    return data


_Handler = Callable[[Request], Awaitable[Response]]


def _guarded(handler: _Handler) -> _Handler:
    """Map every failure to an error body: input 400/413, anything else 500."""

    async def endpoint(request: Request) -> Response:
        try:
            return await handler(request)
        except _Reject as exc:
            return _error(exc.status, exc.code, exc.message)
        except VerityError as exc:
            return _error(400, "input.unusable", " ".join(str(exc).split()) or "unusable input")
        except Exception as exc:  # never a traceback to the client; one line in the log
            where, kind = request.url.path, type(exc).__name__
            _LOG.error("%s %s failed: %s: %s", request.method, where, kind, exc)
            return _error(500, "internal.error", f"the server failed ({type(exc).__name__})")

    return endpoint


def create_app(
    graphs: Mapping[str, EvidenceGraph] | None = None,
    *,
    max_body: int = MAX_BODY_BYTES,
    profiles: Mapping[str, Profile] | None = None,
) -> Starlette:
    """The service: ``graphs`` are addressable by graph id, ``profiles`` (derived ones)
    by name beside ``strict`` and ``paper``; bodies over ``max_body`` bytes get 413."""
    known: dict[str, EvidenceGraph] = dict(graphs or {})
    derived: dict[str, Profile] = dict(profiles or {})
    names = ", ".join([*PROFILES, *derived])
    version = service_version()

    def graph_of(value: Any) -> EvidenceGraph:
        if isinstance(value, str):
            graph = known.get(value)
            if graph is None:
                raise _Reject(400, "input.unknown_graph", f"no graph with id {value[:80]!r}")
            return graph
        if isinstance(value, dict):
            return load_graph(value)
        raise InputError('"graph" must be an evidence graph object or a graph_id string')

    def profile_of(value: Any) -> str | Profile:
        if value in PROFILES:
            return str(value)
        if isinstance(value, str) and value in derived:
            return derived[value]
        raise InputError(f"unknown profile {str(value)[:80]!r}; choose one of {names}")

    async def healthz(request: Request) -> Response:
        return JSONResponse({"status": "ok", "version": version})

    async def verify_endpoint(request: Request) -> Response:
        data = await _object(request, max_body, frozenset({"graph", "narration", "profile"}))
        for name in ("graph", "narration"):
            if name not in data:
                raise InputError(f'the request body has no "{name}"')
        if not isinstance(data["narration"], dict):
            raise InputError('"narration" must be a narration object')
        profile = profile_of(data.get("profile", "strict"))
        report = verify(graph_of(data["graph"]), data["narration"], profile, on_fail="filter")
        return JSONResponse(report.to_dict())

    async def check_answer_endpoint(request: Request) -> Response:
        data = await _object(request, max_body, frozenset({"answer", "passages", "graph"}))
        answer, passages = data.get("answer"), data.get("passages")
        if not isinstance(answer, str):
            raise InputError('"answer" must be a string')
        if "graph" in data:
            if "passages" in data:
                raise InputError('give "passages" or "graph", not both')
            return JSONResponse(check_answer(answer, graph=graph_of(data["graph"])).to_dict())
        if "passages" not in data:
            raise InputError('the request body has no "passages" (or "graph")')
        if not isinstance(passages, list):
            raise InputError('"passages" must be a list of {"id", "text"} objects')
        return JSONResponse(check_answer(answer, passages).to_dict())

    async def http_error(request: Request, exc: Exception) -> Response:
        status = exc.status_code if isinstance(exc, HTTPException) else 500
        code = _HTTP_CODES.get(status, "http.error")
        if status == 404:
            return _error(404, code, f"no such path: {request.url.path[:200]}")
        if status == 405:
            allow = _allowed(exc)
            message = f"{request.method} is not allowed on {request.url.path}; use {allow}"
            return _error(405, code, message, {"Allow": allow})
        return _error(status, code, str(getattr(exc, "detail", "")) or "HTTP error")

    async def server_error(request: Request, exc: Exception) -> Response:
        return _error(500, "internal.error", f"the server failed ({type(exc).__name__})")

    return Starlette(
        routes=[
            Route("/healthz", healthz, methods=["GET"]),
            Route("/v1/verify", _guarded(verify_endpoint), methods=["POST"]),
            Route("/v1/check-answer", _guarded(check_answer_endpoint), methods=["POST"]),
        ],
        exception_handlers={HTTPException: http_error, Exception: server_error},
    )

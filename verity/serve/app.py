"""The ASGI application of ``verity serve``: verification over HTTP, JSON in and out.

Routes: ``GET /healthz``; ``POST /v1/verify`` with ``{"graph": GRAPH_OR_ID, "narration":
{...}, "profile": NAME}`` answers the report of ``verity verify --json``; ``POST
/v1/check-answer`` with ``{"answer": "...", "passages": [...]}`` or ``{"answer": "...",
"graph": GRAPH_OR_ID}`` answers the result of ``verity check-answer --json`` (with
``--graph`` for a graph). Unusable input answers 400 with ``{"error": {"code",
"message"}}`` (the codes of ``verify-stream``'s error lines; a key twice in one object is
unusable), a body that is not ``application/json`` 415 with ``input.media_type``, a body
over the limit 413, an unknown path 404, a wrong method 405, a request past its deadline
503 with ``input.timeout``, and a failure of the server itself (a worker process that
died included) 500 with ``internal.error``; no traceback ever reaches a client.

The event loop reads bodies and nothing more: each one is answered by a worker process
(:mod:`verity.serve.workers`), so a large request never holds up the small ones.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from verity.serve._work import Reject
from verity.serve.workers import Timeout, WorkerDied, Workers

__all__ = ["DEFAULT_TIMEOUT_S", "MAX_BODY_BYTES", "create_app", "service_version"]

#: The default limit on a request body (``--max-body``): 1 MiB.
MAX_BODY_BYTES = 1024 * 1024
#: The default deadline of a request (``--timeout``), in seconds.
DEFAULT_TIMEOUT_S = 30.0

_LOG = logging.getLogger("verity.serve")
_HTTP_CODES = {404: "http.not_found", 405: "http.method_not_allowed"}
_JSON = "application/json"


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


def _media_type(request: Request) -> None:
    """Refuse a body that does not say it is JSON: ``Content-Type: application/json``,
    with no parameter but an optional ``charset=utf-8``."""
    given = request.headers.get("content-type")
    media, *parameters = (given or "").split(";")
    usable = media.strip().lower() == _JSON and all(
        p.strip().lower().replace('"', "") in ("", "charset=utf-8") for p in parameters
    )
    if not usable:
        shown = repr(given[:80]) if given is not None else "none"
        raise Reject(
            415,
            "input.media_type",
            f"the body must be JSON in UTF-8, sent with Content-Type: {_JSON} (given: {shown})",
        )


async def _body(request: Request, max_body: int) -> bytes:
    _media_type(request)
    too_large = Reject(413, "input.too_large", f"the request body is over {max_body} bytes")
    declared = request.headers.get("content-length")
    if declared is not None:
        if not declared.isdigit():
            raise Reject(400, "input.unusable", "the Content-Length header is not a number")
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


_Handler = Callable[[Request], Awaitable[Response]]


def create_app(
    workers: Workers, *, max_body: int = MAX_BODY_BYTES, timeout: float = DEFAULT_TIMEOUT_S
) -> Starlette:
    """The service: requests are answered by ``workers`` (with the graphs, addressable by
    graph id, and the derived profiles, by name beside ``strict`` and ``paper``; the
    caller starts and closes them); bodies over ``max_body`` bytes get 413, and a request
    not answered within ``timeout`` seconds 503."""
    version = service_version()

    async def healthz(request: Request) -> Response:
        return JSONResponse({"status": "ok", "version": version})

    def answering(route: str) -> _Handler:
        async def endpoint(request: Request) -> Response:
            try:
                raw = await _body(request, max_body)
                status, body, log = await workers.answer(route, raw, timeout)
            except Reject as exc:
                return _error(exc.status, exc.code, exc.message)
            except Timeout:
                message = f"the request was not answered within {timeout:g} s (--timeout)"
                return _error(503, "input.timeout", message)
            except WorkerDied:
                _LOG.error("%s %s failed: its worker process died", request.method, route)
                return _error(500, "internal.error", "the server failed (a worker process died)")
            if log is not None:
                _LOG.error("%s %s failed: %s", request.method, request.url.path, log)
            return Response(body, status_code=status, media_type=_JSON)

        return endpoint

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
            Route("/v1/verify", answering("verify"), methods=["POST"]),
            Route("/v1/check-answer", answering("check-answer"), methods=["POST"]),
        ],
        exception_handlers={HTTPException: http_error, Exception: server_error},
    )

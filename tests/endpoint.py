"""A real HTTP server on 127.0.0.1 that plays an OpenAI-compatible endpoint badly.

Each ``mode`` is one way a server a user points verity at misbehaves:

- ``schema500``: HTTP 500 for ``response_format`` ``json_schema`` (what
  ``python -m llama_cpp.server`` does), a normal chat completion otherwise;
- ``overflow``: HTTP 400 with OpenAI's ``context_length_exceeded`` error body (what
  llama-cpp-python's server sends when the prompt does not fit ``--n_ctx``);
- ``hang``: accepts the connection, reads the request and never answers;
- ``notfound``: HTTP 404 for every path (a base URL without ``/v1``).

Every request body is kept in ``requests`` so tests can see what was sent.

:func:`schema_proxy` is not a fake: it forwards every request to a real server (a
``python -m llama_cpp.server``, which takes a schema only in the ``json_object`` style),
writing a ``json_schema`` response format as the same schema in that style, so the real
model decodes under the schema a ``json_schema`` endpoint (OpenAI, vLLM, llama-server)
would enforce.
"""

from __future__ import annotations

import json
import socket
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["Endpoint", "free_port", "schema_proxy", "serve"]


def free_port() -> int:
    """A port on 127.0.0.1 where nothing listens (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Endpoint:
    url: str
    requests: list[dict[str, Any]] = field(default_factory=list)


def _completion(content: str) -> dict[str, Any]:
    return {
        "id": "cmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": "test-model",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


@contextmanager
def serve(mode: str, content: str = '{"claims": []}') -> Iterator[Endpoint]:
    """Run the server in a thread for the ``with`` block; yields its ``/v1`` URL."""
    stop = threading.Event()
    endpoint = Endpoint("")

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _reply(self, status: int, body: dict[str, Any]) -> None:
            data = json.dumps(body).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            endpoint.requests.append(body)
            if mode == "hang":
                stop.wait(30)
                return
            if mode == "notfound":
                self._reply(404, {"detail": "Not Found"})
                return
            if mode == "overflow":
                self._reply(
                    400,
                    {
                        "error": {
                            "message": "This model's maximum context length is 2048 tokens. "
                            "However, you requested 2600 tokens.",
                            "type": "invalid_request_error",
                            "param": "messages",
                            "code": "context_length_exceeded",
                        }
                    },
                )
                return
            style = (body.get("response_format") or {}).get("type")
            if mode == "schema500" and style == "json_schema":
                self._reply(500, {"error": {"message": "json_schema is not supported"}})
                return
            self._reply(200, _completion(content))

    with _serving(Handler, endpoint, stop):
        yield endpoint


@contextmanager
def schema_proxy(upstream: str) -> Iterator[Endpoint]:
    """A ``/v1`` URL that forwards to ``upstream`` (a ``/v1`` URL), a ``json_schema``
    response format rewritten as ``{"type": "json_object", "schema": ...}``; each request
    body as received is kept in ``requests``."""
    endpoint = Endpoint("")

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            endpoint.requests.append(body)
            fmt = body.get("response_format") or {}
            if fmt.get("type") == "json_schema":
                body = {
                    **body,
                    "response_format": {
                        "type": "json_object",
                        "schema": fmt["json_schema"]["schema"],
                    },
                }
            path = self.path.removeprefix("/v1")
            request = urllib.request.Request(
                upstream + path,
                data=json.dumps(body).encode("utf-8"),
                headers={"Content-Type": "application/json"},
            )
            try:
                with urllib.request.urlopen(request, timeout=600) as response:
                    status, data = response.status, response.read()
            except urllib.error.HTTPError as exc:
                status, data = exc.code, exc.read()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    with _serving(Handler, endpoint):
        yield endpoint


@contextmanager
def _serving(
    handler: type[BaseHTTPRequestHandler], endpoint: Endpoint, stop: threading.Event | None = None
) -> Iterator[None]:
    """Serve ``handler`` on a free loopback port (``endpoint.url`` is its ``/v1``) until
    the block ends; then set ``stop`` (to release a waiting handler) and shut down."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    endpoint.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield
    finally:
        if stop is not None:
            stop.set()
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)

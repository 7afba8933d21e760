"""``verity serve``: verification as an HTTP JSON service (the ``serve`` extra).

:func:`verity.serve.app.create_app` builds the Starlette application, whose requests
are verified by the worker processes of :class:`verity.serve.workers.Workers`;
:func:`run` serves it with uvicorn on one socket and stops gracefully on SIGTERM or
Ctrl-C: it stops accepting, finishes the requests in flight (at most :data:`GRACE_S`
seconds) and returns.
"""

from __future__ import annotations

import contextlib
import signal
import socket
import threading
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any

import uvicorn

from verity.errors import InputError

__all__ = ["GRACE_S", "listen", "run"]

#: Seconds the requests in flight get to finish after SIGTERM.
GRACE_S = 10


class _Server(uvicorn.Server):
    """uvicorn's server, minus re-raising the signal after a graceful shutdown (so that
    ``verity serve`` exits 0 when it was asked to stop)."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        if threading.current_thread() is not threading.main_thread():
            yield
            return

        def stop(sig: int, frame: FrameType | None) -> None:
            if self.should_exit and sig == signal.SIGINT:
                self.force_exit = True
            else:
                self.should_exit = True

        handled = (signal.SIGINT, signal.SIGTERM)
        originals = {sig: signal.signal(sig, stop) for sig in handled}
        try:
            yield
        finally:
            for sig, handler in originals.items():
                signal.signal(sig, handler)


def listen(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` (port 0: any free port).

    It is made with ``IPPROTO_TCP`` explicitly: asyncio turns Nagle's algorithm off
    (TCP_NODELAY) only on sockets whose protocol says TCP, and without it every response
    on a keep-alive connection (headers and body are two writes) waits about 40 ms for
    the client's delayed ACK.
    """
    sock: socket.socket | None = None
    try:
        infos = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP, flags=socket.AI_PASSIVE
        )
        family, kind, proto, _, address = infos[0]
        sock = socket.socket(family, kind, proto)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(512)
    except (OSError, IndexError) as exc:
        if sock is not None:
            sock.close()
        reason = getattr(exc, "strerror", None) or str(exc)
        raise InputError(f"cannot listen on {host}:{port}: {reason}") from None
    return sock


def run(app: Any, sock: socket.socket, *, on_start: Callable[[], None] | None = None) -> None:
    """Serve ``app`` on ``sock`` until SIGTERM or Ctrl-C, then shut down gracefully."""
    config = uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,
        timeout_graceful_shutdown=GRACE_S,
        lifespan="off",
    )
    server = _Server(config)
    if on_start is not None:
        on_start()
    server.run(sockets=[sock])

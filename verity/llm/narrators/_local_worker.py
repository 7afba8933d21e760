"""The model process of the embedded narrator (:mod:`verity.llm.narrators.local`).

Run as ``python -m verity.llm.narrators._local_worker INBOX OUTBOX PARENT BOUND``: it reads
requests ``(kind, options, payload)`` from the pipe INBOX and answers each on OUTBOX
with the request's progress events ``("event", event)`` and then one reply: ``("ok",
value)``, ``("input", message)`` for an :class:`~verity.errors.InputError`, ``("error",
message)`` for anything else. It ends when INBOX closes. SIGINT and SIGTERM are ignored:
the narrator's process stops on them and kills this one; with BOUND 1, on Linux, the
kernel kills it too when that process (PARENT) dies.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Sequence
from multiprocessing.connection import Connection
from typing import Any

#: ``prctl`` option: the signal this process gets when its parent ends (Linux).
_PR_SET_PDEATHSIG = 1


def _die_with_parent(parent: int, bound: bool) -> None:
    """``bound``, on Linux: the kernel kills this process when the thread that started it
    ends (the parent's main thread). Then (everywhere) end now if the parent has gone."""
    if bound and sys.platform.startswith("linux"):
        import ctypes

        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:
        os._exit(0)


def _run(engine: Any, kind: str, payload: Any) -> Any:
    if kind == "load":
        return engine.load()
    if kind == "tokens":
        return engine.prompt_tokens(payload)
    if kind == "narrate":
        return engine.narrate(payload)
    if kind == "forget":
        return engine.forget()
    raise ValueError(f"unknown request {kind!r}")


def serve(inbox: Connection, outbox: Connection) -> None:
    """Answer requests until ``inbox`` closes; one engine per set of options."""
    from verity.errors import InputError
    from verity.llm.narrators.local import _Engine

    engines: dict[Any, Any] = {}

    def report(event: Any) -> None:
        outbox.send(("event", event))

    while True:
        try:
            kind, options, payload = inbox.recv()
        except EOFError:
            return
        reply: tuple[str, Any]
        try:
            engine = engines.get(options)
            if engine is None:
                engine = engines[options] = _Engine(options, report)
            reply = ("ok", _run(engine, kind, payload))
        except InputError as exc:
            reply = ("input", str(exc))
        except Exception as exc:  # any failure is answered, never a silent end
            reply = ("error", f"{type(exc).__name__}: {exc}")
        outbox.send(reply)


def main(argv: Sequence[str]) -> int:
    for stopping in (signal.SIGINT, signal.SIGTERM):
        signal.signal(stopping, signal.SIG_IGN)
    inbox_fd, outbox_fd, parent, bound = (int(word) for word in argv)
    _die_with_parent(parent, bool(bound))
    inbox, outbox = Connection(inbox_fd, writable=False), Connection(outbox_fd, readable=False)
    with inbox, outbox:
        serve(inbox, outbox)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""SIGINT and SIGTERM: how a command stops on them, and the moments it must not.

The rule, for every command that handles them: it stops with one line on stderr and the
exit status 128 + the signal's number (:attr:`Stopped.exit_status`: 130 for SIGINT, 143
for SIGTERM). :func:`stopped_by_signals` turns either signal into :class:`Stopped` in a
block; :func:`signals_held` makes a short block (moving finished files into place)
finish before a signal that arrives during it takes effect. The command line's entry
point handles both before it imports anything heavy (:func:`verity.cli.main`), and
:func:`print_stopped` writes the line of a stop that no command has explained.
"""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
from collections.abc import Iterator
from types import FrameType
from typing import Any

__all__ = ["STOPPING", "Stopped", "print_stopped", "signals_held", "stopped_by_signals"]

#: The signals that stop a command cleanly.
STOPPING = (signal.SIGINT, signal.SIGTERM)


class Stopped(BaseException):
    """SIGINT or SIGTERM arrived (a BaseException, so that no ``except Exception`` on the
    way keeps the command going)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum
        #: The file or directory that had just been moved into place, whole, when the
        #: signal arrived during the move (None: it arrived before any).
        self.landed: str | None = None

    @property
    def name(self) -> str:
        """``SIGINT`` or ``SIGTERM``."""
        return signal.Signals(self.signum).name

    @property
    def exit_status(self) -> int:
        """128 + the signal's number, as a shell reports a process the signal ended."""
        return 128 + self.signum


def print_stopped(stop: Stopped) -> int:
    """Write ``verity: interrupted (SIGINT)`` (or SIGTERM) on stderr; the exit status."""
    print(f"verity: interrupted ({stop.name})", file=sys.stderr)
    return stop.exit_status


def _stop(signum: int, frame: FrameType | None) -> None:
    for stopping in STOPPING:  # a second signal does not cut the clean-up short
        signal.signal(stopping, signal.SIG_IGN)
    raise Stopped(signum)


def _install(handler: Any) -> dict[int, Any]:
    """Install ``handler`` for :data:`STOPPING`; return the handlers it replaced."""
    return {stopping: signal.signal(stopping, handler) for stopping in STOPPING}


def _restore(previous: dict[int, Any]) -> None:
    for stopping, handler in previous.items():
        if handler is not None:  # None: a handler not installed from Python
            signal.signal(stopping, handler)


def _main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


@contextlib.contextmanager
def stopped_by_signals() -> Iterator[None]:
    """SIGINT and SIGTERM raise :class:`Stopped` in the block; the previous handlers are
    restored after it. Outside the main thread (where Python cannot handle signals) the
    block just runs."""
    if not _main_thread():
        yield
        return
    previous = _install(_stop)
    try:
        yield
    finally:
        _restore(previous)


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """A SIGINT or SIGTERM that arrives in the block is delivered again just after it, to
    whatever handler was there; outside the main thread (where Python cannot handle
    signals) the block just runs."""
    if not _main_thread():
        yield
        return
    caught: list[int] = []

    def hold(signum: int, frame: FrameType | None) -> None:
        caught.append(signum)

    previous = _install(hold)
    try:
        yield
    finally:
        _restore(previous)
        if caught:
            signal.raise_signal(caught[0])

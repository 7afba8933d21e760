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


#: Seconds between the raisings of a stop that has not reached its command's handler.
RERAISE_S = 0.1


class _Pending:
    """A stop raised but not yet taken by the :func:`stopped_by_signals` block it ends.

    Code on the way may swallow it (a third-party ``except:``, as pulp has around an
    import, or a ctypes callback, which prints "Exception ignored" and goes on); so until
    it is taken it is raised again every :data:`RERAISE_S` seconds (``SIGALRM``), except
    while it is being handled on its way (an ``except`` or ``finally`` running for it) or
    in a :func:`signals_held` block."""

    signum: int | None = None
    held = 0
    previous_alarm: Any = None

    @classmethod
    def start(cls, signum: int) -> None:
        if cls.signum is not None or not hasattr(signal, "setitimer"):
            return
        cls.signum = signum
        cls.previous_alarm = signal.signal(signal.SIGALRM, cls.again)
        signal.setitimer(signal.ITIMER_REAL, RERAISE_S, RERAISE_S)

    @classmethod
    def taken(cls) -> None:
        if cls.signum is None:
            return
        cls.signum = None
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, cls.previous_alarm or signal.SIG_DFL)

    @classmethod
    def again(cls, signum: int, frame: FrameType | None) -> None:
        stop = cls.signum
        if stop is None or cls.held or isinstance(sys.exc_info()[1], Stopped):
            return  # nothing pending, held, or on its way
        raise Stopped(stop)


def _stop(signum: int, frame: FrameType | None) -> None:
    for stopping in STOPPING:  # a second signal does not cut the clean-up short
        signal.signal(stopping, signal.SIG_IGN)
    _Pending.start(signum)
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
    restored after it. A stop that something in the block swallows is raised again
    (:class:`_Pending`) until it leaves the block; when the block ends without it, its
    work was done and the stop is dropped. Outside the main thread (where Python cannot
    handle signals) the block just runs."""
    if not _main_thread():
        yield
        return
    previous = _install(_stop)
    try:
        yield
    finally:
        _Pending.taken()
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
    _Pending.held += 1
    try:
        yield
    finally:
        _Pending.held -= 1
        _restore(previous)
        if caught:
            signal.raise_signal(caught[0])

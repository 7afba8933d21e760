"""A small progress bar for long runs: count, rate and ETA on stderr.

On a terminal it redraws one line; elsewhere (a log file, CI) it prints a line at most
every ``log_every_s`` seconds and at the end, so logs stay short.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

__all__ = ["Progress", "format_duration"]


def format_duration(seconds: float) -> str:
    """``1:02:03`` / ``2:03`` style; ``?`` when unknown."""
    if seconds != seconds or seconds < 0 or seconds == float("inf"):
        return "?"
    s = round(seconds)
    h, rem = divmod(s, 3600)
    m, s = divmod(rem, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


class Progress:
    """Counts finished items out of ``total`` and reports rate and ETA."""

    def __init__(
        self,
        total: int,
        *,
        label: str = "",
        stream: TextIO | None = None,
        width: int = 24,
        log_every_s: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.total = total
        self.done = 0
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.width = width
        self.log_every_s = log_every_s
        self._clock = clock
        self._start = clock()
        self._last_log = self._start
        self._tty = bool(getattr(self.stream, "isatty", lambda: False)())

    def line(self) -> str:
        """The current status line (no newline)."""
        elapsed = self._clock() - self._start
        rate = self.done / elapsed if elapsed > 0 else 0.0
        left = self.total - self.done
        eta = left / rate if rate > 0 else float("nan")
        frac = self.done / self.total if self.total else 1.0
        filled = round(frac * self.width)
        bar = "#" * filled + "-" * (self.width - filled)
        head = f"{self.label} " if self.label else ""
        speed = f"{rate:.2f}/s" if rate >= 1 else f"{1 / rate:.1f}s each" if rate > 0 else "-/s"
        return (
            f"{head}[{bar}] {self.done}/{self.total} {100 * frac:3.0f}% "
            f"{speed} elapsed {format_duration(elapsed)} "
            f"ETA {format_duration(eta) if left else '0:00'}"
        )

    def start(self) -> None:
        """Show the bar at 0 before the first item finishes (a first item can take minutes)."""
        self.stream.write(("\r" if self._tty else "") + self.line() + ("" if self._tty else "\n"))
        self.stream.flush()

    def update(self, n: int = 1) -> None:
        """Count ``n`` more finished items and redraw (or log) when due."""
        self.done += n
        now = self._clock()
        if self._tty:
            self.stream.write("\r" + self.line())
            self.stream.flush()
        elif now - self._last_log >= self.log_every_s or self.done >= self.total:
            self._last_log = now
            self.stream.write(self.line() + "\n")
            self.stream.flush()

    def close(self) -> None:
        """End the redrawn line."""
        if self._tty:
            self.stream.write("\n")
            self.stream.flush()

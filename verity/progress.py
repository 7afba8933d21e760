"""Progress of long runs: the events a run reports, and one way to draw them on a stream.

A long library call (loading and running the embedded model, narrating and repairing,
solving many graphs) takes an optional ``on_event`` callback and calls it with an
:class:`Event` at each step; without one it is silent. The command line draws the
events on stderr with :class:`StepLine`, and counts with :class:`Progress`; both draw
through one line (:class:`_Line`): on a terminal it is redrawn in place, with the
elapsed time ticking while a step runs; on anything else (a log file, a pipe) it is
written as whole lines, one per step (a count: at most every ``log_every_s`` seconds,
and at the end).

Standard library only, so that the install script can draw with it before anything is
installed.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType
from typing import TextIO

__all__ = [
    "ClaimChosen",
    "Event",
    "ModelLoading",
    "Note",
    "OnEvent",
    "PassEnded",
    "PassStarted",
    "Progress",
    "PromptEvaluating",
    "Step",
    "StepLine",
    "format_duration",
    "pass_label",
    "silent",
]

#: Seconds between redraws of a live line while nothing happens (the elapsed time ticks).
TICK_S = 0.5
_CLEAR = "\x1b[K"  # erase to the end of the line


def format_duration(seconds: float) -> str:
    """``1:02:03`` / ``2:03`` style; ``?`` when unknown."""
    if seconds != seconds or seconds < 0 or seconds == float("inf"):
        return "?"
    s = round(seconds)
    h, rem = divmod(s, 3600)
    m, s = divmod(rem, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def pass_label(index: int) -> str:
    """What a pass of the repair loop is called: ``narration``, then ``repair N``."""
    return "narration" if index == 0 else f"repair {index}"


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}" + ("" if n == 1 else "s")


# --- events ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Event:
    """Something a long run reports. :attr:`text` is the line a person reads."""

    @property
    def text(self) -> str:
        raise NotImplementedError


#: The callback a long call reports its events to.
OnEvent = Callable[[Event], None]


def silent(event: Event) -> None:
    """The :data:`OnEvent` of a caller who passed none: it ignores every event."""


@dataclass(frozen=True)
class Step(Event):
    """A step began (``what`` says which)."""

    what: str

    @property
    def text(self) -> str:
        return self.what


@dataclass(frozen=True)
class ModelLoading(Event):
    """The embedded model is being loaded (once per process and settings)."""

    model: str
    threads: int
    wait_policy: str

    @property
    def text(self) -> str:
        return (
            f"loading the model {self.model} ({_plural(self.threads, 'thread')}, "
            f"OMP_WAIT_POLICY={self.wait_policy})"
        )


@dataclass(frozen=True)
class PromptEvaluating(Event):
    """The model is evaluating ``tokens`` prompt tokens (``reused`` more it already holds)."""

    tokens: int
    reused: int = 0

    @property
    def text(self) -> str:
        reused = f" ({self.reused:,} reused)" if self.reused else ""
        return f"evaluating the prompt: {_plural(self.tokens, 'token')}{reused}"


@dataclass(frozen=True)
class ClaimChosen(Event):
    """The decoder chose claim ``number`` of at most ``limit``; ``claim_text`` is its text."""

    number: int
    limit: int
    claim_text: str

    @property
    def text(self) -> str:
        said = self.claim_text if len(self.claim_text) <= 72 else self.claim_text[:71] + "…"
        return f"claim {self.number} of at most {self.limit} chosen: {said}"


@dataclass(frozen=True)
class PassStarted(Event):
    """Pass ``index`` of the repair loop (0 the narration) asks ``narrator``."""

    index: int
    narrator: str

    @property
    def text(self) -> str:
        return f"pass {self.index} ({pass_label(self.index)}) by {self.narrator}"


@dataclass(frozen=True)
class PassEnded(Event):
    """Pass ``index`` came back and was verified: ``verified`` of ``claims`` pass; or
    ``failure`` says why there was nothing to verify."""

    index: int
    claims: int
    verified: int
    seconds: float
    failure: str | None = None

    @property
    def text(self) -> str:
        head = f"pass {self.index} ({pass_label(self.index)}), {self.seconds:.1f}s: "
        if self.failure is not None:
            return head + self.failure
        return head + f"{_plural(self.claims, 'claim')}; verified {self.verified} of {self.claims}"


@dataclass(frozen=True)
class Note(Event):
    """A remark to show once, apart from the steps (a retry, a fallback)."""

    message: str

    @property
    def text(self) -> str:
        return self.message


# --- drawing -----------------------------------------------------------------------------


def _is_terminal(stream: TextIO) -> bool:
    return bool(getattr(stream, "isatty", lambda: False)())


def _columns(stream: TextIO) -> int:
    """The terminal's width (0 when unknown)."""
    try:
        return os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, OSError, ValueError):
        return 0


class _Line:
    """One status line on ``stream``: redrawn in place on a terminal (and every
    :data:`TICK_S` seconds while ``ticking``), else written as whole lines."""

    def __init__(self, stream: TextIO | None, render: Callable[[], str], *, tick: bool) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.live = _is_terminal(self.stream)
        self._render = render
        self._lock = threading.Lock()
        self._drawn = False
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None
        if self.live and tick:
            self._ticker = threading.Thread(target=self._tick, name="progress", daemon=True)
            self._ticker.start()

    def _tick(self) -> None:
        while not self._stop.wait(TICK_S):
            if self._drawn:  # nothing is shown before the first step
                self.draw(log=False)

    def _fit(self, text: str) -> str:
        width = _columns(self.stream)
        return text if width <= 1 or len(text) < width else text[: width - 2] + "…"

    def draw(self, *, log: bool) -> None:
        """Redraw (live), or write the line when ``log`` (not live)."""
        with self._lock:
            if self._stop.is_set() and self._ticker is not None:
                return
            if self.live:
                self.stream.write("\r" + self._fit(self._render()) + _CLEAR)
                self._drawn = True
            elif log:
                self.stream.write(self._render() + "\n")
            else:
                return
            self.stream.flush()

    def note(self, text: str) -> None:
        """A line of its own; a live line is drawn again below it."""
        with self._lock:
            self.stream.write(("\r" + _CLEAR if self._drawn else "") + text + "\n")
            self._drawn = False
            self.stream.flush()
        if self.live:
            self.draw(log=False)

    def close(self, *, keep: bool) -> None:
        """Stop ticking; end a live line (``keep``: leave it shown, else erase it)."""
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join()
        with self._lock:
            if self.live and self._drawn:
                self.stream.write("\n" if keep else "\r" + _CLEAR)
                self.stream.flush()
            self._drawn = False


class StepLine:
    """Draws a run's events: ``LABEL [elapsed] what is happening``.

    Call it with each :class:`Event` (it is an :data:`OnEvent`); :class:`Note` events
    get a line of their own. Use it as a context manager, or :meth:`close` it: the live
    line is erased at the end, so what the command prints next starts on a clean line.
    """

    def __init__(
        self,
        label: str,
        stream: TextIO | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.label = label
        self._clock = clock
        self._start = clock()
        self._text = "starting"
        self._line = _Line(stream, self.line, tick=True)

    def line(self) -> str:
        """The current line (no newline)."""
        return f"{self.label} [{format_duration(self._clock() - self._start)}] {self._text}"

    def __call__(self, event: Event) -> None:
        if isinstance(event, Note):
            self._line.note(f"verity: {event.text}")
            return
        self._text = event.text
        self._line.draw(log=True)

    def close(self) -> None:
        self._line.close(keep=False)

    def __enter__(self) -> StepLine:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


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
        self.width = width
        self.log_every_s = log_every_s
        self._clock = clock
        self._start = clock()
        self._last_log = self._start
        self._line = _Line(stream, self.line, tick=True)
        self.stream = self._line.stream

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
        self._line.draw(log=True)

    def update(self, n: int = 1) -> None:
        """Count ``n`` more finished items and redraw (or log) when due."""
        self.done += n
        now = self._clock()
        due = now - self._last_log >= self.log_every_s or self.done >= self.total
        if due:
            self._last_log = now
        self._line.draw(log=due)

    def close(self) -> None:
        """End the redrawn line (it stays shown)."""
        self._line.close(keep=True)

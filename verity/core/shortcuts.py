"""The switch for verify()'s shortcuts, so that tests can compare them with the plain path.

verify() takes shortcuts that never change a report: a screen that skips the set
gates a claim cannot fail, per-node answers for a claim whose text is a cited
statement verbatim, and typed decoding of narration JSON text. :func:`disabled` turns
every one of them off, so that a report can be computed the plain way and compared
byte for byte (``tests/robustness/test_shortcuts.py`` and
``benchmarks/perf/identity_core.py --plain``).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["disabled", "enabled"]

_ON: list[bool] = [True]


def enabled() -> bool:
    """True unless inside :func:`disabled`."""
    return _ON[-1]


@contextmanager
def disabled() -> Iterator[None]:
    """Run verify() the plain way: every gate on every claim, no per-node shortcuts,
    narration text decoded with :func:`json.loads`."""
    _ON.append(False)
    try:
        yield
    finally:
        _ON.pop()

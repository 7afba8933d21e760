"""A stop that code on its way swallows (a bare ``except:``, as pulp has around an
import) is raised again until it leaves its block; a block that ends without it drops
it, and leaves no timer or handler behind."""

from __future__ import annotations

import contextlib
import signal
import time

import pytest

from verity.interrupts import RERAISE_S, Stopped, signals_held, stopped_by_signals


def _swallow(signum: int) -> None:
    """Raise ``signum`` and swallow what it raises, as a bare ``except: pass`` does."""
    with contextlib.suppress(BaseException):
        signal.raise_signal(signum)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_swallowed_stop_is_raised_again(signum: int) -> None:
    alarm = signal.getsignal(signal.SIGALRM)
    started = time.monotonic()
    with pytest.raises(Stopped) as stopped, stopped_by_signals():
        _swallow(signum)
        time.sleep(20 * RERAISE_S)  # the work would go on; the stop comes back first
    assert stopped.value.signum == signum
    assert time.monotonic() - started < 10 * RERAISE_S
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert signal.getsignal(signal.SIGALRM) == alarm


def test_a_stop_is_not_raised_again_while_held_or_handled() -> None:
    reached: list[str] = []
    with pytest.raises(Stopped), stopped_by_signals():
        _swallow(signal.SIGINT)
        with signals_held():
            time.sleep(3 * RERAISE_S)  # held: no stop in here
        reached.append("held")
        try:
            raise Stopped(signal.SIGINT)
        finally:
            time.sleep(3 * RERAISE_S)  # on its way: not raised over itself
            reached.append("handled")
    assert reached == ["held", "handled"]


def test_a_block_that_ends_drops_its_swallowed_stop() -> None:
    alarm = signal.getsignal(signal.SIGALRM)
    with stopped_by_signals():
        _swallow(signal.SIGINT)
    time.sleep(3 * RERAISE_S)  # nothing comes after the block
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert signal.getsignal(signal.SIGALRM) == alarm

"""What the two pulp backends share: the solvers and the parts of pulp's API that changed.

:func:`solver` makes CBC (the binary bundled with pulp) or HiGHS (``highspy``) quiet,
single-threaded and exact (no optimality gap); HiGHS's copyright banner, which it writes
to the C-level stdout before any option can switch it off, goes to ``/dev/null`` so that a
graph written to stdout stays clean. :func:`variable` and :func:`constraints_of` use
pulp 3's API where it exists and the older one otherwise.
"""

from __future__ import annotations

import os
import sys
from functools import cache
from typing import Any

import pulp

from verity.errors import InputError
from verity.extras import install_hint

__all__ = ["SOLVERS", "constraints_of", "solver", "variable"]

#: Solver names accepted by :func:`solver`.
SOLVERS: tuple[str, ...] = ("cbc", "highs")


def solver(name: str, time_limit: float | None = None) -> Any:
    """A pulp solver for ``name`` (``InputError`` for an unknown or missing one), stopped
    after ``time_limit`` seconds when one is given (a stopped solve may report pulp's
    status "Optimal" for a solution only found, not proven: read ``sol_status``)."""
    if name == "cbc":
        # The CBC binary bundled with pulp, through COIN_CMD (PULP_CBC_CMD is deprecated);
        # without a bundled binary COIN_CMD looks for ``cbc`` on the PATH.
        bundled = getattr(getattr(pulp, "PULP_CBC_CMD", None), "pulp_cbc_path", None)
        cbc = pulp.COIN_CMD(
            path=bundled, msg=False, threads=1, gapRel=0, gapAbs=0, timeLimit=time_limit
        )
        if not cbc.available():
            raise InputError("solver cbc is not available (pip install 'pulp[cbc]')")
        return cbc
    if name == "highs":
        highs = pulp.HiGHS(msg=False, threads=1, gapRel=0, gapAbs=0, timeLimit=time_limit)
        if not highs.available():
            raise InputError(f"solver highs needs the highspy package ({install_hint('highs')})")
        _silence_highs_banner()
        return highs
    raise InputError(f"unknown solver {name!r}; choose one of {', '.join(SOLVERS)}")


@cache
def _silence_highs_banner() -> None:
    """Create the process's first HiGHS instance with fd 1 on /dev/null.

    HiGHS writes a copyright banner to the C-level stdout the first time an instance
    is created, before any option can switch output off; it would corrupt a graph
    written to stdout.
    """
    import highspy

    make: Any = highspy.Highs
    sys.stdout.flush()
    try:
        saved = os.dup(1)
    except OSError:  # pragma: no cover - no fd 1 at all: nothing to protect
        make()
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 1)
        make()
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(devnull)


def variable(problem: Any, name: str, low: float | None, up: float | None, kind: str) -> Any:
    """A variable of ``problem`` (pulp 3.x API when present, else the older constructor)."""
    add = getattr(problem, "add_variable", None)
    if add is not None:
        return add(name, lowBound=low, upBound=up, cat=kind)
    made = pulp.LpVariable(name, lowBound=low, upBound=up, cat=kind)  # pragma: no cover
    problem.addVariable(made)  # pragma: no cover
    return made  # pragma: no cover


def constraints_of(problem: Any) -> list[Any]:
    """The problem's constraints in the order they were added."""
    found = problem.constraints
    return list(found()) if callable(found) else list(found.values())

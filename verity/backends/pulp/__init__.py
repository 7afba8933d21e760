"""Any optimization model becomes an evidence graph: a solved pulp problem or an MPS/LP file.

Typical use::

    from verity.backends.pulp import graph_from_problem, graph_from_file

    problem.solve(solver)                                   # your own pulp model
    graph = graph_from_problem(problem, labels={...})       # -> verity.EvidenceGraph
    graph = graph_from_file("plan.lp", "plan.labels.json")  # read, solve with CBC, build

The graph states the status and objective value (the headline), each decision at a
non-zero value, each constraint at its limit or its slack (a row with decisions on both
sides: what it relates and allows, :mod:`._linking`), the bounds a variable sits at
and, for a linear program at a nondegenerate vertex, shadow prices and reduced costs
(:mod:`._graph`); labels (:mod:`._labels`) turn the model's names into readable ones.
Past ``detail`` reduced costs or slack rows of each kind (default
:data:`DEFAULT_DETAIL`), the rest are counted in summary nodes (:mod:`._summary`).
``verity graph-from-lp MODEL [--labels FILE] [--solver cbc|highs] [--detail N|all]
--out FILE`` is the command line.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from verity.backends._pulp_support import SOLVERS, solver
from verity.backends.pulp._graph import RULES, build_graph
from verity.backends.pulp._labels import LABELS_FORMAT, Labels, load_labels
from verity.backends.pulp._read import MODEL_SUFFIXES, read_model
from verity.backends.pulp._solution import LpBackendError, SolutionFacts, facts_of
from verity.backends.pulp._summary import DEFAULT_DETAIL, check_detail
from verity.backends.pulp._worth import RESOLVE_SECONDS, check_resolve_seconds
from verity.core.graph import EvidenceGraph

__all__ = [
    "DEFAULT_DETAIL",
    "LABELS_FORMAT",
    "MODEL_SUFFIXES",
    "RESOLVE_SECONDS",
    "RULES",
    "SOLVERS",
    "Labels",
    "LpBackendError",
    "SolutionFacts",
    "facts_of",
    "graph_from_file",
    "graph_from_problem",
    "load_labels",
    "read_model",
    "solve_problem",
]

LabelsSource = Labels | Mapping[str, Any] | str | Path | None


def graph_from_problem(
    problem: Any,
    labels: LabelsSource = None,
    *,
    detail: int | None = DEFAULT_DETAIL,
    resolves: int | None = None,
    resolve_seconds: float | None = RESOLVE_SECONDS,
) -> EvidenceGraph:
    """The evidence graph of a solved :class:`pulp.LpProblem` (``LpBackendError``, an
    ``InputError``, when it is not solved or cannot be stated). At most ``detail`` reduced
    costs and ``detail`` slack rows are stated one by one, the most salient; the rest are
    counted in summary nodes (``None``: every one stated). ``resolves`` caps the re-solves
    that state worth and runner-ups (default 20, 0: none) and ``resolve_seconds`` limits
    the time of each (default 10, ``None``: no limit); a re-solve not proven optimal or
    infeasible in that time states nothing (docs/limits.md)."""
    seconds = check_resolve_seconds(resolve_seconds)
    chosen = load_labels(labels)
    return build_graph(
        facts_of(problem), chosen, detail, resolves=resolves, resolve_seconds=seconds
    )


def solve_problem(problem: Any, solver_name: str = "cbc") -> Any:
    """Solve ``problem`` with CBC or HiGHS (quiet, one thread, no gap); returns it."""
    backend = solver(solver_name)
    try:
        problem.solve(backend)
    except Exception as exc:  # pulp raises PulpSolverError and solver-specific errors
        detail = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise LpBackendError(f"solver {solver_name} failed: {detail}", code="solver") from None
    return problem


def graph_from_file(
    path: str | Path,
    labels: LabelsSource = None,
    *,
    solver_name: str = "cbc",
    detail: int | None = DEFAULT_DETAIL,
    resolves: int | None = None,
    resolve_seconds: float | None = RESOLVE_SECONDS,
) -> EvidenceGraph:
    """Read an ``.mps`` or ``.lp`` model, solve it and build its graph (``detail``,
    ``resolves`` and ``resolve_seconds`` as for :func:`graph_from_problem`)."""
    chosen = load_labels(labels)
    check_detail(detail)
    check_resolve_seconds(resolve_seconds)
    problem = solve_problem(read_model(path), solver_name)
    return graph_from_problem(
        problem,
        chosen,
        detail=detail,
        resolves=resolves,
        resolve_seconds=resolve_seconds,
    )

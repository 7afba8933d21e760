"""`verity graph-from-lp`: solve an optimization model and write its evidence graph.

``verity graph-from-lp MODEL.mps|MODEL.lp [--labels FILE] [--solver cbc|highs]
[--detail N|all] [--resolve-seconds S] [--out FILE]`` reads the model
(:mod:`verity.backends.pulp._read`), solves it with CBC (the default) or HiGHS, and
writes the graph of the solution to ``--out`` or to standard output. ``--labels`` is a
``verity.lp_labels/1`` file of display names, units and groups. ``--detail`` is how many
reduced costs and how many slack rows the graph states one by one (the most salient;
default 20): the rest are counted in summary statements; ``all`` states every one.
``--resolve-seconds`` is the time limit of each re-solve that states the worth of a limit
or a runner-up (default 10): a re-solve not proven optimal or infeasible in it states
nothing, and a note says how many were cut. Every input, ``--out``'s folder included, is
checked before the model is solved; the graph replaces ``--out`` whole, and a run that
fails leaves it as it was.
"""

from __future__ import annotations

import argparse
import math

from verity.backends._pulp_support import solver as pulp_solver
from verity.backends.pulp import (
    DEFAULT_DETAIL,
    RESOLVE_SECONDS,
    SOLVERS,
    Labels,
    graph_from_file,
    load_labels,
)
from verity.cli.commands._output import check_output, write_or_print
from verity.errors import InputError


def add_model_options(parser: argparse.ArgumentParser) -> None:
    """``--labels`` and ``--solver``, as every command reading an optimization model has."""
    parser.add_argument(
        "--labels", metavar="FILE", help="display names, units and groups (verity.lp_labels/1)"
    )
    parser.add_argument(
        "--solver",
        metavar="SOLVER",
        default="cbc",
        help=f"one of: {', '.join(SOLVERS)} (default: cbc)",
    )


def checked_inputs(args: argparse.Namespace) -> Labels:
    """The labels of ``args``, after the solver (named and installed) and ``--out``'s
    folder are checked: every input is checked before the model is read and solved."""
    if args.solver not in SOLVERS:
        raise InputError(f"--solver must be one of {', '.join(SOLVERS)}, not {args.solver!r}")
    pulp_solver(args.solver)  # installed, before the model is read
    check_output(args.out)
    return load_labels(args.labels)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("model", metavar="MODEL", help="an .mps or .lp model file")
    add_model_options(parser)
    parser.add_argument(
        "--detail",
        metavar="N",
        default=str(DEFAULT_DETAIL),
        help="reduced costs and slack rows stated one by one, each kind; the rest are "
        f"counted in summaries ('all': every one; default: {DEFAULT_DETAIL})",
    )
    parser.add_argument(
        "--resolve-seconds",
        metavar="S",
        default=str(RESOLVE_SECONDS),
        help="the time limit of each re-solve stating a worth or runner-up; one not proven "
        f"optimal in it states nothing (default: {RESOLVE_SECONDS:g})",
    )
    parser.add_argument("--out", metavar="FILE", help="write the graph here (default: stdout)")


def resolve_seconds(text: str) -> float:
    """``--resolve-seconds``: a finite number of seconds above 0."""
    try:
        seconds = float(text)
    except ValueError:
        seconds = float("nan")
    if not math.isfinite(seconds) or seconds <= 0:
        raise InputError(f"--resolve-seconds must be a number of seconds above 0, not {text!r}")
    return seconds


def _detail(text: str) -> int | None:
    if text == "all":
        return None
    if not text.isdigit():
        raise InputError(f"--detail must be a whole number 0 or more, or 'all', not {text!r}")
    return int(text)


def run(args: argparse.Namespace) -> int:
    detail = _detail(args.detail)
    seconds = resolve_seconds(args.resolve_seconds)
    labels = checked_inputs(args)
    graph = graph_from_file(
        args.model, labels, solver_name=args.solver, detail=detail, resolve_seconds=seconds
    )
    write_or_print(graph.dumps(), args.out)
    return 0

"""`verity what-if`: re-solve an optimization model with a change and write the graph of it.

``verity what-if MODEL.mps|MODEL.lp --set NAME=VALUE [--set ...] [--labels FILE]
[--solver cbc|highs] [--out FILE]`` reads the model, solves it as it is and with the
changes, and writes one evidence graph of the difference
(:mod:`verity.backends.pulp.whatif`) to ``--out`` or to standard output. ``NAME`` is a
constraint's name (its right-hand side), ``VAR.up`` / ``VAR.low`` (a bound of the
variable ``VAR``) or ``obj.VAR`` (its objective coefficient). Every input is checked
before the model is solved; a bad ``--set`` is a one-line error naming the closest names.
"""

from __future__ import annotations

import argparse

from verity.backends.pulp import read_model
from verity.cli.commands._output import write_or_print
from verity.cli.commands.graph_from_lp import add_model_options, checked_inputs
from verity.errors import InputError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("model", metavar="MODEL", help="an .mps or .lp model file")
    parser.add_argument(
        "--set",
        dest="changes",
        metavar="NAME=VALUE",
        action="append",
        required=True,
        help="a change, repeatable: CONSTRAINT=VALUE (its right-hand side), VAR.up=VALUE or "
        "VAR.low=VALUE (a bound), obj.VAR=VALUE (an objective coefficient)",
    )
    add_model_options(parser)
    parser.add_argument("--out", metavar="FILE", help="write the graph here (default: stdout)")


def parse_sets(items: list[str]) -> dict[str, float]:
    """``NAME=VALUE`` items as a dict (``InputError`` for a malformed item, a value that
    is no finite number or a name given twice)."""
    out: dict[str, float] = {}
    for item in items:
        name, sep, text = item.partition("=")
        name, text = name.strip(), text.strip()
        if not sep or not name or not text:
            raise InputError(f"--set expects NAME=VALUE, not {item!r}")
        try:
            value = float(text)
        except ValueError:
            raise InputError(f"--set {name}: {text!r} is not a number") from None
        if value != value or value in (float("inf"), float("-inf")):
            raise InputError(f"--set {name}: the value must be a finite number, not {text!r}")
        if name in out:
            raise InputError(f"--set {name} is given twice")
        out[name] = value
    return out


def run(args: argparse.Namespace) -> int:
    from verity.backends.pulp.whatif import what_if

    changes = parse_sets(args.changes)
    labels = checked_inputs(args)
    graph = what_if(read_model(args.model), changes, labels=labels, solver=args.solver)
    write_or_print(graph.dumps(), args.out)
    return 0

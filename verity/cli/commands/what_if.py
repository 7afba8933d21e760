"""`verity what-if`: re-solve an optimization model with a change and write the graph of it.

``verity what-if MODEL.mps|MODEL.lp --set NAME=VALUE [--set ...] [--labels FILE]
[--solver cbc|highs] [--out FILE]`` reads the model, solves it as it is and with the
changes, and writes one evidence graph of the difference
(:mod:`verity.backends.pulp.whatif`) to ``--out`` or to standard output. ``NAME`` is a
constraint's name (its right-hand side), ``VAR.up`` / ``VAR.low`` (a bound of the
variable ``VAR``) or ``obj.VAR`` (its objective coefficient). ``VAR.up=none`` /
``VAR.low=none`` removes that bound; ``none`` is the one spelling (``inf``, ``None``,
``null`` and the like are refused with a one-line error naming it). Every input is
checked before the model is solved; a bad ``--set`` is a one-line error naming the
closest names.
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
        "VAR.low=VALUE (a bound; the value none removes it), obj.VAR=VALUE (an objective "
        "coefficient)",
    )
    add_model_options(parser)
    parser.add_argument("--out", metavar="FILE", help="write the graph here (default: stdout)")


#: The one spelling that removes a bound.
NO_BOUND = "none"

#: Spellings near ``none`` that are refused with an error naming it.
_NEAR_NONE = {"none", "null", "nil", "no", "inf", "infinity", "unbounded", "free"}


def _value(name: str, text: str) -> float | None:
    """One ``--set`` value: a finite number, or ``none`` (``None``: remove the bound)."""
    if text == NO_BOUND:
        return None
    if text.lower().lstrip("+-") in _NEAR_NONE:
        raise InputError(f"--set {name}: write {NO_BOUND} to remove a bound, not {text!r}")
    try:
        value = float(text)
    except ValueError:
        raise InputError(f"--set {name}: {text!r} is not a number (or {NO_BOUND})") from None
    if value != value:
        raise InputError(f"--set {name}: the value must be a finite number, not {text!r}")
    return value


def parse_sets(items: list[str]) -> dict[str, float | None]:
    """``NAME=VALUE`` items as a dict, ``none`` as ``None`` (``InputError`` for a
    malformed item, a value that is neither a finite number nor ``none``, or a name given
    twice)."""
    out: dict[str, float | None] = {}
    for item in items:
        name, sep, text = item.partition("=")
        name, text = name.strip(), text.strip()
        if not sep or not name or not text:
            raise InputError(f"--set expects NAME=VALUE, not {item!r}")
        value = _value(name, text)
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

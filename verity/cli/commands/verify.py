"""`verity verify GRAPH NARRATION`: check a narration against an evidence graph.

Either file may be ``-`` for standard input (not both).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from verity.cli.commands._options import add_gates, chosen_profile
from verity.cli.commands._output import (
    exit_code,
    print_json,
    print_warnings,
    render_report,
)
from verity.core.gates import PROFILES
from verity.core.graph import EvidenceGraph, load_graph
from verity.core.paraphrase import cited_ids, paraphrase_warnings, text_check_applies
from verity.core.verify import verify
from verity.errors import InputError
from verity.formats import GRAPH_FORMAT, NARRATION_FORMAT
from verity.jsonio import MAX_INPUT_BYTES, loads, read_json

__all__ = ["add_arguments", "read_graph_arg", "read_json_arg", "run"]


def read_json_arg(arg: str, what: str) -> Any:
    """The JSON of the file ``arg`` names, or of standard input when it is ``-``."""
    if arg != "-":
        return read_json(arg, what)
    try:
        data = sys.stdin.buffer.read(MAX_INPUT_BYTES + 1)
    except (OSError, ValueError) as exc:  # closed or unreadable stdin
        raise InputError(f"{what}: standard input cannot be read ({exc})") from None
    if len(data) > MAX_INPUT_BYTES:
        raise InputError(f"{what} on standard input is over the {MAX_INPUT_BYTES}-byte limit")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"{what} on standard input is not valid UTF-8 (byte {exc.start})"
        ) from None
    return loads(text, f"{what} on standard input")


def read_graph_arg(arg: str) -> EvidenceGraph:
    """The evidence graph of the file ``arg`` names (``-``: standard input)."""
    return load_graph(read_json_arg(arg, "graph") if arg == "-" else arg)


def _is_narration(doc: Any) -> bool:
    """A narration by its ``format`` (which a narration may leave out: then by its claims)."""
    if not isinstance(doc, dict):
        return False
    return doc.get("format", NARRATION_FORMAT if "claims" in doc else None) == NARRATION_FORMAT


def swapped_hint(graph_arg: str, graph_doc: Any, narration_arg: str, narration_doc: Any) -> str:
    """The one-line hint when GRAPH holds a narration and NARRATION an evidence graph (by
    the ``format`` fields of both); "" otherwise."""
    narration_is_graph = isinstance(narration_doc, dict) and (
        narration_doc.get("format") == GRAPH_FORMAT
    )
    if not (_is_narration(graph_doc) and narration_is_graph):
        return ""
    return (
        f"the files look swapped: {graph_arg} is a narration and {narration_arg} an evidence "
        f"graph; the graph comes first: verity verify {narration_arg} {graph_arg}"
    )


def _swapped(args: argparse.Namespace, graph_doc: Any) -> str:
    """:func:`swapped_hint` for a graph that did not load ("" when a file cannot be read:
    the graph's own error stands)."""
    try:
        if graph_doc is None:
            graph_doc = read_json_arg(args.graph, "graph file")
        narration_doc = read_json_arg(args.narration, "narration file")
    except InputError:
        return ""
    return swapped_hint(args.graph, graph_doc, args.narration, narration_doc)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("graph", metavar="GRAPH", help="evidence graph JSON file (- for stdin)")
    parser.add_argument("narration", metavar="NARRATION", help="narration JSON file (- for stdin)")
    parser.add_argument(
        "--profile", choices=PROFILES, default="strict", help="gate profile (default: strict)"
    )
    add_gates(parser)
    parser.add_argument("--json", action="store_true", help="print the report as JSON")


def run(args: argparse.Namespace) -> int:
    if args.graph == "-" and args.narration == "-":
        raise InputError("only one of GRAPH and NARRATION can be - (standard input)")
    profile = chosen_profile(args)
    graph_doc = read_json_arg(args.graph, "graph") if args.graph == "-" else None
    try:
        graph = load_graph(args.graph if graph_doc is None else graph_doc)
    except InputError:
        hint = _swapped(args, graph_doc)
        if hint:
            raise InputError(hint) from None
        raise
    narration = read_json_arg(args.narration, "narration file")
    report = verify(graph, narration, profile=profile, on_fail="filter")
    if text_check_applies(profile):
        warnings = paraphrase_warnings(graph, cited_ids([narration]))
        report = report.model_copy(update={"warnings": warnings})
        print_warnings(warnings)
    if args.json:
        print_json(report.to_dict())
    else:
        print(render_report(report))
    return exit_code(report.summary.claims, report.summary.passed)

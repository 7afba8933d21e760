"""`verity verify GRAPH NARRATION`: check a narration against an evidence graph."""

from __future__ import annotations

import argparse

from verity.commands._output import exit_code, print_json, render_report
from verity.gates import PROFILES
from verity.graph import load_graph
from verity.jsonio import read_json
from verity.verify import verify


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("graph", metavar="GRAPH", help="evidence graph JSON file")
    parser.add_argument("narration", metavar="NARRATION", help="narration JSON file")
    parser.add_argument(
        "--profile", choices=PROFILES, default="strict", help="gate profile (default: strict)"
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")


def run(args: argparse.Namespace) -> int:
    graph = load_graph(args.graph)
    narration = read_json(args.narration, "narration file")
    report = verify(graph, narration, profile=args.profile)
    if args.json:
        print_json(report.to_dict())
    else:
        print(render_report(report))
    return exit_code(report.summary.claims, report.summary.passed)

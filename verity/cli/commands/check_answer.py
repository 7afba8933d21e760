"""`verity check-answer PASSAGES.json ANSWER.txt` and `verity check-answer --graph GRAPH
ANSWER.txt`: keep the sentences of a free-text answer that the passages, or the nodes of
an evidence graph, support.

Against passages only the text layer loads (no pydantic, no JSON Schema validator);
against a graph the graph's loader loads with it.
"""

from __future__ import annotations

import argparse

from verity.answer import AnswerResult, Passage, check_answer, coerce_passages
from verity.cli.commands._output import exit_code, print_json
from verity.errors import InputError
from verity.jsonio import read_json, read_text
from verity.text.display import one_line

__all__ = ["add_arguments", "render", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "passages",
        metavar="PASSAGES",
        nargs="?",
        help='JSON file: [{"id": ..., "text": ...}, ...] (leave out with --graph)',
    )
    parser.add_argument("answer", metavar="ANSWER", help="UTF-8 text file holding the answer")
    parser.add_argument(
        "--graph",
        metavar="GRAPH",
        help="check against this evidence graph instead of passages: each sentence as strict "
        "checks a claim sentence, its entities and numbers stated by the supporting nodes",
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def render(result: AnswerResult) -> str:
    """A readable per-sentence summary of an answer check."""
    head = f"graph {result.graph_id} | " if result.graph_id is not None else ""
    lines = [
        f"{head}{len(result.claims)} sentences: "
        f"{len(result.claims) - result.unsupported_claims_removed} supported, "
        f"{result.unsupported_claims_removed} removed"
    ]
    for claim in result.claims:
        if claim.supported:
            where = claim.passage_id if claim.node_ids is None else ", ".join(claim.node_ids)
            lines.append(f"  KEEP   [{where}] {one_line(claim.text, 100)}")
            continue
        closest = claim.closest_passage_id if claim.node_ids is None else claim.closest_node_id
        lines.append(
            f"  REMOVE [{claim.reason}; closest {closest or '-'}] {one_line(claim.text, 100)}"
        )
        if claim.detail:
            lines.append(f"         {claim.detail}")
    lines.append("answer: " + result.answer)
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    if args.graph is not None and args.passages is not None:
        raise InputError("give PASSAGES or --graph GRAPH, not both")
    if args.graph is None and args.passages is None:
        raise InputError("give PASSAGES or --graph GRAPH to check the answer against")
    if args.graph is not None:
        from verity.core.graph import load_graph

        graph = load_graph(args.graph)
        result = check_answer(read_text(args.answer, "answer file"), graph=graph)
    else:
        passages = _passages(args.passages)
        result = check_answer(read_text(args.answer, "answer file"), passages)
    if args.json:
        print_json(result.to_dict())
    else:
        print(render(result))
    return exit_code(len(result.claims), len(result.claims) - result.unsupported_claims_removed)


def _passages(path: str) -> list[Passage]:
    data = read_json(path, "passages file")
    if not isinstance(data, list):
        raise InputError(f'passages file {path}: expected a JSON list of {{"id", "text"}} objects')
    try:
        return coerce_passages(data)
    except InputError as exc:
        raise InputError(f"passages file {path}: {exc}") from None

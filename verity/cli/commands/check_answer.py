"""`verity check-answer PASSAGES.json ANSWER.txt` and `verity check-answer --graph GRAPH
ANSWER.txt`: keep the sentences of a free-text answer that the passages, or the nodes of
an evidence graph, support.

Against passages only the text layer loads (no pydantic, no JSON Schema validator);
against a graph the graph's loader loads with it.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from verity.answer import AnswerResult, Passage, check_answer, coerce_passages
from verity.cli.commands._output import exit_code, print_json, print_warnings
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
    _intermix(parser)


def _intermix(parser: argparse.ArgumentParser) -> None:
    """Let PASSAGES and ANSWER stand on either side of the options.

    Plain argparse takes ``PASSAGES --graph GRAPH ANSWER`` as ANSWER=PASSAGES and an
    unrecognized last word; parsed intermixed, both files reach :func:`run`, which names
    the conflict."""
    plain = parser.parse_known_args

    def parse(args: Sequence[str] | None = None, namespace: Any = None) -> Any:
        # parse_known_intermixed_args calls parse_known_args itself: give it the plain one.
        setattr(parser, "parse_known_args", plain)  # noqa: B010
        try:
            return parser.parse_known_intermixed_args(args, namespace)
        finally:
            setattr(parser, "parse_known_args", parse)  # noqa: B010

    setattr(parser, "parse_known_args", parse)  # noqa: B010


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
        raise InputError(
            f"PASSAGES ({args.passages}) and --graph ({args.graph}) conflict: check the answer "
            "against one of them"
        )
    if args.graph is None and args.passages is None:
        raise InputError("give PASSAGES or --graph GRAPH to check the answer against")
    if args.graph is not None:
        from verity.core.graph import load_graph

        try:
            graph = load_graph(args.graph)
        except InputError:
            _refuse_if_swapped(args.graph, args.answer)
            raise
        result = check_answer(read_text(args.answer, "answer file"), graph=graph)
        # A free-text answer may rest on any node: warn when the whole graph declares no
        # variation.
        from verity.core.paraphrase import paraphrase_warnings

        warnings = paraphrase_warnings(graph, what="the nodes")
    else:
        try:
            passages = _passages(args.passages)
        except InputError:
            _refuse_if_swapped(args.passages, args.answer)
            raise
        result = check_answer(read_text(args.answer, "answer file"), passages)
        warnings = []
    print_warnings(warnings)
    if args.json:
        out = result.to_dict()
        if warnings:
            out["warnings"] = [w.model_dump(mode="json") for w in warnings]
        print_json(out)
    else:
        print(render(result))
    return exit_code(len(result.claims), len(result.claims) - result.unsupported_claims_removed)


def _swapped_hint(evidence_arg: str, evidence_doc: Any, answer_arg: str, answer_doc: Any) -> str:
    """The one-line hint when the evidence file (PASSAGES or GRAPH) is not JSON and the
    answer file is the JSON the evidence should be (a passages list or an evidence
    graph); "" otherwise. ``evidence_doc`` is None when it does not parse as JSON."""
    from verity.formats import GRAPH_FORMAT

    if evidence_doc is not None:
        return ""
    graph = isinstance(answer_doc, dict) and answer_doc.get("format") == GRAPH_FORMAT
    passages = isinstance(answer_doc, list) and all(
        isinstance(p, dict) and "text" in p for p in answer_doc
    )
    if not (graph or passages):
        return ""
    what = "an evidence graph" if graph else "a passages list"
    flag = "--graph " if graph else ""
    return (
        f"the files look swapped: {evidence_arg} is not JSON and {answer_arg} is {what}; "
        f"the answer comes last: verity check-answer {flag}{answer_arg} {evidence_arg}"
    )


def _refuse_if_swapped(evidence_arg: str, answer_arg: str) -> None:
    """Raise the swap hint when the evidence file does not parse and the answer file
    holds the evidence; return (the evidence's own error stands) otherwise."""
    try:
        read_json(evidence_arg, "evidence file")
    except InputError:
        evidence_doc = None
    else:
        return
    try:
        answer_doc = read_json(answer_arg, "answer file")
    except InputError:
        return
    hint = _swapped_hint(evidence_arg, evidence_doc, answer_arg, answer_doc)
    if hint:
        raise InputError(hint) from None


def _passages(path: str) -> list[Passage]:
    data = read_json(path, "passages file")
    if not isinstance(data, list):
        raise InputError(f'passages file {path}: expected a JSON list of {{"id", "text"}} objects')
    try:
        return coerce_passages(data)
    except InputError as exc:
        raise InputError(f"passages file {path}: {exc}") from None

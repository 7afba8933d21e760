"""`verity check-answer PASSAGES.json ANSWER.txt`: keep the sentences the passages support."""

from __future__ import annotations

import argparse

from verity.answer import AnswerResult, check_answer, coerce_passages
from verity.cli.commands._output import exit_code, print_json
from verity.errors import InputError
from verity.jsonio import read_json, read_text
from verity.text.display import one_line


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "passages", metavar="PASSAGES", help='JSON file: [{"id": ..., "text": ...}, ...]'
    )
    parser.add_argument("answer", metavar="ANSWER", help="UTF-8 text file holding the answer")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def render(result: AnswerResult) -> str:
    """A readable per-sentence summary of an answer check."""
    lines = [
        f"{len(result.claims)} sentences: "
        f"{len(result.claims) - result.unsupported_claims_removed} supported, "
        f"{result.unsupported_claims_removed} removed"
    ]
    for claim in result.claims:
        if claim.supported:
            lines.append(f"  KEEP   [{claim.passage_id}] {one_line(claim.text, 100)}")
            continue
        closest = claim.closest_passage_id or "-"
        lines.append(f"  REMOVE [{claim.reason}; closest {closest}] {one_line(claim.text, 100)}")
        if claim.detail:
            lines.append(f"         {claim.detail}")
    lines.append("answer: " + result.answer)
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    data = read_json(args.passages, "passages file")
    if not isinstance(data, list):
        raise InputError(
            f'passages file {args.passages}: expected a JSON list of {{"id", "text"}} objects'
        )
    try:
        passages = coerce_passages(data)
    except InputError as exc:
        raise InputError(f"passages file {args.passages}: {exc}") from None
    answer = read_text(args.answer, "answer file")
    result = check_answer(answer, passages)
    if args.json:
        print_json(result.to_dict())
    else:
        print(render(result))
    return exit_code(len(result.claims), len(result.claims) - result.unsupported_claims_removed)

"""`verity narrate GRAPH`: narrate an evidence graph, verify the claims, repair, report.

The exit status describes what ships after the repair passes: 0 every claim of the
final narration verified, 1 some removed but at least one shipped, 3 nothing shipped
(the refusal; also when the narrator's request failed), 2 unusable input.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from verity.commands._options import add_repairs
from verity.commands._output import exit_code, print_json, render_report
from verity.gates import PROFILES
from verity.narrators import Narrator, RecordingNarrator, narrator_from_spec
from verity.narrators.openai_chat import RESPONSE_FORMATS
from verity.prompts import MAX_PROMPT_NODES, VARIANTS
from verity.repair import NarrationResult, Pass, narrate_and_verify

__all__ = ["add_arguments", "build_narrator", "render_result", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("graph", metavar="GRAPH", help="evidence graph JSON file")
    parser.add_argument(
        "--narrator",
        default="local",
        metavar="SPEC",
        help="local | openai:MODEL | scripted[:PROFILE] | replay:FILE (default: local)",
    )
    parser.add_argument(
        "--variant",
        choices=VARIANTS,
        default="constrained",
        help="prompt variant (default: constrained)",
    )
    add_repairs(parser)
    parser.add_argument(
        "--profile", choices=PROFILES, default="strict", help="gate profile (default: strict)"
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="print passes (attempt and report each) and shipped claims as JSON",
    )
    parser.add_argument("--base-url", metavar="URL", help="OpenAI-compatible endpoint (openai:)")
    parser.add_argument(
        "--api-key-env",
        metavar="NAME",
        help="environment variable holding the API key (default: OPENAI_API_KEY)",
    )
    parser.add_argument(
        "--response-format",
        choices=RESPONSE_FORMATS,
        help="structured output style for openai: (default: json_schema)",
    )
    parser.add_argument("--seed", type=int, help="seed of the scripted or local narrator")
    parser.add_argument(
        "--max-nodes",
        type=int,
        default=MAX_PROMPT_NODES,
        metavar="N",
        help=f"most nodes a prompt lists (default: {MAX_PROMPT_NODES})",
    )
    parser.add_argument(
        "--record",
        metavar="FILE",
        help="append every attempt to this JSONL file (replay with replay:FILE)",
    )


def build_narrator(args: argparse.Namespace) -> Narrator:
    """The narrator the arguments ask for, recording when ``--record`` is given."""
    narrator = narrator_from_spec(
        args.narrator,
        base_url=args.base_url,
        api_key_env=args.api_key_env,
        response_format=args.response_format,
        seed=args.seed,
    )
    return RecordingNarrator(narrator, Path(args.record)) if args.record else narrator


def _attempt_line(p: Pass) -> str:
    a = p.attempt
    label = "narration" if p.index == 0 else f"repair {p.index}"
    head = f"pass {p.index} ({label}) by {a.narrator} [{a.model}]"
    if a.api_error is not None:
        return f"{head}: request failed: {a.api_error.code}: {a.api_error.message}"
    timing = f"{a.latency_s:.2f}s, {a.usage.prompt_tokens}+{a.usage.completion_tokens} tokens"
    if a.parse_error is not None:
        return f"{head}: {timing}; output unusable: {a.parse_error.code}: {a.parse_error.message}"
    extra = f", {len(p.kept_ids)} kept" if p.index else ""
    return f"{head}: {timing}; {len(a.claims)} claims{extra}"


def render_result(result: NarrationResult) -> str:
    """Every pass with its per-claim verdicts, then what ships."""
    lines: list[str] = []
    if result.simulated:
        lines.append("note: simulated narrator; these claims are not model output")
    for p in result.passes:
        lines.append(_attempt_line(p))
        lines.extend("  " + line for line in render_report(p.report).splitlines())
    final = result.final
    lines.append(
        f"shipped: {len(final.shipped)} claims after {len(result.passes) - 1} "
        f"repair pass(es) ({result.stop_reason})"
    )
    lines.append("answer: " + final.answer)
    return "\n".join(lines)


def json_result(result: NarrationResult) -> dict[str, Any]:
    """The ``--json`` object: passes (attempt, report), shipped claims, and the rest."""
    return result.to_dict()


def run(args: argparse.Namespace) -> int:
    narrator = build_narrator(args)
    result = narrate_and_verify(
        args.graph, narrator, args.variant, args.profile, args.repairs, max_nodes=args.max_nodes
    )
    if args.json:
        print_json(json_result(result))
    else:
        print(render_result(result))
    first = result.passes[0].attempt
    if first.api_error is not None:
        print(f"verity: narrator request failed: {first.api_error.code}", file=sys.stderr)
    s = result.final.summary
    return exit_code(s.claims, s.passed)

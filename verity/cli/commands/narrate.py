"""`verity narrate GRAPH`: narrate an evidence graph, verify the claims, repair, report.

The exit status describes what ships after the repair passes: 0 every claim of the
final narration verified, 1 some removed but at least one shipped, 3 nothing shipped
(the refusal; also when the endpoint answered the first request with an error), 2
unusable input, 4 the narrator could not be reached (no connection, or no answer within
``--timeout``), so there was nothing to verify.

``--record FILE`` holds the attempts of one run: they are written into a hidden sibling
of FILE and replace it when the run is complete. SIGINT or SIGTERM stops the command
with one line, exit status 130 or 143, and FILE as it was. A narrator that failed the
first attempt (exit 4, or 3 when the endpoint answered with an error) is a failure, not a
run (:func:`verity.pipeline.failed_attempt`): FILE is left as it was, and so is its
folder.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path
from typing import Any

from verity.cli.commands._options import (
    add_gates,
    add_openai_options,
    add_quiet,
    add_repairs,
    add_threads,
    chosen_profile,
    local_options,
    openai_options,
    progress_events,
    stderr_notes,
)
from verity.cli.commands._output import (
    EXIT_REFUSED,
    EXIT_UNREACHABLE,
    UNREACHABLE_CODES,
    exit_code,
    print_json,
    print_warnings,
    render_report,
    until_stopped,
)
from verity.core.gates import PROFILES
from verity.core.paraphrase import cited_ids, paraphrase_warnings, text_check_applies
from verity.core.report import ReportWarning
from verity.errors import InputError
from verity.files import staged_file
from verity.llm.narrators import Narrator, narrator_from_spec
from verity.llm.narrators.base import Attempt
from verity.llm.prompts import MAX_PROMPT_NODES, VARIANTS
from verity.llm.repair import NarrationResult, Pass
from verity.pipeline import DEFAULT_VARIANT, NarratorFailed, failed_attempt, kept_run, narrate
from verity.progress import Note, OnEvent, pass_label

__all__ = [
    "NARRATOR_HELP",
    "VARIANT_HELP",
    "add_arguments",
    "build_narrator",
    "failure_status",
    "narrator_failure",
    "render_result",
    "run",
    "scripted_mixes",
]


def scripted_mixes() -> str:
    """The scripted narrator's error mixes, for help texts."""
    from verity.llm.narrators.scripted import DEFAULT_MIX, MIXES

    return "|".join(MIXES) + f"; default {DEFAULT_MIX}"


NARRATOR_HELP = (
    "local (the embedded SmolLM2 model) | openai:MODEL (any OpenAI-compatible endpoint) | "
    "scripted[:PROFILE] (the simulator; PROFILE {profiles}) | replay:FILE (attempts "
    "recorded with --record)"
)
VARIANT_HELP = (
    f"prompt variant (default: {DEFAULT_VARIANT}, for every narrator: the model picks, by "
    "number, claims built from the graph, so every claim it picks verifies; "
    "replay:FILE needs the variant it was recorded with)"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("graph", metavar="GRAPH", help="evidence graph JSON file (- for stdin)")
    parser.add_argument(
        "--narrator",
        default="local",
        metavar="SPEC",
        help=NARRATOR_HELP.format(profiles=scripted_mixes()) + " (default: local)",
    )
    parser.add_argument("--variant", choices=VARIANTS, default=DEFAULT_VARIANT, help=VARIANT_HELP)
    add_repairs(parser)
    parser.add_argument(
        "--profile", choices=PROFILES, default="strict", help="gate profile (default: strict)"
    )
    add_gates(parser)
    parser.add_argument(
        "--json",
        action="store_true",
        help="print passes (attempt and report each) and shipped claims as JSON",
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
        "--restate",
        action="store_true",
        help="ship a claim refused only by the text check as its cited node's nearest "
        "declared sentence, without a model call, when that node states every entity and "
        "number the claim does (the sentence is verified; the writer's text is kept in the "
        "report as restated_from; off by default)",
    )
    parser.add_argument(
        "--record",
        metavar="FILE",
        help="write every attempt of this run to this JSONL file, replacing it once the "
        "run is complete (an interrupted run leaves it as it was); replay with replay:FILE",
    )
    add_quiet(parser)
    add_threads(parser.add_argument_group("the local narrator"))
    add_openai_options(parser.add_argument_group("openai:MODEL narrators"))


def _notes(on_event: OnEvent | None) -> Any:
    """Where an openai narrator's notes go: the progress line when there is one."""
    if on_event is None:
        return stderr_notes
    return lambda text: on_event(Note(text))


def build_narrator(
    args: argparse.Namespace, *, seed: bool = True, on_event: OnEvent | None = None
) -> Narrator:
    """The narrator the arguments ask for, a local
    or openai narrator reports its steps and notes to ``on_event``."""
    options = openai_options(args)
    if options and not args.narrator.startswith("openai:"):
        flags = ", ".join("--" + k.replace("_", "-") for k in _given_flags(args))
        raise InputError(f"{flags} apply to openai:MODEL narrators only")
    if args.narrator.startswith("openai:"):
        options["notify"] = _notes(on_event)
    options.update(local_options(args, (args.narrator,)))
    if args.narrator == "local":
        options["on_event"] = on_event
    return narrator_from_spec(
        args.narrator, seed=getattr(args, "seed", None) if seed else None, **options
    )


def _record_path(record: str | None) -> Path | None:
    """The ``--record`` file, refused when it names a directory."""
    if not record:
        return None
    path = Path(record)
    if path.is_dir():
        raise InputError(
            f"--record {record}: is a directory; give a file such as {path / 'attempts.jsonl'}"
        )
    return path


def _given_flags(args: argparse.Namespace) -> list[str]:
    names = ("base_url", "api_key_env", "response_format", "timeout", "retries", "max_tokens")
    return [n for n in names if getattr(args, n, None) is not None]


def narrator_failure(narrator: Narrator, result: NarrationResult, kept: str = "") -> int | None:
    """When the narrator failed the first attempt, print one line naming the endpoint and
    the error. Return the exit status of a failed narration
    (:func:`verity.pipeline.failed_attempt`), ``kept`` (what was left as it was) ending
    its line; None when the narration is a run."""
    attempt = result.passes[0].attempt
    if attempt.api_error is None:
        return None
    if failed_attempt(result) is None:  # claims chosen before the transport failed
        failure_status(narrator, attempt)
        return None
    return failure_status(narrator, attempt, kept)


def failure_status(narrator: Narrator, attempt: Attempt, kept: str = "") -> int:
    """Print one line naming the endpoint and the error of ``attempt`` (with ``kept``
    after it); return :data:`EXIT_UNREACHABLE` when the narrator could not be reached,
    else :data:`EXIT_REFUSED` (it answered with an error: nothing to verify)."""
    err = attempt.api_error
    assert err is not None
    url = getattr(narrator, "url", None) or getattr(getattr(narrator, "inner", None), "url", "")
    where = f" at {url}" if url else ""
    tail = f"; {kept}" if kept else ""
    if err.code in UNREACHABLE_CODES:
        print(
            f"verity: error: the narrator {attempt.narrator} could not be reached{where} "
            f"({err.code}): {err.message}{tail}",
            file=sys.stderr,
        )
        return EXIT_UNREACHABLE
    print(
        f"verity: narrator request failed{where}: {err.code}: {err.message}{tail}",
        file=sys.stderr,
    )
    return EXIT_REFUSED


def _attempt_line(p: Pass) -> str:
    a = p.attempt
    head = f"pass {p.index} ({pass_label(p.index)}) by {a.narrator} [{a.model}]"
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
        lines.extend("  " + line for line in render_report(p.report, answer=False).splitlines())
    for r in result.restated:
        lines.append(f"restated {r.id} from {r.node_id}: {r.text!r} (written: {r.restated_from!r})")
    final = result.final
    ways = result.shipped_by()
    lines.append(
        f"shipped: {len(final.shipped)} claims after {len(result.passes) - 1} "
        f"repair pass(es) ({result.stop_reason}): {ways['as_written']} as written, "
        f"{ways['after_repair']} after repair, {ways['restated']} restated"
    )
    lines.append("answer: " + final.answer)
    return "\n".join(lines)


def json_result(
    result: NarrationResult, warnings: list[ReportWarning] | None = None
) -> dict[str, Any]:
    """The ``--json`` object: passes (attempt, report), shipped claims, and the rest;
    ``warnings`` (code, message) only when there are some."""
    out = result.to_dict()
    if warnings:
        out["warnings"] = [w.model_dump(mode="json") for w in warnings]
    return out


def narration_warnings(graph: Any, result: NarrationResult, profile: Any) -> list[ReportWarning]:
    """The paraphrase warning when the nodes the narrator's claims cite, over all passes,
    declare no variation and the profile checks the text (:mod:`verity.core.paraphrase`)."""
    if not text_check_applies(profile):
        return []
    docs = [p.attempt.narration for p in result.passes if p.attempt.narration is not None]
    return paraphrase_warnings(graph, cited_ids(docs))


def run(args: argparse.Namespace) -> int:
    record = _record_path(args.record)
    kept = "nothing was written" if record is None else f"{record} is unchanged"
    return until_stopped("narrate", kept, lambda: _narrate(args, record))


def _narrate(args: argparse.Namespace, record: Path | None) -> int:
    from verity.cli.commands.verify import read_graph_arg

    profile = chosen_profile(args)
    graph = read_graph_arg(args.graph)
    staged = (
        staged_file(record, parents=True) if record is not None else contextlib.nullcontext(None)
    )
    try:
        with staged as recording, progress_events(args, "narrate") as on_event:
            narrator = build_narrator(args, on_event=on_event)
            result = kept_run(
                narrate(
                    graph,
                    narrator,
                    args.variant,
                    profile,
                    args.repairs,
                    max_nodes=args.max_nodes,
                    record=recording,
                    on_event=on_event,
                    restate=args.restate,
                )
            )
    except NarratorFailed as failed:  # a failure, not a run: the record is left as it was
        result = failed.result
    warnings = narration_warnings(graph, result, profile)
    print_warnings(warnings)
    if args.json:
        print_json(json_result(result, warnings))
    else:
        print(render_result(result))
    kept = "" if record is None else f"{record} is unchanged"
    status = narrator_failure(narrator, result, kept)
    if status is not None:
        return status
    s = result.final.summary
    return exit_code(s.claims, s.passed)

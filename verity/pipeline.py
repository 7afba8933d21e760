"""The workflow a run follows: solve a backend's problem, narrate its evidence graph,
verify every claim and repair once, keep the files.

:func:`narrate` is the narrate -> verify -> repair step that ``verity narrate``,
``verity demo`` and ``verity bench`` all run (recording each attempt when asked);
:func:`run_demo` is the whole demo: it solves one card-rewards spending profile with the
MILP backend, narrates the graph (the embedded SmolLM2 model and the choice variant by
default: the model picks, by number, items of the graph's claim menu, the plan first),
verifies under ``strict``, runs one repair pass, and writes into the output directory:

- ``graph.json``: the evidence graph;
- ``attempts.jsonl``: every narrator attempt (replay with ``--narrator replay:FILE``);
- ``narration.json``: the final narration (kept claims + replacements);
- ``report.json``: its report, which ``verity verify graph.json narration.json``
  reproduces.

The four are written into a hidden sibling of the directory and moved into it only
when the run is complete (:func:`verity.files.staged_dir`), so an interrupted demo
leaves the previous run's four files as they were.

**What counts as a run.** A narration whose first attempt the narrator answered is a
run, whatever the gates then make of it: all claims verified, some dropped, or none (the
refusal, exit 3) are all outcomes worth keeping, and so is a replay that has no record
of the prompt (the refusal it reproduces). A first attempt that failed with no claims at
all because the endpoint or the model did (``api_error`` ``api.*``: unreachable, silent,
answering with an error; ``local.*``: the embedded model failing) is a failure: nothing
was narrated, so there is nothing to keep. :func:`failed_attempt` is that rule;
:func:`run_demo` and ``verity narrate --record`` raise :class:`NarratorFailed` in their
staging block on it, so a failure replaces no earlier run.

Telling the story for a person is the command line's job (:mod:`verity.cli.render`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from verity.core.graph import EvidenceGraph
from verity.core.profiles import Profile
from verity.core.verify import verify
from verity.errors import InputError
from verity.files import check_dir_target, staged_dir, write_file
from verity.formats import NARRATION_FORMAT
from verity.jsonio import dumps
from verity.llm.narrators.base import Attempt, Narrator
from verity.llm.narrators.replay import RecordingNarrator
from verity.llm.prompts import MAX_PROMPT_NODES, VARIANTS
from verity.llm.repair import NarrationResult, narrate_and_verify
from verity.progress import OnEvent, Step, silent

__all__ = [
    "DEFAULT_VARIANT",
    "DEMO_GOAL",
    "DEMO_PROFILE",
    "DEMO_VARIANT",
    "DemoResult",
    "NarratorFailed",
    "demo_graph",
    "failed_attempt",
    "kept_run",
    "narrate",
    "run_demo",
]

DEMO_PROFILE = 7
DEMO_GOAL = "max_value"
#: The prompt variant ``narrate`` and ``demo`` use unless told otherwise, for every
#: narrator: ``choice`` (the model picks, by number, claims built from the graph). It
#: ships the most verified claims at the least cost (figures: benchmarks/README.md,
#: "Decoding by choice"); an endpoint's model and the scripted simulator can only pick
#: claims that verify. ``replay:FILE`` needs the variant the
#: recording was made with.
DEFAULT_VARIANT = "choice"
DEMO_VARIANT = DEFAULT_VARIANT
#: The demo's files in its output directory, by role.
_DEMO_FILES = {
    "graph": "graph.json",
    "attempts": "attempts.jsonl",
    "narration": "narration.json",
    "report": "report.json",
}


def narrate(
    graph: EvidenceGraph | dict[str, Any],
    narrator: Narrator,
    variant: str,
    profile: str | Profile = "strict",
    repairs: int = 1,
    *,
    max_nodes: int = MAX_PROMPT_NODES,
    record: Path | None = None,
    on_event: OnEvent | None = None,
    restate: bool = False,
) -> NarrationResult:
    """Narrate ``graph``, verify under ``profile`` and repair up to ``repairs`` times;
    with ``record``, every attempt is appended to that JSON Lines file. ``on_event``
    gets the start and end of each pass (:mod:`verity.progress`); a narrator reports
    its own steps to the callback it was built with (``LocalNarrator(on_event=...)``).
    With ``restate`` (off by default), a claim refused only by the text check ships as
    its cited node's nearest declared sentence, without a model call
    (:func:`verity.llm.repair.restate_pass`)."""
    if record is not None:
        narrator = RecordingNarrator(narrator, record)
    return narrate_and_verify(
        graph,
        narrator,
        variant,
        profile,
        repairs,
        max_nodes=max_nodes,
        on_event=on_event,
        restate=restate,
    )


#: Where the code of a failed first attempt starts when the narrator failed: the
#: endpoint's transport or answer (``api.``), the embedded model (``local.``). A replay
#: with no record of the prompt (``replay.missing``) is the recording's answer: a run.
_FAILURE_CODES = ("api.", "local.")


def failed_attempt(result: NarrationResult) -> Attempt | None:
    """The first attempt when the narrator failed it (an endpoint or model error, and no
    claims): then the narration is a failure, not a run; else None. One that chose some
    claims before its transport failed is a run: those claims were verified."""
    first = result.passes[0].attempt
    err = first.api_error
    if err is None or first.narration is not None or not err.code.startswith(_FAILURE_CODES):
        return None
    return first


class NarratorFailed(Exception):
    """Raised in a run's staging block when its narrator failed (:func:`failed_attempt`),
    so the run replaces nothing; ``result`` is the narration, ``attempt`` the failed one."""

    def __init__(self, result: NarrationResult, attempt: Attempt) -> None:
        err = attempt.api_error
        super().__init__(f"{err.code}: {err.message}" if err is not None else "narrator failed")
        self.result = result
        self.attempt = attempt


def kept_run(result: NarrationResult) -> NarrationResult:
    """``result``, once it is a run worth keeping; raise :class:`NarratorFailed` when it
    is a failure (:func:`failed_attempt`)."""
    failed = failed_attempt(result)
    if failed is not None:
        raise NarratorFailed(result, failed)
    return result


@dataclass(frozen=True)
class DemoResult:
    """What the demo did and where its files are."""

    out_dir: Path
    files: dict[str, Path]
    profile: int
    goal: str
    result: NarrationResult
    #: How many claims of the final narration the four-gate ``paper`` profile passes.
    paper_passed: int
    variant: str = DEMO_VARIANT
    #: Ids of the final claims that ``paper`` ships and ``strict`` drops.
    paper_only: tuple[str, ...] = ()
    #: How many nodes the evidence graph has.
    nodes: int = 0


def demo_graph(profile: int = DEMO_PROFILE, goal: str = DEMO_GOAL) -> dict[str, Any]:
    """The evidence graph of one shipped spending profile and goal, solved now."""
    from verity.backends.card_rewards import GOALS, optimize

    if goal not in GOALS:
        raise InputError(f"goal must be one of {', '.join(GOALS)}, not {goal!r}")
    return optimize(profile, goal)


def _local(on_event: OnEvent | None) -> Narrator:
    from verity.llm.narrators.local import LocalNarrator

    return LocalNarrator(on_event=on_event)


def run_demo(
    out_dir: str | Path = "verity-demo",
    *,
    profile: int = DEMO_PROFILE,
    goal: str = DEMO_GOAL,
    narrator: Narrator | None = None,
    repairs: int = 1,
    variant: str = DEMO_VARIANT,
    on_event: OnEvent | None = None,
) -> DemoResult:
    """Run the demo; ``narrator`` defaults to the embedded local model. ``on_event``
    gets each step (:mod:`verity.progress`): the solve, then the passes (and, for the
    default narrator, the model's steps). Raises :class:`NarratorFailed`, leaving
    ``out_dir`` as it was, when the narrator failed the first attempt."""
    if variant not in VARIANTS:
        raise InputError(f"variant must be one of {', '.join(VARIANTS)}, not {variant!r}")
    report = on_event if on_event is not None else silent
    out = Path(out_dir)
    check_dir_target(out)
    inner = narrator if narrator is not None else _local(on_event)
    report(Step(f"solving spending profile {profile} ({goal}) with the MILP"))
    graph = demo_graph(profile, goal)
    with staged_dir(out) as staging:
        write_file(staging / _DEMO_FILES["graph"], dumps(graph))
        record = staging / _DEMO_FILES["attempts"]
        result = kept_run(
            narrate(graph, inner, variant, "strict", repairs, record=record, on_event=on_event)
        )
        narration = {
            "format": NARRATION_FORMAT,
            "graph_id": result.graph_id,
            "claims": result.final_claims,
        }
        write_file(staging / _DEMO_FILES["narration"], dumps(narration))
        write_file(staging / _DEMO_FILES["report"], dumps(result.final.to_dict()))
    files = {key: out / name for key, name in _DEMO_FILES.items()}
    paper = verify(graph, narration, "paper")
    strict_ids = {c.id for c in result.final.shipped}
    paper_only = tuple(c.id for c in paper.shipped if c.id not in strict_ids)
    return DemoResult(
        out,
        files,
        profile,
        goal,
        result,
        paper.summary.passed,
        variant,
        paper_only,
        len(graph["nodes"]),
    )

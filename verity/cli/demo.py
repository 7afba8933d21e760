"""The end-to-end demo on embedded defaults: optimize, narrate locally, verify, repair.

:func:`run_demo` solves one card-rewards profile with the MILP backend, narrates the
evidence graph with the embedded SmolLM2 model (the extractive variant by default: every
claim the model can write is an item of the graph's claim menu), verifies under
``strict``, runs one repair pass, and writes into the output directory:

- ``graph.json``: the evidence graph;
- ``attempts.jsonl``: every narrator attempt (replay with ``--narrator replay:FILE``);
- ``narration.json``: the final narration (kept claims + replacements);
- ``report.json``: its report, which ``verity verify graph.json narration.json``
  reproduces.

:func:`render_demo` tells the story for a person: the passes, the shipped narration as
prose, each dropped claim with one reason, and what the four-gate ``paper`` profile would
have shipped, only when that differs from what ``strict`` ships.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from verity.core.claims import NARRATION_FORMAT
from verity.core.report import ClaimVerdict
from verity.core.verify import verify
from verity.errors import InputError
from verity.jsonio import dumps
from verity.llm.narrators.base import Narrator
from verity.llm.narrators.replay import RecordingNarrator
from verity.llm.prompts import VARIANTS
from verity.llm.repair import NarrationResult, narrate_and_verify
from verity.text.display import one_line

__all__ = [
    "DEMO_GOAL",
    "DEMO_PROFILE",
    "DEMO_VARIANT",
    "DemoResult",
    "demo_graph",
    "render_demo",
    "run_demo",
]

DEMO_PROFILE = 7
DEMO_GOAL = "max_value"
DEMO_VARIANT = "extractive"
_WIDTH = 88


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


def demo_graph(profile: int = DEMO_PROFILE, goal: str = DEMO_GOAL) -> dict[str, Any]:
    """The evidence graph of one shipped spending profile and goal, solved now."""
    from verity.backends.card_rewards import GOALS, optimize

    if goal not in GOALS:
        raise InputError(f"goal must be one of {', '.join(GOALS)}, not {goal!r}")
    return optimize(profile, goal)


def _write(path: Path, text: str) -> Path:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None
    return path


def _local() -> Narrator:
    from verity.llm.narrators.local import LocalNarrator

    return LocalNarrator()


def run_demo(
    out_dir: str | Path = "verity-demo",
    *,
    profile: int = DEMO_PROFILE,
    goal: str = DEMO_GOAL,
    narrator: Narrator | None = None,
    repairs: int = 1,
    variant: str = DEMO_VARIANT,
) -> DemoResult:
    """Run the demo; ``narrator`` defaults to the embedded local model."""
    if variant not in VARIANTS:
        raise InputError(f"variant must be one of {', '.join(VARIANTS)}, not {variant!r}")
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create {out}: {exc.strerror or exc}") from None
    inner = narrator if narrator is not None else _local()
    graph = demo_graph(profile, goal)
    files = {
        "graph": _write(out / "graph.json", dumps(graph)),
        "attempts": _write(out / "attempts.jsonl", ""),
    }
    result = narrate_and_verify(
        graph, RecordingNarrator(inner, files["attempts"]), variant, "strict", repairs
    )
    final = result.passes[-1]
    narration = {
        "format": NARRATION_FORMAT,
        "graph_id": result.graph_id,
        "claims": list(final.claims),
    }
    files["narration"] = _write(out / "narration.json", dumps(narration))
    files["report"] = _write(out / "report.json", dumps(result.final.to_dict()))
    paper = verify(graph, narration, "paper")
    strict_ids = {c.id for c in result.final.shipped}
    paper_only = tuple(c.id for c in paper.shipped if c.id not in strict_ids)
    return DemoResult(out, files, profile, goal, result, paper.summary.passed, variant, paper_only)


def _short(text: str, limit: int = 110) -> str:
    return one_line(text, limit)


def _pass_line(p: Any) -> str:
    a = p.attempt
    what = "narration" if p.index == 0 else f"repair {p.index}"
    if a.api_error is not None:
        status = f"request failed ({a.api_error.code}: {a.api_error.message})"
    elif a.parse_error is not None:
        status = f"output unusable ({a.parse_error.code}: {a.parse_error.message})"
    else:
        status = f"{len(a.claims)} claims"
    s = p.report.summary
    return (
        f"pass {p.index} ({what}) by {a.narrator} [{a.model}], {a.latency_s:.1f}s: "
        f"{status}; verified {s.passed} of {s.claims}"
    )


def _reason(verdict: ClaimVerdict) -> str:
    if not verdict.errors:
        return "(no errors recorded)"
    first = verdict.errors[0]
    more = len(verdict.errors) - 1
    tail = f" (+{more} more)" if more else ""
    return f"{first.code}: {_short(first.message, 110)}{tail}"


def render_demo(demo: DemoResult) -> str:
    """The demo's story: the passes, the shipped prose, dropped claims and why, files."""
    r = demo.result
    graph = r.passes[0].prompt.graph
    nodes = len(graph.nodes) if graph is not None else 0
    lines = [
        f"verity demo: profile {demo.profile}, goal {demo.goal} -> graph {r.graph_id} "
        f"({nodes} nodes), variant {demo.variant}, gates {r.profile}",
        *(_pass_line(p) for p in r.passes),
        "",
    ]
    shipped = r.final.shipped
    if shipped:
        lines.append(f"Shipped narration ({len(shipped)} verified claims):")
        prose = " ".join(" ".join(c.text.split()) for c in shipped)
        lines.extend(textwrap.wrap(prose, _WIDTH, initial_indent="  ", subsequent_indent="  "))
    else:
        lines.append("Shipped narration (nothing verified, the refusal):")
        lines.append(f"  {r.final.answer}")
    dropped = r.dropped()
    lines.append("")
    if dropped:
        lines.append(f"Dropped claims ({len(dropped)}):")
        for index, verdict, claim in dropped:
            text = claim.get("text", "") if isinstance(claim, dict) else claim
            where = f"pass {index} " if len(r.passes) > 1 else ""
            lines.append(f"  {where}{verdict.id} [{verdict.type or '?'}] {_short(str(text), 90)}")
            lines.append(f"      {_reason(verdict)}")
    else:
        lines.append("Dropped claims: none.")
    if demo.paper_only:
        by_id = {c.get("id"): c for c in r.passes[-1].claims if isinstance(c, dict)}
        lines.append("")
        lines.append(
            f"The four-gate paper profile would have shipped {demo.paper_passed} claims of "
            f"the final narration, {len(demo.paper_only)} of them dropped by {r.profile}:"
        )
        for claim_id in demo.paper_only:
            text = by_id.get(claim_id, {}).get("text", "")
            lines.append(f"  {claim_id} {_short(str(text), 100)}")
    lines.append("")
    lines.append("files:")
    lines.extend(f"  {name:<10} {path}" for name, path in demo.files.items())
    g, n = demo.files["graph"], demo.files["narration"]
    lines.append(f"re-check: verity verify {g} {n}")
    return "\n".join(lines)

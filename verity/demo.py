"""The end-to-end demo on embedded defaults: optimize, narrate locally, verify, repair.

:func:`run_demo` solves one card-rewards profile with the MILP backend, narrates the
evidence graph with the embedded SmolLM2 model (constrained variant), verifies under
``strict``, runs one repair pass, and writes into the output directory:

- ``graph.json``: the evidence graph;
- ``attempts.jsonl``: every narrator attempt (replay with ``--narrator replay:FILE``);
- ``narration.json``: the final narration (kept claims + replacements);
- ``report.json``: its report, which ``verity verify graph.json narration.json``
  reproduces.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from verity.claims import NARRATION_FORMAT
from verity.display import one_line
from verity.errors import InputError
from verity.jsonio import dumps
from verity.narrators.base import Narrator
from verity.narrators.replay import RecordingNarrator
from verity.repair import NarrationResult, narrate_and_verify
from verity.verify import verify

__all__ = ["DEMO_GOAL", "DEMO_PROFILE", "DemoResult", "demo_graph", "render_demo", "run_demo"]

DEMO_PROFILE = 7
DEMO_GOAL = "max_value"


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
    from verity.narrators.local import LocalNarrator

    return LocalNarrator()


def run_demo(
    out_dir: str | Path = "verity-demo",
    *,
    profile: int = DEMO_PROFILE,
    goal: str = DEMO_GOAL,
    narrator: Narrator | None = None,
    repairs: int = 1,
) -> DemoResult:
    """Run the demo; ``narrator`` defaults to the embedded local model."""
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
        graph, RecordingNarrator(inner, files["attempts"]), "constrained", "strict", repairs
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
    return DemoResult(out, files, profile, goal, result, paper.summary.passed)


def _short(text: str, limit: int = 110) -> str:
    return one_line(text, limit)


def render_demo(demo: DemoResult) -> str:
    """The demo's story: the graph, each pass, what shipped, what was dropped and why, files."""
    r = demo.result
    first = r.passes[0]
    graph = first.prompt.graph
    nodes = len(graph.nodes) if graph is not None else 0
    lines = [
        f"verity demo: profile {demo.profile}, goal {demo.goal} -> graph {r.graph_id} "
        f"({nodes} nodes)"
    ]
    for p in r.passes:
        a = p.attempt
        what = "narration" if p.index == 0 else f"repair {p.index}"
        if a.api_error is not None:
            status = f"request failed ({a.api_error.code}: {a.api_error.message})"
        elif a.parse_error is not None:
            status = f"output unusable ({a.parse_error.code}: {a.parse_error.message})"
        else:
            status = f"{len(a.claims)} claims"
        s = p.report.summary
        lines.append(
            f"pass {p.index} ({what}) by {a.narrator} [{a.model}], {a.latency_s:.1f}s: "
            f"{status}; verified {s.passed} of {s.claims}"
        )
    lines.append("")
    lines.append(f"shipped narration ({len(r.final.shipped)} claims, profile {r.profile}):")
    if r.final.shipped:
        lines.extend(f"  {c.id} [{c.type}] {_short(c.text)}" for c in r.final.shipped)
    else:
        lines.append(f"  {r.final.answer}")
    final_claims = len(r.final.claims)
    lines.append(
        f"(the four-gate paper profile would pass {demo.paper_passed} of the "
        f"{final_claims} final claims; strict passes {len(r.final.shipped)})"
    )
    dropped = r.dropped()
    lines.append("")
    lines.append(f"dropped claims ({len(dropped)}):")
    for index, verdict, claim in dropped:
        text = claim.get("text", "") if isinstance(claim, dict) else claim
        lines.append(f"  pass {index} {verdict.id} [{verdict.type or '?'}] {_short(str(text), 90)}")
        codes = list(dict.fromkeys(e.code for e in verdict.errors))
        lines.append(
            f"      {', '.join(codes)}: {_short(verdict.errors[0].message, 120)}"
            if verdict.errors
            else "      (no errors recorded)"
        )
    lines.append("")
    lines.append("files:")
    lines.extend(f"  {name:<10} {path}" for name, path in demo.files.items())
    g, n = demo.files["graph"], demo.files["narration"]
    lines.append(f"re-check: verity verify {g} {n}")
    return "\n".join(lines)

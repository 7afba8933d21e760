"""Rendering the demo for a person: the passes, the shipped narration as prose, each
dropped claim with one reason, and what the four-gate ``paper`` profile would have
shipped, only when that differs from what ``strict`` ships.

:func:`verity.pipeline.run_demo` runs the demo; this module only turns its result into text.
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING, Any

from verity.core.report import ClaimVerdict
from verity.text.display import one_line

if TYPE_CHECKING:
    from verity.llm.repair import NarrationResult
    from verity.pipeline import DemoResult

__all__ = ["render_demo"]

_WIDTH = 88


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
    return f"{first.code}: {one_line(first.message, 110)}{tail}"


def _header(demo: DemoResult) -> list[str]:
    r = demo.result
    return [
        f"verity demo: profile {demo.profile}, goal {demo.goal} -> graph {r.graph_id} "
        f"({demo.nodes} nodes), variant {demo.variant}, gates {r.profile}",
        *(_pass_line(p) for p in r.passes),
        "",
    ]


def _shipped(r: NarrationResult) -> list[str]:
    shipped = r.final.shipped
    if not shipped:
        return ["Shipped narration (nothing verified, the refusal):", f"  {r.final.answer}"]
    prose = " ".join(" ".join(c.text.split()) for c in shipped)
    return [
        f"Shipped narration ({len(shipped)} verified claims):",
        *textwrap.wrap(prose, _WIDTH, initial_indent="  ", subsequent_indent="  "),
    ]


def _dropped(r: NarrationResult) -> list[str]:
    dropped = r.dropped()
    if not dropped:
        return ["", "Dropped claims: none."]
    lines = ["", f"Dropped claims ({len(dropped)}):"]
    for index, verdict, claim in dropped:
        text = claim.get("text", "") if isinstance(claim, dict) else claim
        where = f"pass {index} " if len(r.passes) > 1 else ""
        lines.append(f"  {where}{verdict.id} [{verdict.type or '?'}] {one_line(text, 90)}")
        lines.append(f"      {_reason(verdict)}")
    return lines


def _paper_only(demo: DemoResult) -> list[str]:
    if not demo.paper_only:
        return []
    r = demo.result
    by_id = {c.get("id"): c for c in r.passes[-1].claims if isinstance(c, dict)}
    lines = [
        "",
        f"The four-gate paper profile would have shipped {demo.paper_passed} claims of "
        f"the final narration, {len(demo.paper_only)} of them dropped by {r.profile}:",
    ]
    for claim_id in demo.paper_only:
        text = by_id.get(claim_id, {}).get("text", "")
        lines.append(f"  {claim_id} {one_line(text, 100)}")
    return lines


def _files(demo: DemoResult) -> list[str]:
    g, n = demo.files["graph"], demo.files["narration"]
    return [
        "",
        "files:",
        *(f"  {name:<10} {path}" for name, path in demo.files.items()),
        f"re-check: verity verify {g} {n}",
    ]


def render_demo(demo: DemoResult) -> str:
    """The demo's story: the passes, the shipped prose, dropped claims and why, files."""
    r = demo.result
    return "\n".join(
        [*_header(demo), *_shipped(r), *_dropped(r), *_paper_only(demo), *_files(demo)]
    )

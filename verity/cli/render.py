"""Rendering the demo for a person: the passes, the shipped narration (its headline on a
line of its own, then the rest as prose), each dropped claim with one reason, what the
four-gate ``paper`` profile would have shipped (only when that differs from what
``strict`` ships) and where the files went; :func:`render_demo_html`, the same as one
self-contained HTML page with each sentence's cited evidence beside it.

The shipped claims are shown as they were verified, in the report's reading order
(:func:`verity.core.verify.reading_order`); the headline is the first of them when it
narrates a node the graph marks ``headline``.

:func:`verity.pipeline.run_demo` runs the demo; this module only turns its result into text.
"""

from __future__ import annotations

import html
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from verity.core.claims import Claim
from verity.core.graph import EvidenceGraph, load_graph
from verity.core.report import ClaimVerdict
from verity.progress import pass_label
from verity.text.display import one_line
from verity.text.segment import join_sentences

if TYPE_CHECKING:
    from verity.llm.repair import NarrationResult
    from verity.pipeline import DemoResult

__all__ = ["headline_split", "render_demo", "render_demo_html"]

_WIDTH = 88


def _pass_line(p: Any) -> str:
    a = p.attempt
    what = pass_label(p.index)
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


def headline_split(
    graph: EvidenceGraph, shipped: Sequence[Claim]
) -> tuple[Claim | None, list[Claim]]:
    """The headline claim (the first shipped claim, when it narrates a headline node) and
    the rest, in order."""
    heads = graph.headline_ids()
    if shipped and shipped[0].cited_evidence_ids and shipped[0].cited_evidence_ids[0] in heads:
        return shipped[0], list(shipped[1:])
    return None, list(shipped)


def _shipped(r: NarrationResult, graph: EvidenceGraph) -> list[str]:
    shipped = r.final.shipped
    if not shipped:
        return ["Shipped narration (nothing verified, the refusal):", f"  {r.final.answer}"]
    head, rest = headline_split(graph, shipped)
    lines = [f"Shipped narration ({len(shipped)} verified claims):"]
    if head is not None:
        lines += ["", " ".join(head.text.split())]
    if rest:
        prose = join_sentences([" ".join(c.text.split()) for c in rest])
        wrapped = textwrap.wrap(prose, _WIDTH, initial_indent="  ", subsequent_indent="  ")
        lines += ["", *wrapped] if head is not None else wrapped
    return lines


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


def _files(demo: DemoResult, extra: dict[str, Path]) -> list[str]:
    g, n = demo.files["graph"], demo.files["narration"]
    return [
        "",
        "files:",
        *(f"  {name:<10} {path}" for name, path in {**demo.files, **extra}.items()),
        f"re-check: verity verify {g} {n}",
    ]


def render_demo(demo: DemoResult, *, html_file: Path | None = None) -> str:
    """The demo's story: the passes, the headline on its own line and the rest as prose,
    dropped claims and why, and where the files went (``html_file`` too, when written)."""
    r = demo.result
    graph = load_graph(demo.files["graph"])
    extra = {} if html_file is None else {"html": html_file}
    return "\n".join(
        [
            *_header(demo),
            *_shipped(r, graph),
            *_dropped(r),
            *_paper_only(demo),
            *_files(demo, extra),
        ]
    )


# --- the HTML report -------------------------------------------------------------------

_CSS = """
:root { color-scheme: light; }
body { margin: 0; background: #f4f5f7; color: #1d2330;
  font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
main { max-width: 1080px; margin: 0 auto; padding: 32px 24px 48px; }
.kicker { margin: 0; color: #5b6475; font-size: 14px; letter-spacing: .02em; }
h1 { margin: 8px 0 4px; font-size: 28px; line-height: 1.3; color: #0f3d2e; }
header p:last-child { margin: 0 0 24px; color: #5b6475; }
h2 { margin: 32px 0 12px; font-size: 18px; }
ol.claims { list-style: none; margin: 0; padding: 0; }
li.claim { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 16px;
  margin: 0 0 12px; padding: 16px; background: #fff; border: 1px solid #d8dce3;
  border-left: 6px solid #2f8f5b; border-radius: 6px; }
li.claim.headline { border-left-color: #0f3d2e; background: #eef7f1; }
li.claim.headline .sentence { font-size: 21px; font-weight: 600; color: #0f3d2e; }
.sentence { margin: 0; font-size: 17px; }
.evidence { margin: 0; padding-left: 16px; border-left: 1px dashed #c5cad3; font-size: 14px;
  color: #3a4252; }
.evidence h3 { margin: 0 0 4px; font-size: 12px; text-transform: uppercase; color: #6b7385; }
.evidence dl { margin: 0; }
.evidence dt { font-weight: 600; }
.evidence dd { margin: 0 0 8px; }
code { font: 13px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; color: #44506a; }
ul.dropped { margin: 0; padding: 0; list-style: none; }
ul.dropped li { margin: 0 0 8px; padding: 12px 16px; background: #fff; border: 1px solid #e3c9c9;
  border-left: 6px solid #b54a4a; border-radius: 6px; }
.reason { margin: 4px 0 0; color: #7a3b3b; font-size: 14px; }
.run { font-size: 14px; color: #3a4252; }
.run ul { padding-left: 20px; }
"""


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _evidence(graph: EvidenceGraph, claim: Claim) -> str:
    rows = []
    for node_id in claim.cited_evidence_ids:
        node = graph.nodes.get(node_id)
        if node is None:
            continue
        rows.append(
            f"<dt>{_e(node.type)} <code>{_e(node.id)}</code></dt>"
            f"<dd>{_e(graph.named(node.statement))}</dd>"
        )
    return f'<aside class="evidence"><h3>Evidence</h3><dl>{"".join(rows)}</dl></aside>'


def _claim_item(graph: EvidenceGraph, claim: Claim, headline: bool) -> str:
    cites = ", ".join(claim.cited_evidence_ids)
    kind = "claim headline" if headline else "claim"
    return (
        f'<li class="{kind}"><p class="sentence" title="{_e(claim.type)}: cites {_e(cites)}">'
        f"{_e(claim.text)}</p>{_evidence(graph, claim)}</li>"
    )


def _dropped_html(r: NarrationResult) -> str:
    dropped = r.dropped()
    if not dropped:
        return "<h2>Dropped claims</h2><p>None: every claim the narrator wrote was verified.</p>"
    items = []
    for index, verdict, claim in dropped:
        text = claim.get("text", "") if isinstance(claim, dict) else claim
        first = verdict.errors[0] if verdict.errors else None
        reason = (
            f"<code>{_e(first.code)}</code> {_e(first.message)}"
            if first is not None
            else "(no errors recorded)"
        )
        where = f"pass {index}, " if len(r.passes) > 1 else ""
        items.append(
            f'<li><p>{_e(text)}</p><p class="reason">{_e(where)}{_e(verdict.id)} '
            f"[{_e(verdict.type or '?')}]: {reason}</p></li>"
        )
    return f'<h2>Dropped claims ({len(dropped)})</h2><ul class="dropped">{"".join(items)}</ul>'


def render_demo_html(demo: DemoResult) -> str:
    """The demo as one self-contained HTML page (inline CSS, no script, no external
    resource): the headline, every shipped sentence with the evidence it cites beside it
    (and on hover, its claim type and cited ids), the dropped claims with their first
    reason, how the run went and where its files are. Every text is escaped."""
    r = demo.result
    graph = load_graph(demo.files["graph"])
    shipped = r.final.shipped
    head, rest = headline_split(graph, shipped)
    claims = "".join(
        _claim_item(graph, c, c is head) for c in ([head] if head is not None else []) + rest
    )
    answer = (
        f'<ol class="claims">{claims}</ol>'
        if shipped
        else f'<p class="sentence">{_e(r.final.answer)}</p><p>Nothing was verified.</p>'
    )
    count = f"{len(shipped)} verified claim{'s' if len(shipped) != 1 else ''}"
    passes = "".join(f"<li>{_e(_pass_line(p))}</li>" for p in r.passes)
    files = "".join(
        f"<li>{_e(name)}: <code>{_e(path)}</code></li>" for name, path in demo.files.items()
    )
    g, n = demo.files["graph"], demo.files["narration"]
    kicker = (
        f"verity demo · spending profile {demo.profile} · goal {demo.goal} · "
        f"variant {demo.variant} · gates {r.profile}"
    )
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_e(r.graph_id)}: verified answer</title><style>{_CSS}</style></head>"
        f'<body><main><header><p class="kicker">{_e(kicker)}</p>'
        f"<h1>The verified answer</h1><p>{_e(count)}, the headline first; the evidence each "
        "cites is beside it.</p></header>"
        f"<section>{answer}</section><section>{_dropped_html(r)}</section>"
        f'<section class="run"><h2>How it was checked</h2><ul>{passes}</ul>'
        f"<p>Graph <code>{_e(r.graph_id)}</code> ({demo.nodes} nodes). Re-check: "
        f"<code>verity verify {_e(g)} {_e(n)}</code></p><ul>{files}</ul></section>"
        "</main></body></html>\n"
    )

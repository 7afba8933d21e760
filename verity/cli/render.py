"""Rendering the demo for a person: the passes, the shipped narration (its headline on a
line of its own, then the rest as prose), each dropped claim with its first reason (a
long text cut so that what the reason names stays in view), what the four-gate ``paper``
profile would have shipped (only when that differs from what ``strict`` ships) and where
the files went; :func:`render_demo_html`, the same as one self-contained HTML page with
each sentence's cited evidence beside it, each dropped claim with every reason and what
it declares, and each repair linked to the claim it replaced (``Pass.replaces``).

The shipped claims are shown as they were verified, in the report's reading order
(:func:`verity.core.verify.reading_order`); the headline is the first of them when it
narrates a node the graph marks ``headline``.

:func:`verity.pipeline.run_demo` runs the demo; this module only turns its result into text.
"""

from __future__ import annotations

import html
import json
import textwrap
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from verity.core.claims import Claim
from verity.core.graph import EvidenceGraph, load_graph
from verity.core.report import ClaimVerdict, GateError
from verity.progress import pass_label
from verity.text.display import one_line, one_line_showing, reason_terms
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


#: A claim of one pass: (pass index, claim id).
_At = tuple[int, str]


def _replacements(r: NarrationResult) -> dict[_At, _At]:
    """Each repair and the claim of the pass before that it replaced (``Pass.replaces``)."""
    return {(p.index, new): (p.index - 1, old) for p in r.passes for new, old in p.replaces.items()}


def _dropped_text(claim: Any, verdict: ClaimVerdict) -> str:
    if isinstance(claim, dict):
        return str(claim.get("text", ""))
    return verdict.text or "" if claim is None else str(claim)


def _dropped(r: NarrationResult) -> list[str]:
    dropped = r.dropped()
    if not dropped:
        return ["", "Dropped claims: none."]
    replaced_by = {old: new for new, old in _replacements(r).items()}
    lines = ["", f"Dropped claims ({len(dropped)}):"]
    for index, verdict, claim in dropped:
        text = _dropped_text(claim, verdict)
        where = f"pass {index} " if len(r.passes) > 1 else ""
        shown = one_line_showing(text, 90, reason_terms(verdict.errors))
        lines.append(f"  {where}{verdict.id} [{verdict.type or '?'}] {shown}")
        lines.append(f"      {_reason(verdict)}")
        new = replaced_by.get((index, verdict.id))
        if new is not None:
            lines.append(f"      replaced at pass {new[0]} by {new[1]}")
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
ul.dropped > li { margin: 0 0 8px; padding: 12px 16px; background: #fff; border: 1px solid #e3c9c9;
  border-left: 6px solid #b54a4a; border-radius: 6px; }
.reason { margin: 4px 0 0; color: #7a3b3b; font-size: 14px; }
ul.reasons { margin: 4px 0 0; padding-left: 20px; color: #7a3b3b; font-size: 14px; }
dl.declared { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px;
  margin: 8px 0 0; font-size: 14px; color: #3a4252; }
dl.declared dd { margin: 0; }
.repair { margin: 6px 0 0; font-size: 14px; color: #3a4252; }
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


def _claim_item(graph: EvidenceGraph, claim: Claim, headline: bool, anchor: str, note: str) -> str:
    cites = ", ".join(claim.cited_evidence_ids)
    kind = "claim headline" if headline else "claim"
    sentence = (
        f'<p class="sentence" title="{_e(claim.type)}: cites {_e(cites)}">{_e(claim.text)}</p>'
    )
    said = f"<div>{sentence}{note}</div>" if note else sentence
    return (
        f'<li class="{kind}" id="{anchor}" data-claim="{_e(claim.id)}">{said}'
        f"{_evidence(graph, claim)}</li>"
    )


_K = TypeVar("_K")


@dataclass(frozen=True)
class _Links:
    """Where each claim is shown on the page and which repair replaced which claim."""

    dropped: dict[_At, str]
    shipped: dict[str, str]
    replaces: dict[_At, _At]
    replaced_by: dict[_At, _At]

    def target(self, at: _At) -> tuple[str, str] | None:
        """The anchor of claim ``at`` from its pass on, and what became of it there."""
        index, claim_id = at
        for (i, other), anchor in self.dropped.items():
            if other == claim_id and i >= index:
                return anchor, f"dropped at pass {i}"
        if claim_id in self.shipped:
            return self.shipped[claim_id], "verified and shipped"
        return None

    def note(self, at: _At) -> str:
        """The repair links of claim ``at``: what it replaced and what replaced it."""
        parts = []
        old = self.replaces.get(at)
        if old is not None:
            link = self._link(old)
            parts.append(f"Repair of {link}, dropped at pass {old[0]}.")
        new = self.replaced_by.get(at)
        if new is not None:
            found = self.target(new)
            fate = f" ({found[1]})" if found is not None else ""
            parts.append(f"Replaced at pass {new[0]} by {self._link(new)}{fate}.")
        return f'<p class="repair">{" ".join(parts)}</p>' if parts else ""

    def _link(self, at: _At) -> str:
        found = self.target(at)
        name = f"<code>{_e(at[1])}</code>"
        return name if found is None else f'<a href="#{found[0]}">{name}</a>'


def _links(r: NarrationResult, shown: Sequence[Claim]) -> _Links:
    replaces = _replacements(r)
    return _Links(
        dropped=_first_anchors(((i, v.id) for i, v, _ in r.dropped()), "dropped"),
        shipped=_first_anchors((c.id for c in shown), "shipped"),
        replaces=replaces,
        replaced_by={old: new for new, old in replaces.items()},
    )


def _first_anchors(keys: Iterable[_K], prefix: str) -> dict[_K, str]:
    """``prefix-N`` for the N-th key, the first one where a key repeats."""
    out: dict[_K, str] = {}
    for n, key in enumerate(keys):
        out.setdefault(key, f"{prefix}-{n}")
    return out


def _introduced(r: NarrationResult, claim_id: str) -> _At:
    """The pass that first stated the final claim ``claim_id``."""
    for p in r.passes:
        if claim_id in p.replacement_ids:
            return p.index, claim_id
    return 0, claim_id


def _value(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(_value(v) for v in value) or "none"
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return f"<code>{_e(text)}</code>"


def _error_item(error: GateError) -> str:
    extra = "".join(
        f"; {name}: {_value(value)}"
        for name, value in (("expected", error.expected), ("actual", error.actual))
        if value is not None
    )
    return (
        f"<li><code>{_e(error.code)}</code> (gate {_e(error.gate)}): {_e(error.message)}"
        f"{extra}</li>"
    )


def _declared(claim: Any) -> str:
    """What a dropped claim declares: its cited ids, entities and numbers as written."""
    if not isinstance(claim, dict):
        return ""
    rows = "".join(
        f"<dt>{label}</dt><dd>{_value(claim[key]) if key in claim else '(missing)'}</dd>"
        for key, label in _DECLARED
    )
    return f'<dl class="declared">{rows}</dl>'


_DECLARED = (
    ("cited_evidence_ids", "cites"),
    ("entities", "declared entities"),
    ("numbers", "declared numbers"),
)


def _dropped_html(r: NarrationResult, links: _Links) -> str:
    dropped = r.dropped()
    if not dropped:
        return "<h2>Dropped claims</h2><p>None: every claim the narrator wrote was verified.</p>"
    items = []
    for n, (index, verdict, claim) in enumerate(dropped):
        anchor = f"dropped-{n}"
        where = f"pass {index}, " if len(r.passes) > 1 else ""
        count = len(verdict.errors)
        reasons = (
            f'<ul class="reasons">{"".join(_error_item(e) for e in verdict.errors)}</ul>'
            if verdict.errors
            else '<p class="reason">(no errors recorded)</p>'
        )
        items.append(
            f'<li id="{anchor}" data-claim="{_e(verdict.id)}" data-pass="{index}">'
            f"<p>{_e(_dropped_text(claim, verdict))}</p>"
            f'<p class="reason">{_e(where)}{_e(verdict.id)} [{_e(verdict.type or "?")}]: '
            f"{count} reason{'s' if count != 1 else ''}</p>{reasons}{_declared(claim)}"
            f"{links.note((index, verdict.id))}</li>"
        )
    return f'<h2>Dropped claims ({len(dropped)})</h2><ul class="dropped">{"".join(items)}</ul>'


def render_demo_html(demo: DemoResult) -> str:
    """The demo as one self-contained HTML page (inline CSS, no script, no external
    resource): the headline, every shipped sentence with the evidence it cites beside it
    (and on hover, its claim type and cited ids), the dropped claims with every reason
    (gate, code, message, expected and actual) and what each declares (cited ids,
    entities, numbers), each repair linked both ways to the claim it replaced, how the run
    went and where its files are. Every text is escaped."""
    r = demo.result
    graph = load_graph(demo.files["graph"])
    shipped = r.final.shipped
    head, rest = headline_split(graph, shipped)
    shown = ([head] if head is not None else []) + rest
    links = _links(r, shown)
    claims = "".join(
        _claim_item(graph, c, c is head, f"shipped-{n}", links.note(_introduced(r, c.id)))
        for n, c in enumerate(shown)
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
        f"<section>{answer}</section><section>{_dropped_html(r, links)}</section>"
        f'<section class="run"><h2>How it was checked</h2><ul>{passes}</ul>'
        f"<p>Graph <code>{_e(r.graph_id)}</code> ({demo.nodes} nodes). Re-check: "
        f"<code>verity verify {_e(g)} {_e(n)}</code></p><ul>{files}</ul></section>"
        "</main></body></html>\n"
    )

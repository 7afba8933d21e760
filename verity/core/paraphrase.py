"""Whether a graph can grant paraphrase: the warning ``verify``, ``narrate`` and
``check-answer --graph`` give when the nodes a text rests on declare no variation.

Under ``strict`` a claim sentence must be a sentence its cited nodes declare: the
statement, the statement with an optional span cut out, or a variant of its template
(:mod:`verity.text.variation`). A node without optional spans and without a template that
declares variants, coordinable slots or set slots declares its statement alone, so every
paraphrase of it is refused; when every node a narration cites (for a free-text answer,
every node of the graph) is like that, the refusals say nothing about the writer. The
warning says so once, with how to declare variation.
"""

from __future__ import annotations

from collections.abc import Iterable

from verity.core.graph import EvidenceGraph
from verity.core.report import ReportWarning

__all__ = [
    "NO_DECLARED_VARIATION",
    "cited_ids",
    "declares_variation",
    "paraphrase_warnings",
    "text_check_applies",
]

#: The warning's code.
NO_DECLARED_VARIATION = "no_declared_variation"


def text_check_applies(profile: object) -> bool:
    """True when ``profile`` (a name or a :class:`verity.core.profiles.Profile`) checks
    the text of a claim against its nodes' declared sentences: ``strict`` and profiles
    extending it."""
    return (profile if isinstance(profile, str) else getattr(profile, "base", None)) == "strict"


def declares_variation(graph: EvidenceGraph, node_ids: Iterable[str] | None = None) -> bool:
    """True when one of the nodes (all of the graph's when ``node_ids`` is None; ids the
    graph lacks are skipped) declares a sentence besides its statement: an optional span,
    or a template with variants, a coordinable slot or a set slot."""
    models = {t.id: t for t in graph.model.templates}
    wanted = None if node_ids is None else set(node_ids)
    for node in graph.model.nodes:
        if wanted is not None and node.id not in wanted:
            continue
        if node.optional_spans:
            return True
        model = None if node.template is None else models.get(node.template)
        if model is not None and (
            model.variants or model.coordinable or "set" in model.slot_kinds.values()
        ):
            return True
    return False


def paraphrase_warnings(
    graph: EvidenceGraph, node_ids: Iterable[str] | None = None, *, what: str = "the cited nodes"
) -> list[ReportWarning]:
    """``[]``, or the one :data:`NO_DECLARED_VARIATION` warning when the nodes (all of the
    graph's when ``node_ids`` is None) that a text rests on declare no variation. Nodes
    cited but not in the graph are left out; when none is left there is nothing to say."""
    ids = None if node_ids is None else [i for i in node_ids if i in graph.nodes]
    if ids is not None and not ids:
        return []
    if declares_variation(graph, ids):
        return []
    message = (
        f"{what} of graph {graph.graph_id!r} declare no variation (no template variants, "
        "optional spans or coordinable slots): strict accepts their statements word for "
        "word and refuses every paraphrase"
    )
    return [ReportWarning(code=NO_DECLARED_VARIATION, message=message)]


def cited_ids(narrations: Iterable[object]) -> list[str]:
    """The node ids the claims of narration documents cite, in order, once each (anything
    that is not a claim's list of string ids is skipped: the gates report it)."""
    out: dict[str, None] = {}
    for doc in narrations:
        claims = doc.get("claims") if isinstance(doc, dict) else None
        for claim in claims if isinstance(claims, list) else ():
            cited = claim.get("cited_evidence_ids") if isinstance(claim, dict) else None
            for node_id in cited if isinstance(cited, list) else ():
                if isinstance(node_id, str):
                    out.setdefault(node_id, None)
    return list(out)

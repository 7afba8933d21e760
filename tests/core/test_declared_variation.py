"""Soundness of declared variation (strict v4), held exhaustively over the checked-in graphs,
the SQL sample and the new backends' graphs (the two optimization examples, a transportation
LP with its reduced costs and slack rows summarised, the SQL specs on
penguins- and flights-shaped data): every single-token and every contiguous deletion of a
statement that is not a declared optional part is refused, and a coordination over nodes
that differ in more than one slot is refused."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations

import pytest

from tests.helpers import ROOT, SharedGraphs
from verity import EvidenceGraph
from verity.text.variation import sentence_key, support_sentence

CARD = sorted((ROOT / "evidence_graphs" / "card_rewards").glob("*.json"))


#: The new backends' graphs: the optimization examples, the linking-row models, a
#: transportation model at a small detail bound and the SQL real-data specs.
NEW_BACKENDS = [
    "lp/production_plan",
    "lp/staff_schedule",
    "lp/depots",
    "lp/staffing",
    "lp/transport_brief",
    "sql/penguins",
    "sql/flights",
]
GRAPHS = [p.name for p in CARD] + ["sql/sample", *NEW_BACKENDS]


def _optional_keys(graph: EvidenceGraph, node_id: str) -> tuple[set[tuple[str, ...]], set]:
    """(keys of the statement with optional spans cut, token runs of template choices),
    computed from the graph data by plain string operations."""
    node = graph.nodes[node_id]
    cuts: set[tuple[str, ...]] = set()
    spans = node.optional_spans
    for mask in range(1, 1 << len(spans)):
        text = node.statement
        for i, span in enumerate(spans):
            if mask >> i & 1:
                text = text.replace(span, " ", 1)
        cuts.add(sentence_key(text, graph.matcher))
    parts: set[tuple[str, ...]] = set()
    if node.template is not None:
        for pattern in graph.templates[node.template][1:]:
            for text in pattern.optional_texts(node.slots, every=True):
                parts.add(sentence_key(text, graph.matcher))
    return cuts, parts


def _deletions(tokens: tuple[str, ...]) -> Iterator[tuple[int, int]]:
    for i in range(len(tokens)):
        for j in range(i + 1, len(tokens) + 1):
            if (i, j) != (0, len(tokens)):
                yield i, j


def undeclared_deletions_checked(graph: EvidenceGraph) -> int:
    """Try every deletion of every node's canonical sentence; assert each one the node
    declares is an optional cut or lies inside a declared alternative; return how many
    deletions were tried."""
    checked = 0
    for node_id in graph.nodes:
        declared = graph.declared(node_id)
        canonical = declared.canonical
        cuts, parts = _optional_keys(graph, node_id)
        for i, j in _deletions(canonical):
            shorter = canonical[:i] + canonical[j:]
            checked += 1
            if declared.declares(shorter):
                run = canonical[i:j]
                inside = any(
                    p[k : k + len(run)] == run for p in parts for k in range(len(p) - len(run) + 1)
                )
                # declared: an optional cut, or a shorter declared alternative of a choice
                assert shorter in cuts or inside, (node_id, run)
    return checked


@pytest.mark.parametrize("name", GRAPHS)
def test_every_undeclared_deletion_is_refused(name: str, graphs: SharedGraphs) -> None:
    assert undeclared_deletions_checked(graphs.named(name)) > 0


def _render(graph: EvidenceGraph, node_id: str, slot: str, value: str) -> str:
    node = graph.nodes[node_id]
    assert node.template is not None
    canonical = graph.templates[node.template][0]
    return next(canonical.renderings({**node.slots, slot: value}))


@pytest.mark.parametrize("name", GRAPHS[:150:10] + ["sql/sample", *NEW_BACKENDS])
def test_coordination_over_nodes_that_differ_twice_is_refused(
    name: str, graphs: SharedGraphs
) -> None:
    graph = graphs.named(name)
    by_template: dict[str, list[str]] = {}
    for node in graph.model.nodes:
        if node.template is not None:
            by_template.setdefault(node.template, []).append(node.id)
    refused = accepted = 0
    for ids in by_template.values():
        for a, b in combinations(ids, 2):
            slots_a, slots_b = graph.nodes[a].slots, graph.nodes[b].slots
            differ = [s for s in slots_a if slots_a[s] != slots_b[s]]
            cited = [(a, graph.declared(a)), (b, graph.declared(b))]
            for slot in differ:
                text = _render(graph, a, slot, f"{slots_a[slot]} and {slots_b[slot]}")
                verdict = support_sentence(sentence_key(text, graph.matcher), cited, graph.matcher)
                one_slot = len(differ) == 1 and slot in graph.declared(a).coordinable
                if one_slot:
                    accepted += 1
                    assert verdict.supporters, (a, b, text)
                else:
                    refused += 1
                    assert not verdict.supporters, (a, b, text)
    assert refused > 0

"""Exhaustive scope test (v5): a scope one fact states never spreads to a fact whose cited
node lacks it.

For every ordered pair of templated nodes (A, B) of each graph listed in
``tests/fixtures/scopes/exhaustive.json`` where A has a scope kind B lacks, every declared
rendering of A (canonical and the first rendering of each variant) is joined to every
declared rendering of B at ``, and`` and ``;`` in both orders; each such sentence, read over
the cited pair, must be refused, while each rendering alone is supported. Where A states
its scope as a phrase of its own (before the first comma, opening with a plain word, or at
the end), the two-sentence sequence ``A. B.`` must be refused too.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.helpers import FIXTURES, SharedGraphs, load_json
from verity.core.gates import read_sentences
from verity.core.graph import EvidenceGraph

SPEC: dict[str, Any] = load_json(FIXTURES / "scopes" / "exhaustive.json")


def _graph(name: str) -> EvidenceGraph:
    kind, _, rest = name.partition("/")
    if kind == "fixture":
        return SharedGraphs.fixture(rest)
    if kind == "card":
        return SharedGraphs.card(rest)
    return SharedGraphs.named(name)


def _renderings(graph: EvidenceGraph, node_id: str) -> list[str]:
    node = graph.nodes[node_id]
    assert node.template is not None
    texts = [node.statement]
    for pattern in graph.templates[node.template][1:]:
        texts.append(next(pattern.renderings(node.slots)))
    return list(dict.fromkeys(texts))[: SPEC["max_renderings"]]


def _scope(graph: EvidenceGraph, node_id: str) -> dict[str, tuple[str, ...]]:
    return graph.declared(node_id).scope


def _phrased(text: str, values: tuple[str, ...], graph: EvidenceGraph, node_id: str) -> bool:
    """A stands its scope in a phrase of its own: a value before the first comma, the
    words before it opening with no slot value of the node; or a value ending it."""
    body = text.rstrip(".")
    head = body.split(", ", 1)[0] if ", " in body else None  # not the comma of $1,700
    others = [v for v in graph.nodes[node_id].slots.values() if v not in values]
    if (
        head is not None
        and any(v in head for v in values)
        and not any(head.lower().startswith(o.lower()) for o in others)
    ):
        return True
    return any(body.endswith(v) for v in values)


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:] if text[:1].isupper() and not text[1:2].isupper() else text


def _cases() -> Iterator[Any]:
    for name in SPEC["graphs"]:
        yield pytest.param(name, id=name)


def _sequences(graph: EvidenceGraph, a: str, b: str) -> Iterator[tuple[str, list[str]]]:
    """(label, sentences) of every sequence that carries A's scope into B."""
    lacking = [k for k in _scope(graph, a) if k not in _scope(graph, b)]
    for text_a in _renderings(graph, a):
        for text_b in _renderings(graph, b):
            bare_a, bare_b = text_a.rstrip("."), text_b.rstrip(".")
            yield "a, and b", [f"{bare_a}, and {_lower_first(text_b)}"]
            yield "a; b", [f"{bare_a}; {_lower_first(text_b)}"]
            yield "b, and a", [f"{bare_b}, and {_lower_first(text_a)}"]
            yield "b; a", [f"{bare_b}; {_lower_first(text_a)}"]
            if any(_phrased(text_a, _scope(graph, a)[k], graph, a) for k in lacking):
                yield "a. b.", [text_a, text_b]


def _supported(graph: EvidenceGraph, sentences: list[str], cited: list[str]) -> bool:
    return all(v.supporters for v in read_sentences(sentences, cited, graph))


@pytest.mark.parametrize("name", list(_cases()))
def test_no_sequence_carries_a_scope_the_cited_node_lacks(name: str) -> None:
    graph = _graph(name)
    templated = [i for i, n in graph.nodes.items() if n.template is not None]
    pairs = [
        (a, b)
        for a in templated
        for b in templated
        if a != b and any(k not in _scope(graph, b) for k in _scope(graph, a))
    ]
    assert pairs, f"{name}: no pair of nodes differs in a scope"
    checked = 0
    escaped: list[str] = []
    for a, b in pairs:
        for text in (*_renderings(graph, a), *_renderings(graph, b)):
            assert _supported(graph, [text], [a, b]), f"{name}: {text!r} alone is refused"
        for label, sentences in _sequences(graph, a, b):
            checked += 1
            if _supported(graph, sentences, [a, b]):
                escaped.append(f"{a} / {b} ({label}): {' '.join(sentences)}")
    assert not escaped, f"{len(escaped)} of {checked} escaped:\n" + "\n".join(escaped[:10])
    assert checked >= len(pairs) * 4


def test_the_listed_graphs_hold_every_scope_kind_the_backends_use() -> None:
    kinds = set()
    for name in SPEC["graphs"]:
        graph = _graph(name)
        for node_id in graph.nodes:
            kinds.update(graph.declared(node_id).scope)
    assert kinds >= {"period", "place", "group", "condition"}


def test_a_phrased_scope_is_told_from_one_inside_a_clause() -> None:
    graph = _graph("fixture/scoped_sales.json")
    assert _phrased("In Q4, total revenue was $810.", ("Q4",), graph, "rev-q4")
    assert _phrased("Total revenue was $810 in Q4.", ("Q4",), graph, "rev-q4")
    assert not _phrased("Total revenue in Q4 was $810.", ("Q4",), graph, "rev-q4")

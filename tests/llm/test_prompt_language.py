"""The grounded prompt teaches the declared language: display names, the sentences each
listed node declares (statement, optional parts, its template's forms) and the budget."""

from __future__ import annotations

import json
from functools import cache
from itertools import islice
from typing import Any

import pytest

from tests.helpers import EXAMPLES, FIXTURES, ROOT, load_json
from verity import EvidenceGraph, load_graph
from verity.core.paraphrase import declares_variation
from verity.core.verify import verify
from verity.llm.menu import _mentioned, _stated_numbers, menu_items
from verity.llm.prompts import LANGUAGE_BUDGET_CHARS, build_prompt
from verity.text.variation import parse_pattern

CASES = load_json(FIXTURES / "prompts" / "language.json")
PER_VARIANT: int = CASES["renderings_per_variant"]


@cache
def _graph(name: str) -> EvidenceGraph:
    case = next(c for c in CASES["graphs"] if c["name"] == name)
    if case["source"] == "file":
        return load_graph(ROOT / case["path"])
    if case["source"] == "sql_sample":
        from verity.backends.sql import graph_from_sample

        return graph_from_sample()
    from verity.backends.pulp import graph_from_file

    return graph_from_file(EXAMPLES / case["model"], EXAMPLES / case["labels"])


def _data(user: str) -> Any:
    start = user.index("<<<DATA\n") + len("<<<DATA\n")
    return json.loads(user[start : user.index("\nDATA>>>")])


GRAPH_CASES = [pytest.param(c, id=c["name"]) for c in CASES["graphs"]]


@pytest.mark.parametrize("case", GRAPH_CASES)
def test_statements_and_entities_read_by_display_name(case: dict[str, Any]) -> None:
    graph = _graph(case["name"])
    data = _data(build_prompt(graph, "grounded").user)
    listed = {nid: text for group in data["nodes"].values() for nid, text in group.items()}
    assert listed == {nid: graph.named(graph.nodes[nid].statement) for nid in listed}
    assert data["entities"] == {
        e.id: list(dict.fromkeys([e.display_name, *e.aliases])) for e in graph.model.entities
    }
    written = " ".join([*listed.values(), data["example_claim"]["text"]])
    for entity_id in case["ids_never_written"]:
        assert entity_id not in written
        assert graph.display_name(entity_id) in written


@pytest.mark.parametrize("case", GRAPH_CASES)
def test_forms_and_optional_parts_are_those_of_the_listed_nodes(case: dict[str, Any]) -> None:
    graph = _graph(case["name"])
    prompt = build_prompt(graph, "grounded")
    data = _data(prompt.user)
    listed = [graph.nodes[nid] for nid in prompt.listed_node_ids]
    models = {t.id: t for t in graph.model.templates}
    expected: dict[str, Any] = {}
    for node in listed:
        if node.template is None:
            continue
        model = models[node.template]
        canonical, *variants = graph.templates[node.template]
        sets = [s for s, kind in model.slot_kinds.items() if kind == "set"]
        if not (variants or model.coordinable or sets):
            continue
        entry = expected.setdefault(node.template, {"nodes": [], "reads": canonical.compact()})
        entry["nodes"].append(node.id)
        if variants:
            entry["or"] = [parse_pattern(v).compact() for v in model.variants]
        if model.coordinable:
            entry["join"] = list(model.coordinable)
        if sets:
            entry["any_order"] = sets
    optional = {
        n.id: [graph.named(x) for x in n.optional_spans] for n in listed if n.optional_spans
    }
    forms = data.get("forms", {})
    # Variants are listed in order, the last ones left out only to keep the budget.
    full = {tid: entry.pop("or", []) for tid, entry in expected.items()}
    given = {tid: entry.pop("or", []) for tid, entry in forms.items()}
    assert forms == expected
    assert all(given[tid] == full[tid][: len(given[tid])] for tid in full)
    size = sum(len(json.dumps(v, ensure_ascii=False)) for v in given.values())
    assert size <= LANGUAGE_BUDGET_CHARS
    if given != full:  # something was left out: one more variant would not have fit
        assert (
            size + min(len(full[t][len(given[t])]) for t in full if len(given[t]) < len(full[t]))
            > LANGUAGE_BUDGET_CHARS - 200
        )
    assert data.get("optional", {}) == optional
    teaches = bool(expected or optional)
    assert teaches == case["declares_variation"] == declares_variation(graph)
    assert ('DATA "forms"' in prompt.user) == teaches
    # Without the language, the prompt lists the statements only.
    bare = build_prompt(graph, "grounded", language=False)
    assert "forms" not in _data(bare.user) and "optional" not in _data(bare.user)
    assert len(bare.user) <= len(prompt.user)
    assert (bare.user == prompt.user) == (not teaches)


def _taught(graph: EvidenceGraph) -> list[tuple[str, str]]:
    """(node id, sentence) for the first renderings of every form the prompt shows, with
    the node's slots written by display name."""
    prompt = build_prompt(graph, "grounded")
    out: list[tuple[str, str]] = []
    for nid in prompt.listed_node_ids:
        node = graph.nodes[nid]
        if node.template is None:
            continue
        slots = {k: graph.named(v) for k, v in node.slots.items()}
        for pattern in graph.templates[node.template][1:]:
            out.extend((nid, text) for text in islice(pattern.renderings(slots), PER_VARIANT))
        out.extend((nid, graph.named(cut)) for cut in graph.declared(nid).cuts())
    return list(dict.fromkeys(out))


@pytest.mark.parametrize("case", GRAPH_CASES)
def test_every_sentence_the_prompt_teaches_verifies(case: dict[str, Any]) -> None:
    graph = _graph(case["name"])
    items = {item.node_id: item for item in reversed(menu_items(graph))}
    taught = _taught(graph)
    assert bool(taught) == case["declares_variation"]
    failed = []
    for nid, text in taught:
        if nid not in items:  # a node no claim type narrates
            continue
        claim = items[nid].claim()
        claim.update(
            id="c1",
            text=text,
            entities=list(_mentioned(graph, text)),
            numbers=list(_stated_numbers(graph, graph.nodes[nid], text)),
        )
        # One claim a narration: two renderings may read as the same claim.
        report = verify(graph, {"graph_id": graph.graph_id, "claims": [claim]}, "strict")
        if not report.summary.all_claims_verified:
            failed.append((text, [e.message for e in report.claims[0].errors]))
    assert not failed, failed[:3]


@pytest.mark.parametrize("case", CASES["budgets"], ids=lambda c: f"max_nodes={c['max_nodes']}")
def test_the_budget_keeps_the_headline_then_the_most_salient(case: dict[str, Any]) -> None:
    graph = load_graph(ROOT / case["path"])
    prompt = build_prompt(graph, "grounded", max_nodes=case["max_nodes"])
    order = sorted(
        graph.model.nodes, key=lambda n: (not n.headline, -(n.salience or 0.0))
    )  # stable: file order breaks ties
    wanted = {n.id for n in order[: case["max_nodes"]]}
    assert set(prompt.listed_node_ids) == wanted
    assert list(prompt.listed_node_ids) == [n.id for n in graph.model.nodes if n.id in wanted]
    forms = _data(prompt.user).get("forms", {})
    assert {nid for entry in forms.values() for nid in entry["nodes"]} <= wanted
    assert len(prompt.user) < len(build_prompt(graph, "grounded").user)


@pytest.mark.parametrize("case", CASES["compact"], ids=lambda c: c["expected"][:40])
def test_a_pattern_reads_compactly(case: dict[str, Any]) -> None:
    assert parse_pattern(case["source"]).compact(case["slots"]) == case["expected"]

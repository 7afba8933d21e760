"""The claim menu of the extractive variant: every item is verified by construction.

The guarantee is tested, not assumed: every menu item of every checked-in graph (the 150
card-rewards graphs and the SQL sample graph), of freshly solved graphs that carry the
declared ``narrates`` mapping, of graphs with required spans (sub-statements), and of
generated graphs passes ``strict`` and ``paper``.
"""

from __future__ import annotations

import copy
import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given

from tests.helpers import FIXTURES, ROOT, SharedGraphs, load_json
from tests.robustness.strategies import ROBUST, graph_dicts
from verity import EvidenceGraph, GraphError, InputError, load_graph, verify
from verity.llm.menu import (
    PLAN_CLAIMS,
    MenuItem,
    allowed_items,
    choice_items,
    menu_facts,
    menu_items,
    menu_schema,
    plan_type,
    remaining_items,
)
from verity.llm.prompts import build_prompt, menu_step_prompt
from verity.llm.schema import CLAIM_OUTPUT_FIELDS

CARD_GRAPHS = sorted((ROOT / "evidence_graphs" / "card_rewards").glob("*.json"))


def _whole(graph: EvidenceGraph, item: MenuItem) -> bool:
    """The item states its node's whole statement (written with display names)."""
    return item.text == graph.named(graph.nodes[item.node_id].statement)


def _narration(graph: EvidenceGraph, items: list[MenuItem]) -> dict[str, Any]:
    return {
        "format": "verity.narration/1",
        "graph_id": graph.graph_id,
        "claims": [{"id": f"c{i}", **item.claim()} for i, item in enumerate(items, start=1)],
    }


def _failures(graph: EvidenceGraph, items: list[MenuItem]) -> list[tuple[str, Any, list[str]]]:
    """(profile, claim, error codes) of every item that a profile rejects."""
    out: list[tuple[str, Any, list[str]]] = []
    narration = _narration(graph, items)
    for profile in ("strict", "paper"):
        report = verify(graph, narration, profile)
        out.extend(
            (profile, narration["claims"][v.index], [e.code for e in v.errors])
            for v in report.claims
            if not v.passed
        )
    return out


@cache
def _solved(profile: int, goal: str) -> dict[str, Any]:
    from verity.backends.card_rewards import optimize

    return optimize(profile, goal)


def test_the_150_checked_in_graphs_are_all_there() -> None:
    assert len(CARD_GRAPHS) == 150


@pytest.mark.parametrize("path", CARD_GRAPHS, ids=[p.stem for p in CARD_GRAPHS])
def test_every_menu_item_of_every_card_rewards_graph_passes_strict_and_paper(
    path: Path, graphs: SharedGraphs
) -> None:
    graph = graphs.card(path.name)
    items = menu_items(graph)
    assert items
    assert _failures(graph, items) == []


def test_every_menu_item_of_the_sql_sample_graph_passes_strict_and_paper() -> None:
    from verity.backends.sql.query import graph_from_sample

    graph = graph_from_sample()
    items = menu_items(graph)
    assert len(menu_facts(items)) >= 5
    assert _failures(graph, items) == []


@pytest.mark.parametrize("goal", ["max_value", "no_fee", "two_cards"])
def test_solved_graphs_narrate_every_node_once_under_the_declared_mapping(goal: str) -> None:
    graph = load_graph(_solved(7, goal))
    items = menu_items(graph)
    assert _failures(graph, items) == []
    # the declared mapping: each node type is narrated by exactly one claim type here
    types = {(i.claim_type, graph.nodes[i.node_id].type) for i in items}
    assert ("ALLOCATION", "OBJECTIVE") in types  # the objective has a claim type now
    assert ("ALLOCATION", "ALLOCATION_SEGMENT") in types
    assert {t for c, t in types if c == "THRESHOLD"} <= {"THRESHOLD"}
    assert [i.node_id for i in items if _whole(graph, i)] == list(
        dict.fromkeys(i.node_id for i in items)
    )
    assert sorted(menu_facts(items)) == sorted(graph.nodes)


def test_menu_items_are_the_statements_with_their_mentions_and_companions() -> None:
    graph = load_graph(_solved(7, "max_value"))
    for item in menu_items(graph):
        node = graph.nodes[item.node_id]
        if not _whole(graph, item):  # a declared cut: optional spans dropped
            assert node.optional_spans
            assert item.text in map(graph.named, graph.declared(node.id).cuts())
            assert all(graph.named(span) in item.text for span in node.required_spans)
        assert item.cited_evidence_ids[0] == node.id
        assert set(item.numbers) <= set(node.numbers)
        mentioned = {m.entity_id for m in graph.matcher.find(item.text.casefold())}
        assert set(item.entities) <= mentioned | set(node.entities)
        rule = graph.rules[item.claim_type]
        narrated = rule.narrated_types()
        assert narrated is None or node.type in narrated
        if item.claim_type == "CAP_SWITCH":  # the cap hit plus the segment it moves spend to
            cap, segment = item.cited_evidence_ids
            assert graph.nodes[segment].type == "ALLOCATION_SEGMENT"
            linked = {(e.source, e.target) for e in graph.model.edges}
            assert (cap, segment) in linked or (segment, cap) in linked
        assert tuple(item.claim()) == CLAIM_OUTPUT_FIELDS


def test_menu_is_deterministic() -> None:
    graph = load_graph(CARD_GRAPHS[0])
    assert menu_items(graph) == menu_items(load_graph(CARD_GRAPHS[0]))
    assert build_prompt(graph, "extractive").prompt_hash == (
        build_prompt(load_graph(CARD_GRAPHS[0]), "extractive").prompt_hash
    )


def test_sub_statements_are_the_declared_cuts_and_pass() -> None:
    graph = load_graph(_solved(7, "max_value"))
    items = menu_items(graph)
    assert _failures(graph, items) == []
    subs = [i for i in items if not _whole(graph, i)]
    assert subs, "a node with optional spans offers its shorter sub-statements"
    for item in subs:
        node = graph.nodes[item.node_id]
        assert item.text in map(graph.named, graph.declared(node.id).cuts())
        assert all(graph.named(span) in item.text for span in node.required_spans)
        assert len(item.text) < len(graph.named(node.statement)) and item.text.endswith(".")
        assert item.numbers == tuple(x for x in node.numbers if x in item.text)
    tied = {n.id for n in graph.model.nodes if "tied with" in n.statement}
    assert tied and not tied & {i.node_id for i in subs}  # their tie clauses stay
    assert menu_items(graph, substatements=False) == [i for i in items if _whole(graph, i)]


def test_no_sub_statements_without_optional_spans() -> None:
    data = copy.deepcopy(_solved(7, "max_value"))
    for node in data["nodes"]:
        node.pop("optional_spans", None)
    graph = load_graph(data)
    assert all(_whole(graph, i) for i in menu_items(graph))


def test_remaining_items_drop_every_item_of_a_narrated_node() -> None:
    data = _solved(7, "max_value")
    first = next(
        n for n in data["nodes"] if n.get("optional_spans") and n["type"] == "WINNER_BY_CATEGORY"
    )
    graph = load_graph(data)
    items = menu_items(graph)
    of_first = [i for i in items if i.node_id == first["id"]]
    assert len(of_first) == 2  # the statement and its first clause
    left = remaining_items(items, [of_first[1].claim()])
    assert first["id"] not in {i.node_id for i in left}
    assert len(left) == len(items) - 2
    # a claim that states an item's text drops it even if it cites something else
    other = items[-1]
    by_text = remaining_items(items, [{"type": "X", "cited_evidence_ids": [], "text": other.text}])
    assert other not in by_text
    assert remaining_items(items, ["not a claim", {"cited_evidence_ids": "x"}]) == items


def test_menu_schema_and_step_prompts() -> None:
    graph = load_graph(_solved(7, "max_value"))
    prompt = build_prompt(graph, "extractive")
    assert prompt.menu and prompt.max_claims == 5
    assert prompt.json_schema == menu_schema(prompt.menu, 5)
    enum = prompt.json_schema["properties"]["claims"]["items"]["enum"]
    assert enum == [i.claim() for i in prompt.menu]
    grounded = build_prompt(graph, "grounded")
    assert (prompt.system, prompt.user) == (grounded.system, grounded.user)  # same prompt text
    first = menu_step_prompt(prompt, [])
    assert first.messages() == prompt.messages() and first.max_claims == 1 and not first.menu
    heads = [i for i in prompt.menu if i.headline]
    # the first step offers the headline items only: the plan, whole or cut
    assert first.json_schema["properties"]["claims"]["items"]["enum"] == [i.claim() for i in heads]
    assert {i.node_id for i in heads} == {"objective"} and len(heads) == 2
    chosen = [heads[0].claim()]
    second = menu_step_prompt(prompt, chosen)
    assert second.messages()[:2] == prompt.messages()  # the long prefix is shared
    assert json.loads(second.messages()[2]["content"]) == {"claims": chosen}
    offered = second.json_schema["properties"]["claims"]["items"]["enum"]
    # then the plan: every item of the plan's type (which card takes which category)
    assert offered == [i.claim() for i in prompt.menu if i.node_type == "ALLOCATION_SEGMENT"]
    assert second.json_schema["properties"]["claims"]["maxItems"] == 1


def test_extractive_prompt_caps_claims_at_the_facts_on_the_menu() -> None:
    data = _solved(7, "max_value")
    small = copy.deepcopy(data)
    small["nodes"] = [n for n in small["nodes"] if n["type"] == "FEE_BREAK_EVEN"][:1] or [
        small["nodes"][0]
    ]
    small["edges"] = []
    graph = load_graph(small)
    prompt = build_prompt(graph, "extractive")
    assert prompt.max_claims == len(menu_facts(prompt.menu)) == 1


@ROBUST
@given(graph_dicts())
def test_menu_items_of_generated_graphs_pass_strict_and_paper(data: dict[str, Any]) -> None:
    try:
        graph = load_graph(data)
    except GraphError:
        assume(False)
        return
    items = menu_items(graph)
    assert _failures(graph, items) == []
    assert len(set(items)) == len(items)
    for item in items:
        assert item.node_id in graph.nodes and item.cited_evidence_ids[0] == item.node_id


@pytest.mark.parametrize("path", CARD_GRAPHS, ids=[p.stem for p in CARD_GRAPHS])
def test_menu_texts_name_entities_by_display_name_and_read_as_the_statements(
    path: Path, graphs: SharedGraphs
) -> None:
    """Every item is written with display names (no id of a named entity is left), and
    reads, for the gates, as the sentence it was built from."""
    from verity.text.variation import sentence_key

    graph = graphs.card(path.name)
    named = {e.id for e in graph.model.entities if e.name not in (None, e.id)}
    for item in menu_items(graph):
        for m in graph.matcher.mentions(item.text):
            assert m.entity_id not in named or m.raw != m.entity_id, item.text
        node = graph.nodes[item.node_id]
        plain = [t for t in [node.statement, *graph.declared(node.id).cuts()]]
        assert item.text in [graph.named(t) for t in plain]
        source = plain[[graph.named(t) for t in plain].index(item.text)]
        assert sentence_key(item.text, graph.matcher) == sentence_key(source, graph.matcher)


def test_named_keeps_text_it_cannot_rewrite_safely() -> None:
    data = copy.deepcopy(_solved(7, "max_value"))
    graph = load_graph(data)
    assert graph.named("steady_cash wins.") == "Steady Cash wins."
    assert graph.named("x steady_cash") == "x Steady Cash"
    assert graph.named("Steady Cash and general purchases") == "Steady Cash and general purchases"
    assert graph.named("ｓｔｅａｄｙ_cash wins.") == "Steady Cash wins."  # width folds in place
    assert graph.named("ﬁne steady_cash.") == "ﬁne steady_cash."  # NFKC moves the spans: as is
    assert graph.named("other_spend is big.") == "General purchases is big."
    # a name that would run into the next word and read as another mention is not used
    data["entities"].append({"id": "cash_back", "kind": "card", "name": "Cash Back"})
    data["entities"][0]["name"] = "Steady"  # "Steady" + "Cash Back" would read differently
    clash = load_graph(data)
    assert clash.named("steady_cash back") == "Steady back"
    for e in data["entities"]:
        if e["kind"] == "card":  # a category shown by its id would read as English (other_spend)
            e.pop("name", None)
    assert load_graph(data).named("steady_cash wins.") == "steady_cash wins."


def test_allowed_items_headline_first_then_the_plan_then_untold_parts() -> None:
    graph = load_graph(_solved(7, "max_value"))
    items = menu_items(graph)
    assert plan_type(items) == "ALLOCATION_SEGMENT"
    first = allowed_items(items, [])
    assert first and all(i.headline for i in first)
    chosen = [first[0].claim()]
    told = ["OBJECTIVE"]
    while True:
        allowed = allowed_items(items, chosen)
        if not allowed:
            break
        left = remaining_items(items, chosen)
        planned = [i for i in left if i.node_type == "ALLOCATION_SEGMENT"]
        untold = [i for i in left if i.node_type not in told]
        if told.count("ALLOCATION_SEGMENT") < PLAN_CLAIMS and planned:
            assert allowed == planned
        else:
            assert allowed == (untold or left)
        chosen.append(allowed[0].claim())
        told.append(allowed[0].node_type)
    assert told[1 : 1 + PLAN_CLAIMS] == ["ALLOCATION_SEGMENT"] * PLAN_CLAIMS
    assert len(chosen) == len(graph.nodes)  # every fact once
    # a graph without marks: the rule is remaining_items, as before
    data = copy.deepcopy(_solved(7, "max_value"))
    for node in data["nodes"]:
        node.pop("headline", None)
        node.pop("salience", None)
    plain = load_graph(data)
    plain_items = menu_items(plain)
    assert allowed_items(plain_items, []) == plain_items
    assert [i.node_id for i in choice_items(plain_items)] == list(
        dict.fromkeys(i.node_id for i in plain_items)
    )


READER_CASES = load_json(FIXTURES / "text" / "menu_reader.json")


def test_the_menu_offers_only_what_strict_reads_as_written() -> None:
    """Statements holding markup, character references, superscripts, emphasis, a bullet
    or an invisible character: the menu offers exactly the nodes strict accepts."""
    graph = load_graph(READER_CASES["graph"])
    items = menu_items(graph)
    assert menu_facts(items) == READER_CASES["offered"]
    assert _failures(graph, items) == []
    whole = [
        MenuItem(
            "FACT", n.id, (n.id,), graph.named(n.statement), tuple(n.entities), tuple(n.numbers)
        )
        for n in graph.model.nodes
        if n.id not in READER_CASES["offered"]
    ]
    assert len(whole) == len(graph.model.nodes) - len(READER_CASES["offered"])
    failures = _failures(graph, whole)
    refused = {claim["cited_evidence_ids"][0] for p, claim, _ in failures if p == "strict"}
    accepted = set(READER_CASES["not_offered_yet_accepted"])
    assert refused == {item.node_id for item in whole} - accepted


@ROBUST
@given(graph_dicts())
def test_every_claim_built_from_a_node_is_a_menu_item(data: dict[str, Any]) -> None:
    """One function turns a node into a claim: the prompt's example claim and the
    simulated narrator's claims are items of the menu over the same nodes."""
    from verity.llm.narrators.scripted import valid_claims

    try:
        graph = load_graph(data)
        prompt = build_prompt(graph, "grounded", max_nodes=len(graph.model.nodes))
    except (GraphError, InputError):  # no claim type the nodes can support: no prompt
        assume(False)
        return
    whole = [item.claim() for item in menu_items(graph, substatements=False)]
    simulated = valid_claims(graph)
    assert all(c in whole for c in simulated)
    assert len({c["cited_evidence_ids"][0] for c in simulated}) == len(simulated)
    assert {c["cited_evidence_ids"][0] for c in simulated} == {
        c["cited_evidence_ids"][0] for c in whole
    }
    example = json.loads(prompt.user.split("<<<DATA", 1)[1].rsplit("DATA>>>", 1)[0])
    assert ("example_claim" in example) == bool(whole)
    assert example.get("example_claim") in [*whole, None]

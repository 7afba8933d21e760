"""Card-rewards evidence graphs: checked-in bytes, loader, statements and node semantics."""

from __future__ import annotations

import json
import re
from collections import Counter
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import ROOT, TESTS, SharedGraphs
from verity import EvidenceGraph, load_graph
from verity.backends.card_rewards import (
    CATEGORIES,
    GOALS,
    Catalog,
    build_graph,
    graph_json,
    load_catalog,
    load_profiles,
    solve,
)
from verity.backends.card_rewards._alloc import wallet_earnings
from verity.cli.main import main
from verity.text.align import POLARITY_MARKERS, is_supported_v2
from verity.text.normalize import normalize
from verity.text.tokens import tokenize

GRAPH_DIR = ROOT / "evidence_graphs" / "card_rewards"
FIXTURES = TESTS / "fixtures" / "card_rewards"
CLAIMS = json.loads((FIXTURES / "claims.json").read_text("utf-8"))["cases"]
NAMES = [f"p{i:02d}-{goal}.json" for i in range(50) for goal in GOALS]
NODE_TYPES = {
    "OBJECTIVE",
    "ASSUMPTION",
    "WINNER_BY_CATEGORY",
    "ALLOCATION_SEGMENT",
    "CAP_HIT",
    "FEE_BREAK_EVEN",
    "THRESHOLD",
}
HIGHS_SAMPLE = [
    (0, "max_value"),
    (5, "two_cards"),
    (17, "no_fee"),
    (31, "max_value"),
    (45, "two_cards"),
]
DISPLAY = re.compile(r"-?\$\d{1,3}(?:,\d{3})*\.\d\d|\d+(?:\.\d+)?[x%¢]")


def _raw(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((GRAPH_DIR / name).read_text("utf-8"))
    return data


@cache
def _catalog() -> Catalog:
    return load_catalog()


def _value(cards: list[str], spend: dict[str, Decimal]) -> Decimal:
    catalog = _catalog()
    wallet = [catalog.card(c) for c in cards]
    return wallet_earnings(wallet, spend) - sum((c.annual_fee for c in wallet), Decimal(0))


def test_checked_in_graphs_are_exactly_the_generated_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert sorted(p.name for p in GRAPH_DIR.iterdir()) == sorted(NAMES)
    assert main(["optimize", "--all", "--out-dir", str(tmp_path), "--quiet"]) == 0
    out, err = capsys.readouterr()
    assert out == "" and err == f"optimize: wrote {len(NAMES)} graphs to {tmp_path}\n"
    for name in NAMES:
        assert (tmp_path / name).read_bytes() == (GRAPH_DIR / name).read_bytes(), name


@pytest.mark.parametrize(("index", "goal"), HIGHS_SAMPLE)
def test_highs_gives_the_same_bytes_as_cbc(index: int, goal: str) -> None:
    catalog, profile = load_catalog(), load_profiles()[index]
    text = graph_json(build_graph(catalog, solve(catalog, profile, goal, "highs")))
    assert text == (GRAPH_DIR / f"{profile.id}-{goal}.json").read_text("utf-8")


@pytest.mark.parametrize("name", NAMES)
def test_graph_loads_and_follows_the_statement_rules(name: str) -> None:
    graph = load_graph(GRAPH_DIR / name)
    raw = _raw(name)
    assert graph.domain == "card_rewards" and graph.graph_id == f"card_rewards-{name[:-5]}"
    rules = json.loads((ROOT / "verity" / "data" / "rules" / "card_rewards.json").read_text())
    assert raw["rules"] == rules["rules"]
    _check_entities(graph)
    for node in raw["nodes"]:
        _check_statement(graph, node)


def _check_entities(graph: EvidenceGraph) -> None:
    for entity in graph.model.entities:
        assert re.fullmatch(r"[a-z][a-z_]*[a-z]", entity.id)
        assert entity.name, entity.id  # every entity has a display name
        for alias in (entity.name, *entity.aliases):
            assert normalize(alias) not in POLARITY_MARKERS, alias
            assert normalize(alias) == entity.id or normalize(alias) not in graph.entities, alias


def _check_statement(graph: EvidenceGraph, node: dict[str, Any]) -> None:
    statement = node["statement"]
    assert statement.endswith(".") and not re.search(r"[.!?](\s|$)", statement[:-1]), statement
    assert statement[0].isupper() or statement.split()[0] in graph.entities, statement
    mentioned = {m.entity_id for m in graph.matcher.find(normalize(statement))}
    assert mentioned == set(node["entities"]), statement
    for number in node["numbers"]:
        assert number in statement and DISPLAY.fullmatch(number), number
    assert sorted(set(DISPLAY.findall(statement))) == sorted(node["numbers"]), statement
    tokens = tokenize(statement, graph.matcher)
    assert not set(tokens) & POLARITY_MARKERS, statement


def test_every_node_type_occurs_and_counts_are_stable() -> None:
    counts: Counter[str] = Counter()
    for name in NAMES:
        counts.update(n["type"] for n in _raw(name)["nodes"])
    assert set(counts) == NODE_TYPES
    assert counts["OBJECTIVE"] == len(NAMES)
    assert counts["WINNER_BY_CATEGORY"] == len(NAMES) * len(CATEGORIES)


def test_caps_bind_and_fees_pay_in_a_good_share() -> None:
    with_cap = with_fee_card = max_value_without_fee_card = 0
    for name in NAMES:
        types = {n["type"] for n in _raw(name)["nodes"]}
        with_cap += "CAP_HIT" in types
        with_fee_card += "FEE_BREAK_EVEN" in types
        max_value_without_fee_card += (
            name.endswith("max_value.json") and "FEE_BREAK_EVEN" not in types
        )
    assert with_cap >= len(NAMES) // 3
    assert with_fee_card >= len(NAMES) // 5
    assert max_value_without_fee_card >= 50 // 5


@pytest.mark.parametrize("name", NAMES)
def test_node_figures_agree_with_each_other(name: str) -> None:
    raw = _raw(name)
    nodes = {n["id"]: n for n in raw["nodes"]}
    objective = nodes["objective"]["data"]
    segments = [n["data"] for n in raw["nodes"] if n["type"] == "ALLOCATION_SEGMENT"]
    rewards = sum(Decimal(str(s["value"])) for s in segments)
    assert rewards == Decimal(str(objective["rewards"]))
    for category in CATEGORIES:
        placed = sum(Decimal(str(s["spend"])) for s in segments if s["category"] == category)
        assert placed == Decimal(str(objective["spend"][category]))
    targets: dict[tuple[str, str], list[str]] = {
        (e["source"], e["relation"]): [] for e in raw["edges"]
    }
    for edge in raw["edges"]:
        assert edge["source"] in nodes and edge["target"] in nodes
        targets.setdefault((edge["source"], edge["relation"]), []).append(edge["target"])
    for node in raw["nodes"]:
        data = node["data"]
        if node["type"] == "CAP_HIT":
            overflow = targets.get((node["id"], "overflow_to"), [])
            assert overflow == data["overflow_segments"] and overflow
            # the cap and the card the next dollars go to; how many and at what rate is
            # the overflow segment's fact, stated there
            assert node["numbers"] == [node["slots"]["cap"]]
            nxt = nodes[overflow[0]]["data"]
            assert nxt["category"] == data["category"]
            switch = [] if data["overflow_to_same_card"] else [nxt["card"]]
            assert node["entities"] == [data["card"], data["category"], *switch]
            assert node["slots"].get("target") == (switch[0] if switch else None)
        if node["type"] == "FEE_BREAK_EVEN":
            gain, fee = Decimal(str(data["gain_before_fee"])), Decimal(str(data["annual_fee"]))
            assert Decimal(str(data["net_added"])) == gain - fee
            assert data["break_even_spend"] is not None and gain > fee
            expected = fee * Decimal(str(data["card_spend"])) / gain  # gain is rounded to cents
            stated = Decimal(str(data["break_even_spend"]))
            assert abs(stated - expected) <= Decimal("0.01") + expected / 10_000


@pytest.mark.parametrize("name", NAMES)
def test_thresholds_mark_where_the_move_starts_to_pay(name: str) -> None:
    raw = _raw(name)
    objective = raw["nodes"][0]["data"]
    base = {k: Decimal(str(v)) for k, v in objective["spend"].items()}
    for node in raw["nodes"]:
        if node["type"] != "THRESHOLD":
            continue
        data = node["data"]
        level = Decimal(str(data["threshold_spend"]))
        step = Decimal("0.01") if data["direction"] == "up" else Decimal("-0.01")

        def gain(s: Decimal, data: dict[str, Any] = data) -> Decimal:
            spend = {**base, data["category"]: s}
            return _value(data["new_plan"], spend) - _value(objective["held"], spend)

        assert gain(level - step) <= Decimal("0.0001"), node["statement"]
        assert gain(level + step) > 0 or gain(level + step) >= -Decimal("0.0001"), node["statement"]
        assert gain(level + 100 * step) > 0, node["statement"]


def _filled(case: dict[str, Any], node: dict[str, Any], graph: EvidenceGraph) -> str | None:
    """The case's claim for ``node``, or None when the case does not apply to it."""
    when = case.get("when", {})
    if node["type"] != case["type"] or any(node["data"].get(k) != v for k, v in when.items()):
        return None
    statement = node["statement"]
    fields = {
        "e": [m.entity_id for m in graph.matcher.find(normalize(statement))],
        "n": DISPLAY.findall(statement),
    }
    try:
        claim: str = case["template"].format(**fields)
        distinct = [part.format(**fields) for part in case.get("distinct", [])]
    except IndexError:
        return None
    return None if len(set(distinct)) < len(distinct) else claim


@pytest.mark.parametrize("case", CLAIMS, ids=lambda c: f"{c['type']}:{c['template']}")
def test_natural_claims_reuse_statement_wording(case: dict[str, Any], graphs: SharedGraphs) -> None:
    checked = 0
    for name in NAMES[::5]:
        graph = graphs.card(name)
        for node in graph.to_dict()["nodes"]:
            claim = _filled(case, node, graph)
            if claim is None:
                continue
            result = is_supported_v2(claim, node["statement"], graph.matcher)
            assert result is case["supported"], (claim, node["statement"])
            checked += 1
    assert checked > 0

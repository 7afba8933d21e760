"""One alias key, one mention finder and one entity blanking before numbers are read."""

from __future__ import annotations

import pytest

from tests.helpers import graph_dict
from verity import GraphError, load_graph
from verity.core.graph import entity_scan
from verity.text.aliases import AliasMatcher, alias_key
from verity.text.normalize import normalize


def test_alias_key_normalizes_and_collapses_whitespace() -> None:
    assert alias_key("  Amex\tＧＯＬＤ  Card ") == "amex gold card"
    assert alias_key("   ") == ""


def test_mentions_normalizes_the_text_first() -> None:
    matcher = AliasMatcher({"Amex Gold": "amex_gold", "amex_gold": "amex_gold"})
    text = "The AMEX   gold earns 4x; ＡＭＥＸ ＧＯＬＤ too."
    found = matcher.mentions(text)
    assert found == matcher.find(normalize(text))
    assert [m.entity_id for m in found] == ["amex_gold", "amex_gold"]


def test_entity_scan_blanks_mentions_keeping_offsets() -> None:
    matcher = AliasMatcher({"Gold 2": "gold_2"})
    found, masked = entity_scan("Gold 2 earns 3x.", matcher)
    assert [m.entity_id for m in found] == ["gold_2"]
    assert masked == "       earns 3x."
    assert len(masked) == len(normalize("Gold 2 earns 3x."))
    assert entity_scan("No entity, 5%.", matcher) == ([], "no entity, 5%.")


def _graph_with_entity_named(name: str, numbers: list[str]) -> dict[str, object]:
    data = graph_dict("card_small.json")
    entity = data["entities"][0]  # type: ignore[index]
    entity["aliases"] = [name]
    node = next(n for n in data["nodes"] if entity["id"] in n["entities"])  # type: ignore[attr-defined]
    node["statement"] = f"{name} earns 3x on dining."
    node["numbers"] = numbers
    node.pop("optional_spans", None)  # spans of the old statement
    return data


def test_the_loader_reads_numbers_after_blanking_entities() -> None:
    # "Card 2" is a name: its 2 is no number, so the node lists 3x only.
    load_graph(_graph_with_entity_named("Card 2", ["3x"]))
    with pytest.raises(GraphError, match="does not state"):
        load_graph(_graph_with_entity_named("Card 2", ["3x", "2"]))

"""Declarations checked at load (``verity.text.declarations``): variants that say more than
their canonical, ``coordinable`` on a share or total, names that read as quantifier phrases.

The cases are data (``tests/fixtures/declarations/*.json``); each word list there is the whole
set the rule holds, so dropping a word from the rule fails a case here.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import EXAMPLES, FIXTURES, ROOT, load_json
from verity import EvidenceGraph, GraphError, load_graph
from verity.backends.sql.query import graph_from_queries
from verity.backends.sql.spec import SqlBackendError, load_spec, sample_spec
from verity.core.builder import GraphBuilder
from verity.text import declarations

DECL = FIXTURES / "declarations"
VARIANTS: dict[str, Any] = load_json(DECL / "variants.json")
COORDINABLE: dict[str, Any] = load_json(DECL / "coordinable.json")
NAMES: dict[str, Any] = load_json(DECL / "names.json")
CARD_GRAPHS = sorted((ROOT / "evidence_graphs" / "card_rewards").glob("*.json"))


def template_graph(
    canonical: str,
    variants: Sequence[str] = (),
    *,
    coordinable: Sequence[str] = (),
    slots: Mapping[str, str] | None = None,
) -> EvidenceGraph:
    """A graph holding one template (and one node of it when ``slots`` are given)."""
    builder = GraphBuilder("decl", "test")
    builder.template("t", canonical, variants, coordinable=coordinable)
    if slots is None:
        builder.node("n", "FACT", statement="A fact.")
    else:
        builder.node("n", "FACT", template="t", slots=slots)
    return builder.build()


def named_graph(name: str | None = None, aliases: Sequence[str] = ()) -> EvidenceGraph:
    """A graph with one entity of display ``name`` and ``aliases``."""
    builder = GraphBuilder("decl", "test")
    builder.entity("e1", "thing", name=name, aliases=list(aliases))
    builder.node("n", "FACT", statement="A fact.", entities=[], numbers=[])
    return builder.build()


def refused(build: Any, *words: str) -> str:
    with pytest.raises(GraphError) as info:
        build()
    message = str(info.value)
    assert "\n" not in message
    for word in words:
        assert repr(word) in message, message
    return message


# --- the word sets are the fixtures' -----------------------------------------------------------


def test_the_widening_classes_are_the_fixture_lists() -> None:
    assert {k: sorted(v) for k, v in declarations.WIDENING.items()} == {
        k: sorted(v) for k, v in VARIANTS["words"].items()
    }


def test_the_share_set_is_the_fixture_list() -> None:
    assert sorted(declarations.SHARE_WORDS) == sorted(COORDINABLE["share_words"])
    assert [" ".join(p) for p in declarations.SHARE_PHRASES] == COORDINABLE["share_phrases"]


def test_the_name_sets_are_the_fixture_lists() -> None:
    assert sorted(declarations.NAME_WORDS) == sorted(NAMES["words"])
    assert sorted(declarations.NAME_ALONE) == sorted(NAMES["alone"])


# --- 1. variants -------------------------------------------------------------------------------

WORDS = sorted({(word, kind) for kind, words in VARIANTS["words"].items() for word in words})
FRAME = VARIANTS["frame"]


@pytest.mark.parametrize(("word", "kind"), WORDS, ids=lambda x: x)
def test_a_variant_may_not_add_a_word_of_a_class_its_canonical_lacks(word: str, kind: str) -> None:
    variant = FRAME["variant"].replace("WORD", word)
    refused(lambda: template_graph(FRAME["plain"], [variant]), word)


@pytest.mark.parametrize(("word", "kind"), WORDS, ids=lambda x: x)
def test_a_variant_may_keep_a_word_its_canonical_holds(word: str, kind: str) -> None:
    canonical = FRAME["with_word"].replace("WORD", word)
    variant = FRAME["variant"].replace("WORD", word)
    assert template_graph(canonical, [variant]).templates["t"]


@pytest.mark.parametrize(("word", "kind"), WORDS, ids=lambda x: x)
def test_a_variant_may_word_a_class_its_canonical_holds_otherwise(word: str, kind: str) -> None:
    other = next(w for w in sorted(VARIANTS["words"][kind]) if w != word)
    canonical = FRAME["with_word"].replace("WORD", other)
    variant = FRAME["variant"].replace("WORD", word)
    assert template_graph(canonical, [variant]).templates["t"]


@pytest.mark.parametrize("case", VARIANTS["attacks"], ids=lambda c: c["why"][:40])
def test_a_widening_variant_is_refused(case: dict[str, Any]) -> None:
    message = refused(lambda: template_graph(case["canonical"], case["variants"]), case["word"])
    assert "template 't'" in message and "lacks" in message


@pytest.mark.parametrize("case", VARIANTS["controls"], ids=lambda c: c["why"][:40])
def test_a_faithful_variant_is_accepted(case: dict[str, Any]) -> None:
    assert template_graph(case["canonical"], case["variants"]).templates["t"]


def test_a_sql_spec_with_a_widening_variant_is_refused_at_load() -> None:
    data = sample_spec().model_dump(mode="json", exclude_unset=True)
    query = next(q for q in data["queries"] if q["name"] == "quarter_totals")
    query["statement_variants"].append("Total revenue in {quarter} was {revenue}, a record.")
    with pytest.raises(SqlBackendError) as info:
        load_spec(data)
    assert "'quarter_totals'" in str(info.value) and "'record'" in str(info.value)


# --- 2. coordinable ----------------------------------------------------------------------------

SHARES = COORDINABLE["share_words"] + COORDINABLE["share_phrases"]


@pytest.mark.parametrize("words", SHARES)
def test_coordinable_is_refused_on_a_share_or_total(words: str) -> None:
    canonical = COORDINABLE["frame"].replace("WORD", words)
    refused(lambda: template_graph(canonical, coordinable=["region"]), "region")
    assert template_graph(canonical).templates["t"]


@pytest.mark.parametrize("case", COORDINABLE["refused"], ids=lambda c: c["why"][:40])
def test_coordinable_share_templates_are_refused(case: dict[str, Any]) -> None:
    message = refused(
        lambda: template_graph(
            case["canonical"], coordinable=case["coordinable"], slots=case.get("slots")
        ),
        case["coordinable"][0],
    )
    assert "share or a total" in message


@pytest.mark.parametrize("case", COORDINABLE["accepted"], ids=lambda c: c["why"][:40])
def test_coordinable_templates_of_each_value_apart_are_accepted(case: dict[str, Any]) -> None:
    graph = template_graph(
        case["canonical"], coordinable=case["coordinable"], slots=case.get("slots")
    )
    assert graph.templates["t"]


def _sample_spec_data() -> dict[str, Any]:
    data: dict[str, Any] = sample_spec().model_dump(mode="json", exclude_unset=True)
    return data


@pytest.mark.parametrize("field", COORDINABLE["spec"]["refused_fields"])
def test_a_sql_spec_making_a_share_coordinable_is_refused_at_load(field: str) -> None:
    data = _sample_spec_data()
    query = next(q for q in data["queries"] if q["name"] == COORDINABLE["spec"]["query"])
    query["coordinable"] = [field]
    with pytest.raises(SqlBackendError) as info:
        load_spec(data)
    message = str(info.value)
    assert "share or a total" in message and repr(field) in message and "\n" not in message


def test_a_sql_spec_making_a_percentage_of_a_whole_coordinable_is_refused_at_load() -> None:
    case = COORDINABLE["spec"]["percent_of"]
    data = _sample_spec_data()
    query = next(q for q in data["queries"] if q["name"] == COORDINABLE["spec"]["query"])
    query["statement_template"] = case["statement_template"]
    query["statement_variants"] = query["required_templates"] = query["optional_templates"] = []
    query["coordinable"] = [case["field"]]
    with pytest.raises(SqlBackendError) as info:
        load_spec(data)
    assert "a percentage of a whole" in str(info.value)
    query["coordinable"] = []
    assert load_spec(data).graph_id == "sample_sales"


# --- 3. names ----------------------------------------------------------------------------------

NAME_CASES = [c["name"] for c in NAMES["refused"]] + NAMES["words"] + NAMES["alone"]
NAME_CASES += [f"{word} {NAMES['noun']}" for word in NAMES["words"]]


@pytest.mark.parametrize("name", NAME_CASES)
def test_a_quantifier_name_is_refused(name: str) -> None:
    message = refused(lambda: named_graph(name), name)
    assert "quantifier phrase" in message and "entity 'e1'" in message
    refused(lambda: named_graph("Plain Name", [name]), name)
    refused(lambda: named_graph(None, [name]), name)


PLAIN_NAMES = [c["name"] for c in NAMES["accepted"]]
PLAIN_NAMES += [f"{word} {NAMES['noun']}" for word in NAMES["alone"]]


@pytest.mark.parametrize("name", PLAIN_NAMES)
def test_a_plain_name_is_accepted(name: str) -> None:
    assert named_graph(name, [name + " Co"]).entities["e1"]


def _name_spec(name: str) -> dict[str, Any]:
    return {
        "format": "verity.sql_spec/1",
        "graph_id": "names",
        "domain": "sales",
        "entities": [{"kind": "region"}],
        "queries": [
            {
                "name": "revenue",
                "node_type": "REVENUE",
                "sql": f"SELECT 'R1' AS code, '{name}' AS label, 100 AS revenue",
                "id_template": "revenue_{code}",
                "statement_template": "{code} had revenue of {revenue}.",
                "entities": [{"column": "code", "kind": "region", "name_column": "label"}],
                "numbers": [{"column": "revenue", "format": "integer"}],
            }
        ],
    }


@pytest.mark.parametrize("case", NAMES["refused"], ids=lambda c: c["name"])
def test_the_sql_backend_refuses_a_quantifier_name_naming_its_query(
    case: dict[str, Any],
) -> None:
    name = case["name"].replace("'", "''")
    with sqlite3.connect(":memory:") as connection, pytest.raises(SqlBackendError) as info:
        graph_from_queries(connection, _name_spec(name))
    message = str(info.value)
    assert "query 'revenue'" in message and "\n" not in message
    assert "CASE WHEN" in message or "is a polarity marker" in message  # the marker rule first


def test_the_sql_backend_accepts_a_plain_name() -> None:
    with sqlite3.connect(":memory:") as connection:
        graph = graph_from_queries(connection, _name_spec("general purchases"))
    assert graph.display_name("r1") == "general purchases"


# --- what ships loads --------------------------------------------------------------------------


@pytest.mark.parametrize("path", CARD_GRAPHS, ids=lambda p: p.name)
def test_every_card_graph_loads(path: Path) -> None:
    assert load_graph(path).templates


def test_the_card_graphs_are_all_there() -> None:
    assert len(CARD_GRAPHS) == 150


def test_the_sql_sample_and_the_examples_load() -> None:
    from tests.helpers import SharedGraphs

    assert SharedGraphs.sql_sample().templates
    assert load_graph(EXAMPLES / "graph.json").nodes
    assert load_spec(EXAMPLES / "sales.spec.json").queries
    for name in ("production_plan", "staff_schedule"):
        assert SharedGraphs.named(f"lp/{name}").templates


def test_the_card_templates_pass_and_lose_their_best_card_variants() -> None:
    from verity.backends.card_rewards._templates import COORDINABLE as CARD_COORD
    from verity.backends.card_rewards._templates import TEMPLATES

    for tid, (canonical, variants) in TEMPLATES.items():
        graph = template_graph(canonical, variants, coordinable=CARD_COORD.get(tid, ()))
        for variant in graph.templates["t"][1:]:
            assert "every year" not in variant.source and "each year" not in variant.source
            assert "(best|top|leading)" not in variant.source


BY_ENDING: dict[str, Any] = VARIANTS["by_ending"]
ENDING_WORDS = sorted(
    (word, kind)
    for kind, words in BY_ENDING.items()
    if kind in declarations.WIDENING
    for word in words
)


@pytest.mark.parametrize(("word", "kind"), ENDING_WORDS, ids=lambda x: x)
def test_a_word_no_list_holds_is_classed_by_its_ending(word: str, kind: str) -> None:
    variant = FRAME["variant"].replace("WORD", word)
    refused(lambda: template_graph(FRAME["plain"], [variant]), word)
    listed = sorted(VARIANTS["words"][kind])[0]
    canonical = FRAME["with_word"].replace("WORD", listed)
    assert template_graph(canonical, [variant]).templates["t"]


@pytest.mark.parametrize("word", BY_ENDING["not_by_ending"])
def test_a_word_of_the_ending_that_is_no_superlative_keeps_no_class(word: str) -> None:
    variant = FRAME["variant"].replace("WORD", word)
    assert template_graph(FRAME["plain"], [variant]).templates["t"]

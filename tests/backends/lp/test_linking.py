"""Linking rows (decisions on both sides of a row) are stated as what they are.

``tests/fixtures/lp/linking_rows.json`` holds rows and how :func:`linking` reads them;
``linking_attacks.json`` holds false claims over two models of our own (``depots.lp``,
``staffing.lp``) that read such a row as a limit of 0 or the row of a closed site as a
binding limit, and true claims in the backend's wording. Strict must refuse every attack
and ship every control; with the detection removed, the old statements ("The upper limit
of 0 pallets on ... binds.") come back and the attacks ship.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.backends.lp.examples import MODELS, example_graph, solved
from tests.backends.lp.test_attacks import judge
from tests.helpers import FIXTURES, load_json
from verity import verify
from verity.backends.pulp import facts_of
from verity.backends.pulp._linking import linking
from verity.backends.pulp._solution import ConstraintFact
from verity.llm.menu import menu_items

ROWS = load_json(FIXTURES / "lp" / "linking_rows.json")
CASES = load_json(FIXTURES / "lp" / "linking_attacks.json")["cases"]
LINKED = ("depots", "staffing", "transport")  # transport: one linking row (pairing)


@pytest.mark.parametrize("row", ROWS["rows"], ids=lambda r: r["id"])
def test_a_row_is_linking_when_decisions_sit_on_both_sides(row: dict[str, Any]) -> None:
    fact = ConstraintFact(
        "row", row["sense"], row["rhs"], 0.0, terms=tuple((n, k) for n, k in row["terms"])
    )
    found = linking(fact, lambda name: name in row["binaries"])
    if row["link"] is None:
        assert found is None
        return
    assert found is not None
    want = row["link"]
    assert [list(t) for t in found.subject] == want["subject"]
    assert [list(t) for t in found.other] == want["other"]
    assert (found.sense, found.constant) == (want["sense"], want["constant"])


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['expect']}:{c['text'][:60]}")
def test_strict_refuses_every_linking_attack_and_ships_every_control(
    case: dict[str, Any],
) -> None:
    judge(example_graph(case["graph"]), case)


def test_the_fixture_covers_both_models_and_every_state() -> None:
    assert sum(c["expect"] == "refused" for c in CASES) >= 40
    assert sum(c["expect"] == "accepted" for c in CASES) >= 20
    templates = {
        example_graph(c["graph"]).nodes[c["cite"][0]].template
        for c in CASES
        if c["expect"] == "accepted"
    }
    assert {t for t in templates if t and t.startswith(("link_", "state_"))} == {
        "link_upper",
        "link_lower",
        "state_on_upto",
        "state_on_atleast",
        "state_off_zero",
        "state_off_lapsed",
        "state_with_upto",
        "state_with_zero",
        "state_plan_upto",
    }


@pytest.mark.parametrize("name", sorted(MODELS))
def test_every_linking_row_is_stated_as_a_link_and_never_as_a_limit(name: str) -> None:
    graph = example_graph(name)
    facts = facts_of(solved(name))
    binary = {v.name: v.binary for v in facts.variables}
    linked = [c.name for c in facts.constraints if linking(c, binary.__getitem__) is not None]
    assert bool(linked) == (name in LINKED)
    for row in linked:
        relation, state = graph.nodes[f"constraint:{row}"], graph.nodes[f"link:{row}"]
        assert (relation.type, state.type) == ("LINKING_CONSTRAINT", "LINKING_STATE")
        assert f"shadow_price:{row}" not in graph.nodes
        for statement in (relation.statement, state.statement):
            said = [w for w in ROWS["never_said"] if w in statement]
            assert said == [], (row, statement)


@pytest.mark.parametrize("name", LINKED)
def test_every_menu_item_of_a_model_with_linking_rows_passes_strict_and_paper(
    name: str,
) -> None:
    graph = example_graph(name)
    items = menu_items(graph)
    claims = [item.claim() | {"id": f"c{i}"} for i, item in enumerate(items)]
    assert {graph.nodes[i.node_id].type for i in items} >= {"LINKING_CONSTRAINT", "LINKING_STATE"}
    for profile in ("strict", "paper"):
        report = verify(graph, {"claims": claims}, profile=profile)
        assert [v.id for v in report.claims if not v.passed] == [], profile


def test_the_conditions_of_linking_states_are_declared_as_scope() -> None:
    graph = example_graph("depots")
    kinds = {t.id: t.slot_kinds for t in graph.model.templates}
    assert kinds["link_upper"] == {"left": "subject", "right": "object"}
    assert kinds["state_on_upto"]["switch"] == "condition"
    assert kinds["state_with_upto"]["switch"] == "condition"
    assert "switch" not in kinds["state_plan_upto"]  # several decisions: no one condition

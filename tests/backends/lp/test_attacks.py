"""Attacks and controls on the new backends' templates (``tests/fixtures/lp/attacks.json``).

Each attack is a false claim that would ship if a declared variation were wrong (a variant
that drops ``At the margin``, a unit, a tie; a coordinable value); each control is a true
claim in a capable writer's words. Every claim declares the entities and numbers its text
mentions, so ``paper`` (which reads no prose) accepts them all, and only strict's text
check decides: it must refuse every attack and accept every control."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import pytest

from tests.backends.lp.examples import example_graph
from tests.backends.sql_real import make_sqlite, spec
from tests.helpers import FIXTURES, load_json
from verity import EvidenceGraph, verify
from verity.backends.sql.query import graph_from_url, sqlite_url
from verity.core.graph import entity_scan
from verity.text.numbers import find_numbers, number_value

CASES = load_json(FIXTURES / "lp" / "attacks.json")["cases"]


@cache
def _graph(name: str, folder: str) -> EvidenceGraph:
    if name in ("production_plan", "staff_schedule"):
        return example_graph(name)
    db = make_sqlite(Path(folder) / f"{name}.sqlite", name)
    return graph_from_url(sqlite_url(db), spec(name))


def _claim(graph: EvidenceGraph, case: dict[str, Any]) -> dict[str, Any]:
    first = graph.nodes[case["cite"][0]]
    rule = next(r for r in graph.model.rules if first.type in r.requires[0].any_of)
    mentioned = [m.entity_id for m in graph.matcher.mentions(case["text"])]
    stated = [n for c in case["cite"] for n in graph.nodes[c].numbers]
    values = {number_value(n): n for n in stated}
    numbers = [
        values[m.value]
        for m in find_numbers(entity_scan(case["text"], graph.matcher)[1])
        if m.value in values
    ]
    return {
        "id": "c1",
        "type": rule.claim_type,
        "text": case["text"],
        "cited_evidence_ids": list(case["cite"]),
        "entities": list(dict.fromkeys(mentioned)),
        "numbers": list(dict.fromkeys(numbers)),
    }


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(tmp_path_factory.mktemp("attacks"))


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['expect']}:{c['text'][:60]}")
def test_strict_refuses_every_attack_and_accepts_every_control(
    case: dict[str, Any], folder: str
) -> None:
    judge(_graph(case["graph"], folder), case)


def judge(graph: EvidenceGraph, case: dict[str, Any]) -> None:
    """Paper passes the case's claim; strict refuses an attack by its text (polarity or
    prose codes alone) and ships a control."""
    claim = _claim(graph, case)
    paper = verify(graph, {"claims": [claim]}, profile="paper")
    assert paper.summary.all_claims_verified, [e.code for e in paper.claims[0].errors]
    strict = verify(graph, {"claims": [claim]}, profile="strict")
    codes = [e.code for e in strict.claims[0].errors]
    if case["expect"] == "refused":
        assert not strict.summary.all_claims_verified, case["why"]
        assert all(c.startswith(("polarity.", "prose.")) for c in codes), codes
    else:
        assert strict.summary.all_claims_verified, (case["why"], codes)


def test_the_fixture_covers_every_new_template_kind() -> None:
    attacks = [c for c in CASES if c["expect"] == "refused"]
    controls = [c for c in CASES if c["expect"] == "accepted"]
    assert len(attacks) >= 40 and len(controls) >= 20
    cited = {c["cite"][0].split(":")[0] for c in CASES if c["graph"] == "production_plan"}
    assert cited == {"result", "decision", "constraint", "bound", "shadow_price", "reduced_cost"}

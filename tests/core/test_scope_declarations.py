"""The loader keeps every scope in every sentence a node declares (v5): a variant that can
leave a scope slot out and an optional span holding a scope value are refused."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tests.helpers import FIXTURES, load_json
from verity import load_graph
from verity.errors import GraphError

BASE: dict[str, Any] = load_json(FIXTURES / "graphs" / "scoped_sales.json")
CASES: list[dict[str, Any]] = load_json(FIXTURES / "scopes" / "declarations.json")["cases"]


def _patched(case: dict[str, Any]) -> dict[str, Any]:
    data = copy.deepcopy(BASE)
    template = next(t for t in data["templates"] if t["id"] == case["template"])
    template["variants"] = template["variants"] + case.get("add_variants", [])
    for node in data["nodes"]:
        if node["id"] == case.get("node"):
            node["optional_spans"] = case["optional_spans"]
    return data


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["name"])
def test_a_declaration_that_drops_a_scope_is_refused_or_loads(case: dict[str, Any]) -> None:
    data = _patched(case)
    if case["error"] is None:
        load_graph(data)
    else:
        with pytest.raises(GraphError, match=case["error"]):
            load_graph(data)


def test_the_fixture_loads_as_it_stands() -> None:
    assert len(load_graph(BASE).nodes) == len(BASE["nodes"])

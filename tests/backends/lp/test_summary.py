"""Large graphs stay readable: past ``detail`` reduced costs and slack rows of each kind,
the rest are counted in summary statements whose count and least value are exact (checked
against the graph that states every item), chosen by salience, and verified as claims."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.backends.lp.examples import MODELS, SOLVER_PARAMS, claim_of
from tests.helpers import FIXTURES, load_json
from verity import EvidenceGraph, verify
from verity.backends.pulp import graph_from_file, load_labels
from verity.backends.pulp._summary import floor_shown
from verity.cli.main import main
from verity.errors import InputError

SPEC: dict[str, Any] = load_json(FIXTURES / "lp" / "summary_cases.json")
MODEL, LABELS = MODELS["transport"]
SUMMARISED = {"REDUCED_COST": "REDUCED_COST_SUMMARY", "CONSTRAINT_SLACK": "SLACK_SUMMARY"}


def _detail(case: dict[str, Any]) -> int | None:
    return None if case["detail"] == "all" else case["detail"]


def _graph(case: dict[str, Any], solver: str) -> EvidenceGraph:
    if case.get("default"):
        return graph_from_file(MODEL, LABELS, solver_name=solver)
    return graph_from_file(MODEL, LABELS, solver_name=solver, detail=_detail(case))


def _of(graph: EvidenceGraph, node_type: str) -> list[Any]:
    return [n for n in graph.model.nodes if n.type == node_type]


def _cases() -> Iterator[Any]:
    for case in SPEC["cases"]:
        for solver in SOLVER_PARAMS:
            name = solver if isinstance(solver, str) else solver.values[0]
            marks = () if isinstance(solver, str) else solver.marks
            yield pytest.param(case, name, id=f"{case['id']}-{name}", marks=marks)


@pytest.mark.parametrize(("case", "solver"), list(_cases()))
def test_summaries_count_exactly_what_they_leave_out(case: dict[str, Any], solver: str) -> None:
    graph = _graph(case, solver)
    full = graph_from_file(MODEL, LABELS, solver_name=solver, detail=None)
    assert len(_of(graph, "REDUCED_COST")) == case["reduced"]
    assert len(_of(graph, "CONSTRAINT_SLACK")) == case["slack"]
    summaries = [n for n in graph.model.nodes if n.id.startswith("summary:")]
    assert [[n.template, n.data["count"]] for n in summaries] == case["summaries"]
    for kind, summary_type in SUMMARISED.items():
        stated = {n.id: n for n in _of(full, kind)}
        kept = {n.id for n in _of(graph, kind)}
        assert kept <= set(stated)
        counted = _of(graph, summary_type)
        prefix = "reduced_cost:" if kind == "REDUCED_COST" else "constraint:"
        left_out = {i for i in stated if i not in kept}
        assert {prefix + item for n in counted for item in n.data["items"]} == left_out
        for node in counted:
            items = [stated[prefix + item] for item in node.data["items"]]
            value = "reduced_cost" if kind == "REDUCED_COST" else "slack"
            least = min(abs(n.data[value]) for n in items)
            assert node.data["count"] == len(items) and node.slots["count"] == f"{len(items):,}"
            assert node.data["least"] == least
            assert float(node.slots["least"].lstrip("$")) <= least
            assert float(node.slots["least"].lstrip("$")) > least - 0.01  # two decimals
        if kind == "REDUCED_COST" and kept and left_out:  # the most salient are kept
            lowest = min(n.salience or 0 for n in _of(graph, kind))
            assert all((stated[i].salience or 0) <= lowest for i in left_out)
    for edge in graph.model.edges:
        assert edge.source in graph.nodes and edge.target in graph.nodes


@pytest.mark.parametrize("case", SPEC["cases"], ids=[c["id"] for c in SPEC["cases"]])
def test_every_statement_of_a_summarised_graph_verifies(case: dict[str, Any]) -> None:
    graph = _graph(case, "cbc")
    claims = [claim_of(graph, n.id) | {"id": f"c{i}"} for i, n in enumerate(graph.model.nodes)]
    report = verify(graph, {"claims": claims}, profile="strict")
    assert [v.id for v in report.claims if not v.passed] == []


def test_a_summary_with_a_wrong_count_or_least_is_refused() -> None:
    graph = _graph(SPEC["cases"][1], "cbc")
    node = graph.nodes["summary:reduced_cost:1"]
    for wrong in (
        node.statement.replace("51 other", "50 other"),
        node.statement.replace("at least $0.04", "at least $0.05"),
        node.statement.replace("at least ", ""),
        node.statement.replace(" other", ""),
    ):
        assert wrong != node.statement
        report = verify(graph, {"claims": [claim_of(graph, node.id, wrong)]}, profile="strict")
        assert not report.claims[0].passed, wrong


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (0.396, "0.39"),
        (0.4, "0.40"),
        (0.009, "0.00"),
        (1234.567, "1234.56"),
        (0.01 - 2e-16, "0.01"),
    ],
)
def test_a_least_value_is_shown_rounded_down(value: float, shown: str) -> None:
    assert floor_shown(value, lambda v: f"{v:.2f}") == shown


def test_the_cli_takes_a_detail(tmp_path: Path) -> None:
    out = tmp_path / "graph.json"
    args = ["graph-from-lp", str(MODEL), "--labels", str(LABELS), "--out", str(out)]
    assert main([*args, "--detail", "2"]) == 0
    data = load_json(out)
    assert sum(n["type"] == "REDUCED_COST" for n in data["nodes"]) == 2
    assert main([*args, "--detail", "all"]) == 0
    data = load_json(out)
    assert sum(n["type"] == "REDUCED_COST" for n in data["nodes"]) == 53
    assert not any(n["id"].startswith("summary:") for n in data["nodes"])


@pytest.mark.parametrize("bad", SPEC["bad_detail"], ids=[str(b["cli"]) for b in SPEC["bad_detail"]])
def test_a_bad_detail_is_a_one_line_error(
    bad: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(InputError, match=bad["message"]):
        graph_from_file(MODEL, LABELS, detail=bad["value"])
    out = tmp_path / "graph.json"
    code = main(["graph-from-lp", str(MODEL), "--detail", bad["cli"], "--out", str(out)])
    assert code == 2 and not out.exists()
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and bad["message"] in err, err


def test_a_plural_takes_no_fields() -> None:
    labels = {"variables": {"ship[origin,destination]": {"plural": "routes from {origin}"}}}
    with pytest.raises(
        InputError, match=re.escape("plural 'routes from {origin}' takes no fields")
    ):
        load_labels(labels)


def test_a_least_value_that_rounds_down_to_0_takes_more_decimals() -> None:
    assert floor_shown(0.006, lambda v: f"${v:.2f}") == "$0.00"
    assert floor_shown(0.006, lambda v: f"${v:.2f}", lambda v: f"${v:.4f}") == "$0.0060"

"""What limits the plan and how far (``._ranging``, ``._worth``): every stated range, 1%
worth, re-solve worth and runner-up is re-checked by an independent solve of the model in
plain pulp (CBC and HiGHS): a right-hand side or cost inside a stated range keeps the
stated slope, one just outside it does not; a limit raised by the stated step, a binary
fixed the other way, gives the stated objective."""

from __future__ import annotations

import importlib.util
import re
from typing import Any

import pulp
import pytest

from tests.backends.lp.examples import claim_of
from tests.helpers import FIXTURES, load_json
from verity import EvidenceGraph, verify
from verity.backends._pulp_support import solver, variable
from verity.backends.pulp import graph_from_problem, solve_problem
from verity.backends.pulp._graph import LIMIT_TYPES

SPEC: dict[str, Any] = load_json(FIXTURES / "lp" / "limits_models.json")["models"]
SENSES = {"<=": pulp.LpConstraintLE, ">=": pulp.LpConstraintGE, "=": pulp.LpConstraintEQ}


def _model(
    name: str,
    *,
    rhs: dict[str, float] | None = None,
    cost: dict[str, float] | None = None,
    fix: dict[str, float] | None = None,
) -> Any:
    """The fixture's model in plain pulp, with some limits, costs or variables changed."""
    spec, rhs, cost, fix = SPEC[name], rhs or {}, cost or {}, fix or {}
    sense = pulp.LpMaximize if spec["sense"] == "max" else pulp.LpMinimize
    problem = pulp.LpProblem(name, sense)
    made = {}
    for var, (low, up, cat, _) in spec["variables"].items():
        made[var] = variable(problem, var, low, up, "Binary" if cat == "B" else "Continuous")
    problem += pulp.lpSum(cost.get(v, row[3]) * made[v] for v, row in spec["variables"].items())
    for row, (terms, sense_of, limit) in spec["constraints"].items():
        lhs = pulp.lpSum(a * made[v] for v, a in terms.items())
        problem += pulp.LpConstraint(lhs, SENSES[sense_of], row, rhs.get(row, limit))
    for var, value in fix.items():
        problem += made[var] == value, f"fix_{var}"
    return problem


def _solve(problem: Any, name: str) -> tuple[float | None, dict[str, float]]:
    """(objective or None when infeasible, values) of an independent solve."""
    problem.solve(solver(name))
    if problem.status == pulp.LpStatusInfeasible:
        return None, {}
    assert problem.status == pulp.LpStatusOptimal
    values = {v.name: float(v.varValue or 0.0) for v in problem.variables()}
    return float(pulp.value(problem.objective)), values


def _graph(name: str, solver_name: str, resolves: int | None = None) -> EvidenceGraph:
    return graph_from_problem(solve_problem(_model(name), solver_name), resolves=resolves)


def _number(text: str) -> float:
    return float(re.sub(r"[^0-9.\-]", "", text))


def _nodes(graph: EvidenceGraph, node_type: str) -> list[Any]:
    return [n for n in graph.model.nodes if n.type == node_type]


HIGHS = pytest.mark.skipif(
    importlib.util.find_spec("highspy") is None, reason="highspy is not installed"
)
CASES = [
    pytest.param(
        name, solver_name, id=f"{name}-{solver_name}", marks=[HIGHS] * (solver_name == "highs")
    )
    for name in SPEC
    for solver_name in ("cbc", "highs")
]


@pytest.mark.parametrize(("name", "solver_name"), CASES)
def test_the_expected_statements_are_made_and_each_verifies(name: str, solver_name: str) -> None:
    graph = _graph(name, solver_name)
    found = {n.type for n in graph.model.nodes if n.type in LIMIT_TYPES}
    assert set(SPEC[name]["expect"]) <= found
    stated = [n for n in graph.model.nodes if n.type in LIMIT_TYPES]
    claims = [claim_of(graph, n.id) | {"id": f"c{i}"} for i, n in enumerate(stated)]
    report = verify(graph, {"claims": claims}, profile="strict")
    assert [v.id for v in report.claims if not v.passed] == []
    for node in stated:
        ways = ("by HiGHS ranging", "by re-solving the model", "by its shadow price times its")
        assert any(way in node.statement for way in ways)


def _off(value: float) -> float:
    """A step just outside a range end."""
    return max(0.05, 0.01 * abs(value))


@pytest.mark.parametrize(("name", "solver_name"), CASES)
def test_each_shadow_range_holds_inside_and_not_just_outside(name: str, solver_name: str) -> None:
    graph = _graph(name, solver_name)
    base, _ = _solve(_model(name), solver_name)
    assert base is not None
    for node in _nodes(graph, "SHADOW_RANGE"):
        row, dual = node.data["constraint"], node.data["dual"]
        limit = SPEC[name]["constraints"][row][2]
        true_low, true_high = node.data["rhs_range"]
        for end, true_end, outward in (("low", true_low, -1), ("high", true_high, 1)):
            if end not in node.slots:
                assert true_end is None
                continue
            stated = _number(node.slots[end])
            assert (stated - true_end) * outward <= 1e-9 and abs(stated - true_end) <= 0.01
            inside, _ = _solve(_model(name, rhs={row: stated}), solver_name)
            assert inside == pytest.approx(base + dual * (stated - limit), abs=1e-6)
            beyond = true_end + outward * _off(true_end)
            outside, _ = _solve(_model(name, rhs={row: beyond}), solver_name)
            assert outside is None or abs(outside - (base + dual * (beyond - limit))) > 1e-6


@pytest.mark.parametrize(("name", "solver_name"), CASES)
def test_each_cost_range_keeps_the_plan_inside_and_not_just_outside(
    name: str, solver_name: str
) -> None:
    graph = _graph(name, solver_name)
    base, values = _solve(_model(name), solver_name)
    assert base is not None
    for node in _nodes(graph, "COST_RANGE"):
        var, cost = node.data["variable"], node.data["cost"]
        true_low, true_high = node.data["cost_range"]
        for end, true_end, outward in (("low", true_low, -1), ("high", true_high, 1)):
            if end not in node.slots:
                assert true_end is None
                continue
            stated = _number(node.slots[end])
            assert (stated - true_end) * outward <= 1e-9 and abs(stated - true_end) <= 0.01
            inside, _ = _solve(_model(name, cost={var: stated}), solver_name)
            assert inside == pytest.approx(base + (stated - cost) * values[var], abs=1e-6)
            beyond = true_end + outward * _off(true_end)
            outside, moved = _solve(_model(name, cost={var: beyond}), solver_name)
            predicted = base + (beyond - cost) * values[var]
            assert outside is not None
            assert abs(moved[var] - values[var]) > 1e-6 or abs(outside - predicted) > 1e-6


def _slope(name: str, row: str, solver_name: str, base: float) -> float:
    limit = SPEC[name]["constraints"][row][2]
    step = 1e-3 * max(1.0, abs(limit))
    moved, _ = _solve(_model(name, rhs={row: limit + step}), solver_name)
    assert moved is not None
    return (moved - base) / step


@pytest.mark.parametrize(("name", "solver_name"), CASES)
def test_the_top_limit_is_worth_most_per_percent_by_re_solving(name: str, solver_name: str) -> None:
    graph = _graph(name, solver_name)
    tops = _nodes(graph, "TOP_LIMIT")
    if "TOP_LIMIT" not in SPEC[name]["expect"]:
        assert tops == []
        return
    (top,) = tops
    base, _ = _solve(_model(name), solver_name)
    assert base is not None
    priced = [n.data["constraint"] for n in _nodes(graph, "SHADOW_RANGE")]
    worth = {
        row: abs(_slope(name, row, solver_name, base) * SPEC[name]["constraints"][row][2]) / 100
        for row in priced
    }
    assert max(worth, key=lambda row: worth[row]) == top.data["constraint"]
    assert _number(top.slots["amount"]) == pytest.approx(worth[top.data["constraint"]], abs=0.005)


@pytest.mark.parametrize(("name", "solver_name"), CASES)
def test_each_worth_and_runner_up_matches_an_independent_re_solve(
    name: str, solver_name: str
) -> None:
    graph = _graph(name, solver_name)
    base, _ = _solve(_model(name), solver_name)
    assert base is not None
    for node in _nodes(graph, "LIMIT_WORTH"):
        row, new = node.data["constraint"], node.data["new_rhs"]
        limit = SPEC[name]["constraints"][row][2]
        assert new == limit + (1 if 1 <= abs(limit) < 1000 or limit == 0 else abs(limit) / 10)
        moved, _ = _solve(_model(name, rhs={row: new}), solver_name)
        if moved is None:
            assert node.template == "worth_infeasible"
            continue
        assert node.data["difference"] == pytest.approx(moved - base, abs=1e-6)
        if "diff" in node.slots:
            assert _number(node.slots["diff"]) == pytest.approx(abs(moved - base), abs=0.005)
    for node in _nodes(graph, "RUNNER_UP"):
        var, fixed = node.data["variable"], node.data["fixed_to"]
        other, _ = _solve(_model(name, fix={var: fixed}), solver_name)
        if other is None:
            assert node.template.endswith("_infeasible")
            continue
        assert node.data["objective"] == pytest.approx(other, abs=1e-6)
        assert _number(node.slots["value"]) == pytest.approx(other, abs=0.005)
    if SPEC[name]["expect"] == ["LIMIT_WORTH", "RUNNER_UP"]:
        assert _nodes(graph, "RUNNER_UP") and _nodes(graph, "LIMIT_WORTH")


@pytest.mark.parametrize("cap", [0, 1, 3])
def test_re_solves_stop_at_the_cap_and_say_so(cap: int) -> None:
    graph = _graph("capital_budget", "cbc", resolves=cap)
    stated = len(_nodes(graph, "LIMIT_WORTH")) + len(_nodes(graph, "RUNNER_UP"))
    tasks = 2 + 5  # two binding limits, five choices
    assert stated == max(0, cap - 1)
    notes = _nodes(graph, "RESOLVE_NOTE")
    if cap == 0:
        assert notes == []  # nothing re-solved at all: no worth is claimed
        return
    (note,) = notes
    assert note.data == {"cap": cap, "skipped": tasks - stated, "total": tasks}


def test_the_example_production_plan_states_its_ranges() -> None:
    from tests.backends.lp.examples import example_graph

    graph = example_graph("production_plan")
    assert {n.type for n in graph.model.nodes} >= {"SHADOW_RANGE", "COST_RANGE", "TOP_LIMIT"}
    assert graph.nodes["range:hours_austin"].statement == (
        "The shadow price of $8.47 per unit on the limit of machine time at the Austin plant "
        "holds while that limit stays between 165 hours and 221.25 hours, by HiGHS ranging."
    )

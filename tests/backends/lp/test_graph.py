"""The pulp backend's graphs: both examples on CBC and HiGHS, every statement verified,
sensitivities checked by re-solving, and every status a solve can end in."""

from __future__ import annotations

import json
from typing import Any

import pulp
import pytest

from tests.backends.lp.examples import MODELS, SOLVER_PARAMS, claim_of, example_graph, solved
from verity import EvidenceGraph, verify
from verity.backends._pulp_support import constraints_of, variable
from verity.backends.pulp import (
    LpBackendError,
    facts_of,
    graph_from_problem,
    load_labels,
    read_model,
    solve_problem,
)
from verity.text.segment import split_sentences


def _types(graph: EvidenceGraph) -> dict[str, int]:
    counts: dict[str, int] = {}
    for node in graph.model.nodes:
        counts[node.type] = counts.get(node.type, 0) + 1
    return counts


@pytest.mark.parametrize("solver", SOLVER_PARAMS)
@pytest.mark.parametrize("name", sorted(MODELS))
def test_every_statement_verifies_as_its_own_claim(name: str, solver: str) -> None:
    graph = example_graph(name, solver)
    claims = [claim_of(graph, n.id) | {"id": f"c{i}"} for i, n in enumerate(graph.model.nodes)]
    report = verify(graph, {"claims": claims}, profile="strict")
    assert [v.id for v in report.claims if not v.passed] == []
    for node in graph.model.nodes:
        assert split_sentences(node.statement, graph.matcher) == [node.statement]


@pytest.mark.parametrize("name", sorted(MODELS))
def test_cbc_and_highs_give_one_graph_but_for_the_solver(name: str) -> None:
    pytest.importorskip("highspy", reason="highspy is not installed (verity-evidence[highs])")
    cbc, highs = example_graph(name, "cbc").to_dict(), example_graph(name, "highs").to_dict()
    assert cbc.pop("backend").endswith("solved with CBC (pulp)")
    assert highs.pop("backend").endswith("solved with HiGHS (pulp)")
    assert cbc["nodes"][0]["data"].pop("solver") == "CBC"
    assert highs["nodes"][0]["data"].pop("solver") == "HiGHS"
    for graph in (cbc, highs):  # the solvers' own floating point noise
        for node in graph["nodes"]:
            node["data"] = {k: v for k, v in node["data"].items() if not isinstance(v, float)}
    assert json.dumps(cbc) == json.dumps(highs)


def test_the_production_plan() -> None:
    graph = example_graph("production_plan")
    assert graph.backend == "a linear program solved with CBC (pulp)"
    assert graph.graph_id == "production-plan" and graph.domain == "production"
    assert _types(graph) == {
        "RESULT": 1,
        "DECISION": 5,
        "BINDING_CONSTRAINT": 4,
        "CONSTRAINT_SLACK": 2,
        "BOUND": 1,
        "SHADOW_PRICE": 4,
        "REDUCED_COST": 2,
        "SHADOW_RANGE": 4,
        "COST_RANGE": 2,
        "TOP_LIMIT": 1,
    }
    result = graph.nodes["result"]
    assert (
        result.statement == ("The optimal profit is $3,556.00, with 5 decisions in the plan.")
        and result.headline
    )
    assert [n.id for n in graph.model.nodes if n.headline] == ["result"]
    statements = {n.id: n.statement for n in graph.model.nodes}
    assert statements["decision:make_boise_tables"] == (
        "The plan sets tables made at the Boise plant to 16 units."
    )
    assert statements["constraint:hours_boise"] == (
        "The upper limit of 100 hours on machine time at the Boise plant binds."
    )
    assert statements["constraint:sales_chairs"] == (
        "The plan keeps sales of chairs 3 units below the upper limit of 40 units."
    )
    assert statements["shadow_price:sales_desks"] == (
        "At the margin, each unit added to the limit of sales of desks raises profit by $19.20."
    )
    assert statements["reduced_cost:make_boise_desks"] == (
        "At the margin, each unit of desks made at the Boise plant forced into the plan "
        "lowers profit by $18.53."
    )
    assert "make_boise_desks" not in " ".join(
        n.id for n in graph.model.nodes if n.type == "DECISION"
    )
    assert (
        graph.display_name("austin") == "the Austin plant" and graph.aliases["austin"] == "austin"
    )
    assert statements["bound:make_austin_chairs"] == (
        "The plan puts chairs made at the Austin plant at the upper bound."
    )  # its 25 units are the decision's
    salience = {n.id: n.salience for n in graph.model.nodes}
    assert salience["decision:make_austin_desks"] == 3.9  # the plan's largest: 70 x 15 units
    assert salience["constraint:sales_chairs"] is None


def test_the_staff_schedule() -> None:
    graph = example_graph("staff_schedule")
    assert graph.backend == "a mixed-integer program solved with CBC (pulp)"
    assert _types(graph) == {
        "RESULT": 1,
        "DECISION": 9,
        "BINDING_CONSTRAINT": 9,
        "CONSTRAINT_SLACK": 1,
        "SENSITIVITY_NOTE": 1,
        "LIMIT_WORTH": 9,
        "RUNNER_UP": 10,
        "RESOLVE_NOTE": 1,
    }
    assert graph.nodes["result"].statement == (
        "The optimal wage cost is $1,020.00, with 9 decisions in the plan."
    )
    assert graph.nodes["decision:x_ada_mon_night"].statement == (
        "The plan includes Ada on the Monday night shift."
    )
    assert graph.nodes["sensitivity"].statement.startswith("The model has integer variables")
    chosen = "The plan includes Ada on the Monday night shift and Ada on the Tuesday night shift."
    claim = claim_of(graph, "decision:x_ada_mon_night", chosen)
    claim["cited_evidence_ids"] = ["decision:x_ada_mon_night", "decision:x_ada_tue_night"]
    claim["entities"] = ["ada", "mon_night", "tue_night"]
    assert verify(graph, {"claims": [claim]}).summary.all_claims_verified  # coordinable


def _objective_with(name: str, change: Any) -> float:
    problem = read_model(MODELS[name][0])
    change(problem)
    solve_problem(problem)
    assert problem.status == pulp.LpStatusOptimal
    return float(pulp.value(problem.objective))


def _number(text: str) -> float:
    return float(text.replace("$", "").replace(",", ""))


@pytest.mark.parametrize("delta", [0.01, -0.01])
def test_shadow_prices_and_reduced_costs_are_what_re_solving_shows(delta: float) -> None:
    graph = example_graph("production_plan")
    base = float(graph.nodes["result"].data["objective"])
    checked = 0
    for node in graph.model.nodes:
        if node.type == "SHADOW_PRICE":
            name = node.data["constraint"]

            def relax(problem: Any, name: str = name) -> None:
                found = next(c for c in constraints_of(problem) if c.name == name)
                found.constant -= delta  # rhs + delta

            slope = (_objective_with("production_plan", relax) - base) / delta
            value = _number(node.numbers[0]) * (1 if "raises" in node.statement else -1)
        elif node.type == "REDUCED_COST":
            name = node.data["variable"]
            at_upper = "below its upper bound" in node.statement
            step = -abs(delta) if at_upper else abs(delta)

            def force(problem: Any, name: str = name, step: float = step) -> None:
                var = next(v for v in problem.variables() if v.name == name)
                fixed = (var.upBound if step < 0 else var.lowBound or 0) + step
                var.lowBound = var.upBound = fixed

            slope = (_objective_with("production_plan", force) - base) / abs(step)
            value = _number(node.numbers[0]) * (1 if "raises" in node.statement else -1)
        else:
            continue
        assert abs(slope - value) < 0.01, (node.id, slope, value)
        checked += 1
    assert checked == 6


def _tiny(sense: int, *, integer: bool = False) -> Any:
    problem = pulp.LpProblem("tiny", sense)
    kind = pulp.LpInteger if integer else pulp.LpContinuous
    x = variable(problem, "x", 0, None, kind)
    y = variable(problem, "y", 0, None, kind)
    problem += 3 * x + 2 * y
    problem += x + y <= 4, "total"
    problem += x + 3 * y <= 7, "mix"
    problem += x <= 3, "cap_x"
    return problem


def test_a_problem_built_in_python() -> None:
    problem = solve_problem(_tiny(pulp.LpMaximize))
    graph = graph_from_problem(problem, {"objective": {"name": "score"}})
    assert (
        graph.nodes["result"].statement == "The optimal score is 11, with 2 decisions in the plan."
    )
    assert graph.graph_id == "lp-tiny" and graph.domain == "optimization"
    assert graph.nodes["decision:x"].statement == "The plan sets x to 3."
    assert graph.entities["x"].kind == "variable"


def test_a_degenerate_solution_states_no_sensitivity() -> None:
    problem = _tiny(pulp.LpMaximize)
    problem += 2 * problem.variables()[0] + problem.variables()[1] <= 7, "redundant_at_optimum"
    graph = graph_from_problem(solve_problem(problem))
    assert facts_of(problem).sensitivity == "degenerate"
    assert graph.nodes["sensitivity"].statement.startswith("The solution is degenerate")
    assert not [n for n in graph.model.nodes if n.type in ("SHADOW_PRICE", "REDUCED_COST")]


def test_duals_of_an_unknown_solver_or_that_do_not_check_out_are_not_stated() -> None:
    problem = solve_problem(_tiny(pulp.LpMaximize))
    assert facts_of(problem).sensitivity == "reported"

    class Mystery:
        pass

    problem.solver = Mystery()
    assert facts_of(problem).sensitivity == "unchecked"
    problem = solve_problem(_tiny(pulp.LpMaximize))
    for constraint in constraints_of(problem):
        constraint.pi = -(constraint.pi or 0) - 1  # a convention the checks refuse
    graph = graph_from_problem(problem)
    assert graph.nodes["sensitivity"].statement.startswith("The solver's shadow prices")


def test_integer_feasible_is_not_called_optimal() -> None:
    problem = solve_problem(_tiny(pulp.LpMaximize, integer=True))
    problem.sol_status = pulp.LpSolutionIntegerFeasible
    node = graph_from_problem(problem).nodes["result"]
    assert node.statement == (
        "The best objective value found, not proven optimal, is 11, with 2 decisions in the plan."
    )
    assert "not proven optimal" in node.required_spans


def test_infeasible_and_unbounded_models() -> None:
    problem = _tiny(pulp.LpMaximize)
    problem += problem.variables()[0] >= 5, "too_much"
    graph = graph_from_problem(solve_problem(problem))
    assert [n.id for n in graph.model.nodes] == ["result"]
    assert graph.nodes["result"].statement == (
        "The model is infeasible: no plan meets every constraint."
    )
    unbounded = pulp.LpProblem("open", pulp.LpMaximize)
    x = variable(unbounded, "x", 0, None, pulp.LpContinuous)
    unbounded += x
    unbounded += x >= 1, "floor"
    node = graph_from_problem(solve_problem(unbounded), {"objective": {"name": "output"}})
    assert node.nodes["result"].statement == (
        "The model is unbounded: output can grow without limit."
    )


def test_an_unsolved_problem_is_refused() -> None:
    with pytest.raises(LpBackendError, match="has not been solved") as caught:
        graph_from_problem(_tiny(pulp.LpMaximize))
    assert caught.value.code == "status"


def test_labels_are_checked() -> None:
    labels = load_labels(MODELS["production_plan"][1])
    assert labels.objective.name == "profit"
    assert solved("production_plan").status == pulp.LpStatusOptimal


@pytest.mark.parametrize("name", sorted(MODELS))
def test_every_extractive_menu_item_passes_strict(name: str) -> None:
    from verity import menu_items

    graph = example_graph(name)
    items = menu_items(graph)
    assert len(items) >= len(graph.model.nodes)
    claims = [item.claim() | {"id": f"c{i}"} for i, item in enumerate(items)]
    report = verify(graph, {"claims": claims}, profile="strict")
    assert report.summary.passed == len(claims)

"""Re-solves bounded in time (``._worth``): a re-solve counts only when its solution is
proven optimal or the model proven infeasible.

The attack first: a hard 0-1 knapsack solved by CBC or HiGHS with a time limit comes back
with pulp's status "Optimal" for a solution only found, not proven (``sol_status`` says
so). Read by ``status`` alone, a re-solve stopped on time would state "the best plan
without X comes to ..." of a plan that is not the best. Real solvers, no fakes.
"""

from __future__ import annotations

import importlib.util
import time
from pathlib import Path
from typing import Any

import pulp
import pytest

from tests.backends.lp.examples import claim_of
from tests.helpers import FIXTURES, load_json
from verity import EvidenceGraph, verify
from verity.backends._pulp_support import solver, variable
from verity.backends.pulp import graph_from_problem, solve_problem
from verity.backends.pulp._worth import settled
from verity.cli.main import main
from verity.examples import examples_dir

SPEC: dict[str, Any] = load_json(FIXTURES / "lp" / "resolve_time.json")
KNAPSACK: dict[str, Any] = SPEC["knapsack"]
HIGHS = pytest.mark.skipif(
    importlib.util.find_spec("highspy") is None, reason="highspy is not installed"
)
CASES = [
    pytest.param(
        case["solver"],
        case["seconds"],
        id=f"{case['solver']}-{case['seconds']}s",
        marks=[HIGHS] * (case["solver"] == "highs"),
    )
    for case in SPEC["cases"]
]


def _knapsack(*, gated: bool = False, fix: dict[str, float] | None = None) -> Any:
    """The fixture's knapsack in plain pulp; ``gated``: behind the yes/no ``gate``."""
    problem = pulp.LpProblem("knapsack", pulp.LpMaximize)
    items = [variable(problem, f"x{i}", 0, 1, "Binary") for i in range(len(KNAPSACK["values"]))]
    value = pulp.lpSum(v * x for v, x in zip(KNAPSACK["values"], items, strict=True))
    if gated:
        gate = variable(problem, "gate", 0, 1, "Binary")
        problem += value + SPEC["gate_value"] * gate
        problem += pulp.lpSum(items) + len(items) * gate <= len(items), "gate_row"
    else:
        problem += value
    for k, (weights, cap) in enumerate(
        zip(KNAPSACK["weights"], KNAPSACK["capacities"], strict=True)
    ):
        problem += pulp.lpSum(w * x for w, x in zip(weights, items, strict=True)) <= cap, f"w{k}"
    for name, fixed in (fix or {}).items():
        problem += next(v for v in problem.variables() if v.name == name) == fixed, f"fix_{name}"
    return problem


@pytest.mark.parametrize(("solver_name", "seconds"), CASES)
def test_a_solve_stopped_on_time_reports_optimal_but_is_not_proven(
    solver_name: str, seconds: float
) -> None:
    problem = _knapsack()
    problem.solve(solver(solver_name, seconds))
    # pulp's status alone says "Optimal": what a re-solve read by status would state
    assert problem.status == pulp.LpStatusOptimal
    assert problem.sol_status != pulp.LpSolutionOptimal
    assert pulp.value(problem.objective) <= KNAPSACK["optimum"]
    assert settled(problem) == "stopped"


@pytest.mark.parametrize(("solver_name", "seconds"), CASES)
def test_a_proven_optimum_and_a_proven_infeasible_model_count(
    solver_name: str, seconds: float
) -> None:
    easy = _knapsack(gated=True)  # proven at the root: the gate beats every item set
    easy.solve(solver(solver_name, seconds))
    assert settled(easy) == "optimal"
    assert pulp.value(easy.objective) == pytest.approx(SPEC["gate_value"])
    none = _knapsack(gated=True, fix={"gate": 1, "x0": 1})  # the gate excludes every item
    none.solve(solver(solver_name, seconds))
    assert settled(none) == "infeasible"


def _gated_graph(solver_name: str, **kw: Any) -> EvidenceGraph:
    return graph_from_problem(solve_problem(_knapsack(gated=True), solver_name), **kw)


def _nodes(graph: EvidenceGraph, node_type: str) -> list[Any]:
    return [n for n in graph.model.nodes if n.type == node_type]


@pytest.mark.parametrize("cap", SPEC["caps"])
@pytest.mark.parametrize(("solver_name", "seconds"), CASES)
def test_re_solves_cut_by_the_time_limit_state_nothing_and_the_note_counts_them(
    solver_name: str, seconds: float, cap: int
) -> None:
    started = time.monotonic()
    graph = _gated_graph(solver_name, resolves=cap, resolve_seconds=seconds)
    assert time.monotonic() - started < 30  # unbounded, these re-solves take minutes
    # the tasks in order: the binding gate row, the gate (in the plan), then x0, x1, ...:
    # raising the gate row is easy; the gate out or an item in is the hard knapsack
    worth = _nodes(graph, "LIMIT_WORTH")
    runners = _nodes(graph, "RUNNER_UP")
    assert [n.data["constraint"] for n in worth] == ["gate_row"]
    (note,) = [n for n in _nodes(graph, "RESOLVE_NOTE") if n.id == "resolve_time"]
    attempted = cap - 1  # the first re-solve is of the model as it is
    assert note.data["cut"] == attempted - len(worth) - len(runners)
    assert note.data["cut"] >= 1 and note.data["seconds"] == seconds
    assert note.data["total"] == attempted
    assert "not stated" in note.statement
    # what is stated was proven: each runner-up matches an independent solve, no limit
    for node in runners:
        other = _knapsack(gated=True, fix={node.data["variable"]: node.data["fixed_to"]})
        other.solve(solver(solver_name))
        assert settled(other) == "optimal"
        assert node.data["objective"] == pytest.approx(pulp.value(other.objective), abs=1e-6)
    stated = [*worth, *runners, *_nodes(graph, "RESOLVE_NOTE")]
    claims = [claim_of(graph, n.id) | {"id": f"c{i}"} for i, n in enumerate(stated)]
    report = verify(graph, {"claims": claims}, profile="strict")
    assert [v.id for v in report.claims if not v.passed] == []


def test_when_the_model_as_it_is_is_cut_nothing_is_stated() -> None:
    # the plain knapsack, solved to its proven optimum; its own re-solve is the hard one
    problem = solve_problem(_knapsack(), "cbc")
    assert pulp.value(problem.objective) == pytest.approx(KNAPSACK["optimum"])
    graph = graph_from_problem(problem, resolve_seconds=SPEC["cases"][0]["seconds"])
    assert _nodes(graph, "LIMIT_WORTH") == [] and _nodes(graph, "RUNNER_UP") == []
    (note,) = _nodes(graph, "RESOLVE_NOTE")
    assert note.template == "resolve_time_base" and note.data["model_as_is"] is True
    total = sum(1 for n in _nodes(graph, "BINDING_CONSTRAINT")) + len(KNAPSACK["values"])
    assert note.data["total"] == total
    assert note.statement.endswith(f"the worth of its {total} limits and choices is not stated.")


def test_the_default_limit_leaves_a_quick_model_s_statements_as_they_were() -> None:
    unlimited = _gated_graph("cbc", resolves=2, resolve_seconds=None)
    default = _gated_graph("cbc", resolves=2)
    assert default.dumps() == unlimited.dumps()
    assert [n.type for n in _nodes(default, "RESOLVE_NOTE")] == ["RESOLVE_NOTE"]  # the cap's


@pytest.mark.parametrize("bad", [0, -1.0, float("nan"), float("inf"), True, "10"])
def test_a_bad_time_limit_is_an_error(bad: Any) -> None:
    from verity.errors import InputError

    with pytest.raises(InputError, match="resolve_seconds"):
        _gated_graph("cbc", resolve_seconds=bad)


@pytest.mark.parametrize("bad", ["0", "-1", "nan", "inf", "ten", ""])
def test_cli_a_bad_resolve_seconds_is_a_one_line_error(
    bad: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = examples_dir() / "staff_schedule.mps"
    out = tmp_path / "graph.json"
    assert main(["graph-from-lp", str(model), f"--resolve-seconds={bad}", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert (
        err == f"verity: error: --resolve-seconds must be a number of seconds above 0, not {bad!r}"
    )
    assert not out.exists()


def test_cli_resolve_seconds_reaches_the_re_solves(tmp_path: Path) -> None:
    path = tmp_path / "knapsack.lp"
    _knapsack(gated=True).writeLP(str(path))
    out = tmp_path / "graph.json"
    assert main(["graph-from-lp", str(path), "--resolve-seconds", "0.05", "--out", str(out)]) == 0
    notes = [n for n in load_json(out)["nodes"] if n["type"] == "RESOLVE_NOTE"]
    assert "resolve_time" in {n["id"] for n in notes}

"""What-if by re-solving (``tests/fixtures/lp/whatif.json``): the graph of a change states
the objective before and after, the decisions that changed and the constraints that became
or stopped being binding, and each of its numbers is what an independent solve of the model
built with the change gives; the caller's problem is left as it was; a narration of the
graph is verified like any other (true claims ship, a swapped or wrong number is refused);
the command line answers 0 on a model file and 2, in one line, on a bad ``--set``."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from itertools import combinations
from pathlib import Path
from typing import Any

import pulp
import pytest

from tests.backends.lp.examples import MODELS, SOLVER_PARAMS, claim_of
from tests.core.test_declared_variation import _render, undeclared_deletions_checked
from tests.helpers import FIXTURES, load_json
from verity import EvidenceGraph, format_number, load_graph, verify, what_if
from verity.backends._pulp_support import variable
from verity.backends.pulp import LpBackendError, facts_of, read_model, solve_problem
from verity.backends.pulp._graph import singular
from verity.backends.pulp._whatif_templates import COORDINABLE
from verity.backends.pulp.whatif import RULES
from verity.cli.main import main
from verity.core.graph import entity_scan
from verity.text.numbers import find_numbers, number_value
from verity.text.variation import sentence_key, support_sentence

SPEC: dict[str, Any] = load_json(FIXTURES / "lp" / "whatif.json")
CASES = {c["id"]: c for c in SPEC["cases"]}
_SENSE = {"<=": pulp.LpConstraintLE, ">=": pulp.LpConstraintGE, "=": pulp.LpConstraintEQ}


def _changed(spec: Mapping[str, Any], changes: Mapping[str, float]) -> dict[str, Any]:
    """The model spec with the changes written into it (independently of the backend)."""
    out: dict[str, Any] = json.loads(json.dumps(spec))
    for name, value in changes.items():
        head, _, tail = name.rpartition(".")
        rows = [c for c in _named(out["constraints"]) if c["name"] == name]
        if rows:
            rows[0]["rhs"] = value
        elif head == "obj":
            next(v for v in out["variables"] if v["name"] == tail)["cost"] = value
        else:
            found = next(v for v in out["variables"] if v["name"] == head)
            found[tail] = value
    return out


def _named(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows, an unnamed one under the name pulp gives it (``_C1``, ``_C2``, ...)."""
    count = 0
    for row in rows:
        if row["name"] is None:
            count += 1
            row["name"] = f"_C{count}"
    return rows


def _problem(spec: Mapping[str, Any]) -> Any:
    sense = pulp.LpMaximize if spec["sense"] == "max" else pulp.LpMinimize
    problem = pulp.LpProblem("model", sense)
    made = {}
    for v in spec["variables"]:
        cat = v.get("cat", "Continuous")
        low = v.get("low", 0)
        up = v.get("up", 1 if cat == "Binary" else None)
        kind = pulp.LpInteger if cat in ("Binary", "Integer") else pulp.LpContinuous
        made[v["name"]] = variable(problem, v["name"], low, up, kind)
    problem += pulp.lpSum(v["cost"] * made[v["name"]] for v in spec["variables"])
    for c in spec["constraints"]:
        expr = pulp.lpSum(k * made[n] for n, k in c["terms"].items())
        problem += pulp.LpConstraint(expr, _SENSE[c["sense"]], rhs=c["rhs"], name=c["name"])
    return problem


def _independent(spec: Mapping[str, Any], solver: str) -> Any:
    return facts_of(solve_problem(_problem(spec), solver))


def _nodes(graph: EvidenceGraph, node_type: str) -> dict[str, Any]:
    return {n.id.split(":", 1)[1]: n for n in graph.model.nodes if n.type == node_type}


def _money(value: float) -> str:
    return format_number(value, "money")


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-6 * max(1.0, abs(b))


@pytest.mark.parametrize("solver", SOLVER_PARAMS)
@pytest.mark.parametrize("case_id", list(CASES))
def test_every_number_matches_an_independent_solve(case_id: str, solver: str) -> None:
    case = CASES[case_id]
    spec = SPEC["models"][case["model"]]
    problem = _problem(spec)
    graph = what_if(problem, case["changes"], labels=spec["labels"], solver=solver)
    assert problem.status == pulp.LpStatusNotSolved  # the caller's problem is untouched
    before = _independent(spec, solver)
    after = _independent(_changed(spec, case["changes"]), solver)
    result = graph.nodes["result"]
    assert result.headline and result.data["status_after"] == after.status == case["status"]
    if case["headline"] is not None:
        assert result.template == case["headline"]
    assert _close(result.data["objective_before"], before.objective)
    for node in graph.model.nodes:
        assert node.statement.startswith("Re-solving with "), node.statement
    if after.status != "optimal":
        assert set(graph.nodes) == {"result"}
        said = {"infeasible": "finds no feasible plan", "unbounded": "makes the model unbounded"}
        assert said[after.status] in result.statement
        assert f"without the change, the optimal {result.slots['objective']} is " in (
            result.statement
        )
        return
    assert _close(result.data["objective_after"], after.objective)
    old_money, new_money = _money(before.objective), _money(after.objective)
    if result.template == "whatif_objective_same":
        assert old_money == new_money and f"at {old_money}" in result.statement
    else:
        difference = _money(abs(after.objective - before.objective))
        assert f"from {old_money} to {new_money}, by {difference}." in result.statement
    # each decision node matches both solves, and each decision that moved has one
    decisions = _nodes(graph, "WHATIF_DECISION")
    old = {v.name: v.value for v in before.variables}
    new = {v.name: v.value for v in after.variables}
    moved = {n for n in old if round(old[n], 2) != round(new[n], 2)}
    assert set(decisions) == moved
    for name, node in decisions.items():
        assert _close(node.data["before"], old[name]) and _close(node.data["after"], new[name])
    if case["decisions"] is not None:
        assert sorted(decisions) == sorted(case["decisions"])
    # each constraint node is a row whose binding changed between the two solves
    rows = _nodes(graph, "WHATIF_CONSTRAINT")
    was = {c.name: c.binding for c in before.constraints}
    now = {c.name: c for c in after.constraints}
    flipped = {n for n in was if was[n] != now[n].binding and now[n].sense != "="}
    assert set(rows) == flipped
    for name, node in rows.items():
        assert node.data["binding_after"] == now[name].binding
        assert node.template.startswith("whatif_binds" if now[name].binding else "whatif_frees")
    if case["constraints"] is not None:
        assert sorted(rows) == sorted(case["constraints"])


def _claim(graph: EvidenceGraph, cite: list[str], text: str) -> dict[str, Any]:
    """A hand-written claim declaring the entities and numbers its text mentions."""
    first = graph.nodes[cite[0]]
    rule = next(r for r in graph.model.rules if first.type in r.requires[0].any_of)
    stated = {number_value(n): n for c in cite for n in graph.nodes[c].numbers}
    found = find_numbers(entity_scan(text, graph.matcher)[1])
    return {
        "id": "c1",
        "type": rule.claim_type,
        "text": text,
        "cited_evidence_ids": cite,
        "entities": list(dict.fromkeys(m.entity_id for m in graph.matcher.mentions(text))),
        "numbers": list(dict.fromkeys(stated[m.value] for m in found if m.value in stated)),
    }


def _narrated_graph() -> EvidenceGraph:
    return _case_graph(SPEC["narration"]["case"])


#: (case, claim) of the hand-written narrations: a changed limit, and a removed bound.
NARRATED = [
    (block["case"], claim)
    for block in (SPEC["narration"], SPEC["removal_narration"])
    for claim in block["claims"]
]


@pytest.mark.parametrize(
    ("case_id", "claim"), NARRATED, ids=[f"{c['expect']}:{c['why']}" for _, c in NARRATED]
)
def test_a_hand_written_narration_is_verified_like_any(case_id: str, claim: dict[str, Any]) -> None:
    graph = _case_graph(case_id)
    report = verify(graph, {"claims": [_claim(graph, claim["cite"], claim["text"])]})
    assert report.summary.all_claims_verified == (claim["expect"] == "accepted"), (
        claim["why"],
        [e.code for e in report.claims[0].errors],
    )


def test_the_verify_command_ships_the_true_claims_of_a_what_if_graph(tmp_path: Path) -> None:
    graph = _narrated_graph()
    claims = SPEC["narration"]["claims"]
    made = [_claim(graph, c["cite"], c["text"]) for c in claims]
    for n, claim in enumerate(made):
        claim["id"] = f"c{n + 1}"
    graph_file = tmp_path / "graph.json"
    graph_file.write_text(graph.dumps(), encoding="utf-8")
    true = tmp_path / "true.json"
    true.write_text(
        json.dumps(
            {"claims": [m for m, c in zip(made, claims, strict=True) if c["expect"] == "accepted"]}
        ),
        encoding="utf-8",
    )
    mixed = tmp_path / "mixed.json"
    mixed.write_text(json.dumps({"claims": made}), encoding="utf-8")
    assert main(["verify", str(graph_file), str(true)]) == 0
    assert main(["verify", str(graph_file), str(mixed)]) == 1
    assert load_graph(graph_file).graph_id.endswith("-what-if")


def test_every_template_declares_the_change_a_condition() -> None:
    graph = _narrated_graph()
    for tid, (canonical, *_variants) in graph.templates.items():
        assert graph.declared("result").slot_kinds.get("change") == "condition"
        assert tid.startswith("whatif_"), canonical
    assert [r.claim_type for r in graph.model.rules] == [c for c, _ in RULES]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"demand_nort": 1}, "'demand_nort' names no constraint, bound"),
        ({"ship_east_north.upper": 1}, "closest: 'ship_east_north.up'"),
        ({"demand_north": "many"}, "must be a number"),
        ({"demand_north": float("nan")}, "must be finite"),
        ({}, "no change given"),
    ],
)
def test_a_bad_change_is_a_one_line_error(changes: dict[str, Any], message: str) -> None:
    spec = SPEC["models"]["transport"]
    with pytest.raises(LpBackendError, match=message) as caught:
        what_if(_problem(spec), changes)
    assert "\n" not in str(caught.value) and caught.value.code == "change"


def test_the_command_line_re_solves_a_model_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model, labels = MODELS["production_plan"]
    out = tmp_path / "what-if.json"
    args = ["what-if", str(model), "--set", "hours_austin=250", "--labels", str(labels)]
    assert main([*args, "--out", str(out)]) == 0
    graph = load_graph(out)
    direct = what_if(read_model(model), {"hours_austin": 250}, labels=labels)
    assert graph.dumps() == direct.dumps()
    assert graph.nodes["result"].statement.startswith(
        "Re-solving with an upper limit of 250 hours on machine time at the Austin plant "
        "raises the optimal profit from $3,556.00 to"
    )
    capsys.readouterr()
    for bad, message in [
        ("hours_austn=250", "closest: 'hours_austin'"),
        ("hours_austin", "--set expects NAME=VALUE"),
        ("hours_austin=lots", "is not a number"),
    ]:
        assert main(["what-if", str(model), "--set", bad, "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and message in err, err


def _case_graph(case_id: str) -> EvidenceGraph:
    case = CASES[case_id]
    spec = SPEC["models"][case["model"]]
    return what_if(_problem(spec), case["changes"], labels=spec["labels"])


@pytest.mark.parametrize("case_id", list(CASES))
def test_a_unit_after_exactly_1_is_singular(case_id: str) -> None:
    """'from 4 batches to 1 batch', 'an upper bound of 1 crew', 'a lower limit of 1 batch':
    in every statement, each labelled unit written after the value 1 is its singular."""
    graph = _case_graph(case_id)
    spec = SPEC["models"][CASES[case_id]["model"]]
    labels = [
        label
        for kind in ("variables", "constraints")
        for label in spec["labels"].get(kind, {}).values()
    ]
    units = {label["unit"] for label in labels if label.get("unit")}
    plurals = {unit for unit in units if singular(unit) != unit}
    assert plurals or not units
    for node in graph.model.nodes:
        for unit in plurals:
            found = re.search(rf"(?<![\d.,])\b1 {re.escape(unit)}\b", node.statement)
            assert found is None, node.statement


@pytest.mark.parametrize("case_id", list(CASES))
def test_every_undeclared_deletion_of_a_what_if_statement_is_refused(case_id: str) -> None:
    """The exhaustive deletion check of tests/core/test_declared_variation.py, over the
    what-if templates (every node of every fixture case)."""
    assert undeclared_deletions_checked(_case_graph(case_id)) > 0


def test_only_a_choice_coordinates_across_what_if_facts() -> None:
    """Over every pair of nodes of one template in every fixture case: ``drops A and B from
    the plan`` is accepted (one slot differs, a coordinable one), a coordination of any
    other slot, or of nodes differing in more than one slot, is refused."""
    refused = accepted = 0
    for case_id in CASES:
        graph = _case_graph(case_id)
        by_template: dict[str, list[str]] = {}
        for node in graph.model.nodes:
            by_template.setdefault(str(node.template), []).append(node.id)
        for ids in by_template.values():
            for a, b in combinations(ids, 2):
                slots_a, slots_b = graph.nodes[a].slots, graph.nodes[b].slots
                cited = [(a, graph.declared(a)), (b, graph.declared(b))]
                differ = [s for s in slots_a if slots_a[s] != slots_b[s]]
                for slot in differ:
                    text = _render(graph, a, slot, f"{slots_a[slot]} and {slots_b[slot]}")
                    key = sentence_key(text, graph.matcher)
                    verdict = support_sentence(key, cited, graph.matcher)
                    if len(differ) == 1 and slot in COORDINABLE.get(
                        str(graph.nodes[a].template), ()
                    ):
                        assert verdict.supporters, text
                        accepted += 1
                    else:
                        assert not verdict.supporters, text
                        refused += 1
    assert refused > 0 and accepted > 0


def test_narrate_verifies_a_what_if_graph_like_any(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    graph_file = tmp_path / "graph.json"
    graph_file.write_text(_narrated_graph().dumps(), encoding="utf-8")
    status = main(["narrate", str(graph_file), "--narrator", "scripted", "--quiet"])
    out = capsys.readouterr().out
    assert status in (0, 1) and "PASS c1 [RESULT] Re-solving with " in out, out


REMOVALS = [c["id"] for c in SPEC["cases"] if None in c["changes"].values()]


@pytest.mark.parametrize("solver", SOLVER_PARAMS)
@pytest.mark.parametrize("case_id", REMOVALS)
def test_a_removed_bound_is_said_in_words_and_each_statement_verifies_under_strict(
    case_id: str, solver: str
) -> None:
    case = CASES[case_id]
    spec = SPEC["models"][case["model"]]
    graph = what_if(_problem(spec), case["changes"], labels=spec["labels"], solver=solver)
    result = graph.nodes["result"]
    for name, value in case["changes"].items():
        if value is None:
            target, _, side = name.rpartition(".")
            phrase = spec["labels"]["variables"][target]["name"]
            words = "upper" if side == "up" else "lower"
            assert f"the {words} bound on {phrase} removed" in result.statement
    for node in graph.model.nodes:
        assert not re.search(r"\b(none|None|inf|nan)\b", node.statement), node.statement
    claims = [claim_of(graph, n.id) | {"id": f"c{i}"} for i, n in enumerate(graph.model.nodes)]
    report = verify(graph, {"claims": claims}, profile="strict")
    assert [v.id for v in report.claims if not v.passed] == []


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"oven": None}, "'oven' is a right-hand side and needs a finite number"),
        ({"obj.rye": None}, "'obj.rye' is an objective coefficient and needs a finite number"),
        ({"wheat.up": None}, "'wheat' has no upper bound to remove"),
        ({"rye.up": float("inf")}, "must be finite \\(None removes a bound\\)"),
    ],
)
def test_removing_what_is_no_bound_is_a_one_line_error(
    changes: dict[str, Any], message: str
) -> None:
    spec = SPEC["models"]["mix"]
    with pytest.raises(LpBackendError, match=message) as caught:
        what_if(_problem(spec), changes)
    assert "\n" not in str(caught.value) and caught.value.code == "change"


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("inf", "--set hours_austin: write none to remove a bound, not 'inf'"),
        ("-inf", "--set hours_austin: write none to remove a bound, not '-inf'"),
        ("None", "--set hours_austin: write none to remove a bound, not 'None'"),
        ("null", "--set hours_austin: write none to remove a bound, not 'null'"),
        ("none", "'hours_austin' is a right-hand side and needs a finite number"),
        ("nan", "--set hours_austin: the value must be a finite number, not 'nan'"),
    ],
)
def test_cli_bad_spellings_of_none_are_one_line_errors(
    value: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model, _ = MODELS["production_plan"]
    out = tmp_path / "what-if.json"
    assert main(["what-if", str(model), "--set", f"hours_austin={value}", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and "Traceback" not in err, err
    assert not out.exists()


def test_cli_none_removes_a_bound_as_the_python_api_does(tmp_path: Path) -> None:
    spec = SPEC["models"]["mix"]
    model = tmp_path / "mix.lp"
    _problem(spec).writeLP(str(model))
    out = tmp_path / "what-if.json"
    assert main(["what-if", str(model), "--set", "rye.up=none", "--out", str(out)]) == 0
    direct = what_if(read_model(model), {"rye.up": None})
    assert load_graph(out).dumps() == direct.dumps()
    assert direct.nodes["result"].statement.startswith(
        "Re-solving with the upper bound on rye removed raises the optimal objective value"
    )

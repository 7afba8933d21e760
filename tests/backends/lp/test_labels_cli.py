"""Labels (display names, units, groups) and the `verity graph-from-lp` command."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pulp
import pytest

from tests.backends.lp.examples import MODELS, example_graph
from verity import load_graph
from verity.backends._pulp_support import variable
from verity.backends.pulp import LpBackendError, graph_from_problem, load_labels, solve_problem
from verity.cli.main import main
from verity.errors import InputError


def _grid() -> Any:
    problem = pulp.LpProblem("grid", pulp.LpMaximize)
    x = {
        (a, b): variable(problem, f"ship_{a}_{b}", 0, 10, pulp.LpContinuous)
        for a in ("new_york", "boston")
        for b in ("red", "blue")
    }
    problem += pulp.lpSum((i + 1) * v for i, v in enumerate(x.values()))
    problem += pulp.lpSum(x.values()) <= 25, "total"
    return solve_problem(problem)


def test_a_group_with_declared_values_names_its_members() -> None:
    labels = {
        "entities": [
            {"id": "new_york", "kind": "city", "name": "New York"},
            {"id": "boston", "kind": "city", "name": "Boston"},
        ],
        "variables": {
            "ship[city,color]": {"name": "{color} crates shipped to {city}", "unit": "crates"}
        },
        "constraints": {"total": {"name": "all crates shipped", "unit": "crates"}},
    }
    graph = graph_from_problem(_grid(), labels)
    statements = [n.statement for n in graph.model.nodes if n.type == "DECISION"]
    assert "The plan sets blue crates shipped to Boston to 10 crates." in statements
    assert graph.entities["red"].kind == "color" and graph.entities["red"].name is None
    assert graph.entities["total"].name == "all crates shipped"


def test_an_ambiguous_group_member_is_refused() -> None:
    labels = {"variables": {"ship[city,color]": {"name": "{color} to {city}"}}}
    with pytest.raises(
        LpBackendError, match="matches group 'ship\\[city,color\\]' in 2 ways"
    ) as caught:
        graph_from_problem(_grid(), labels)
    assert caught.value.code == "names"


def test_unlabelled_names_are_their_own_display() -> None:
    graph = graph_from_problem(_grid())
    assert graph.nodes["decision:ship_boston_blue"].statement == (
        "The plan sets ship_boston_blue to 10."
    )


@pytest.mark.parametrize(
    ("labels", "message"),
    [
        ({"variables": {"ship[City]": {}}}, "is not a group"),
        ({"variables": {"ship[city]": {"name": "{colour} crates"}}}, "none of the group's kinds"),
        ({"variables": {"x": {"name": "{x} crates"}}}, "none of the group's kinds"),
        ({"variables": {"x": {"format": "integer", "decimals": 2}}}, "has no decimals"),
        ({"entities": [{"id": "a", "kind": "k"}, {"id": "a", "kind": "k"}]}, "declared twice"),
        ({"objective": {"format": "roman"}}, "objective.format"),
        ({"extra": 1}, "unknown key .extra.; allowed: format, graph_id"),
        ({"variables": {"x": {"name": "a\nb"}}}, "variables.x.name"),
    ],
)
def test_bad_labels_are_one_clear_error(labels: dict[str, Any], message: str) -> None:
    with pytest.raises(InputError, match=message) as caught:
        load_labels(labels)
    assert "\n" not in str(caught.value)


def test_an_entity_used_as_another_kind_is_refused() -> None:
    labels = {
        "entities": [
            {"id": "new_york", "kind": "city"},
            {"id": "boston", "kind": "city"},
            {"id": "red", "kind": "fruit"},
        ],
        "variables": {"ship[city,color]": {}},
    }
    with pytest.raises(LpBackendError, match="'red' is a fruit, but a group uses it as a color"):
        graph_from_problem(_grid(), labels)


def test_cli_writes_the_graph(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model, labels = MODELS["production_plan"]
    out = tmp_path / "graph.json"
    assert main(["graph-from-lp", str(model), "--labels", str(labels), "--out", str(out)]) == 0
    assert load_graph(out).dumps() == example_graph("production_plan").dumps()
    assert main(["graph-from-lp", str(model), "--labels", str(labels)]) == 0
    assert capsys.readouterr().out == out.read_text("utf-8")


def test_cli_highs_writes_nothing_but_the_graph_to_stdout(
    capsys: pytest.CaptureFixture[str],
) -> None:
    pytest.importorskip("highspy", reason="highspy is not installed (verity-evidence[highs])")
    model, labels = MODELS["staff_schedule"]
    assert main(["graph-from-lp", str(model), "--labels", str(labels), "--solver", "highs"]) == 0
    assert json.loads(capsys.readouterr().out)["backend"].endswith("with HiGHS (pulp)")


def test_cli_errors_exit_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model, labels = MODELS["production_plan"]
    bad_labels = tmp_path / "bad.json"
    bad_labels.write_text('{"variables": {"x": {"unit": 5}}}', "utf-8")
    cases = [
        ([str(tmp_path / "absent.lp")], "does not exist"),
        ([str(model), "--solver", "glpk"], "--solver must be one of cbc, highs"),
        ([str(model), "--labels", str(tmp_path / "none.json")], "does not exist"),
        ([str(model), "--labels", str(bad_labels)], "variables.x.unit"),
        ([str(model), "--out", str(tmp_path / "no" / "such" / "dir.json")], "cannot write"),
    ]
    for args, message in cases:
        assert main(["graph-from-lp", *args]) == 2, args
        out, err = capsys.readouterr()
        assert out == "" and err.startswith("verity: error: ") and err.count("\n") == 1, err
        assert message in err, (args, err)
    assert labels.is_file()
    with pytest.raises(SystemExit) as caught:
        main(["graph-from-lp"])
    assert caught.value.code == 2
    assert "the following arguments are required: MODEL" in capsys.readouterr().err


def test_the_example_labels_validate_against_the_labels_schema() -> None:
    from jsonschema import Draft202012Validator

    from tests.helpers import ROOT, load_json

    schema = Draft202012Validator(load_json(ROOT / "schemas" / "lp_labels.schema.json"))
    for _, labels in MODELS.values():
        schema.validate(load_json(labels))

"""Names a model and its labels must agree on: unnamed pulp constraints take pulp's own
names, and labels that match nothing in the model (another model's labels file, a typo in
a name or a group key, an unknown key) are one-line errors naming the closest names."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pulp
import pytest

from tests.backends.lp.examples import MODELS, example_graph
from tests.helpers import TESTS, load_json
from verity.backends._pulp_support import variable
from verity.backends.pulp import LpBackendError, graph_from_file, graph_from_problem, solve_problem
from verity.cli.main import main
from verity.errors import InputError

UNMATCHED = load_json(TESTS / "fixtures" / "lp" / "unmatched_labels.json")["cases"]


def _unnamed() -> Any:
    """A real model whose two constraints have no names, solved by CBC."""
    problem = pulp.LpProblem("unnamed", pulp.LpMaximize)
    x = variable(problem, "x", 0, None, pulp.LpContinuous)
    y = variable(problem, "y", 0, None, pulp.LpContinuous)
    problem += 3 * x + 2 * y
    problem += x + y <= 4
    problem += x + 3 * y <= 6
    problem += x <= 3, "x_cap"
    return solve_problem(problem, "cbc")


def test_unnamed_constraints_take_pulps_names() -> None:
    problem = _unnamed()
    assert pulp.LpStatus[problem.status] == "Optimal"
    graph = graph_from_problem(problem)
    constraints = sorted(n.id for n in graph.model.nodes if n.id.startswith("constraint:"))
    assert constraints == ["constraint:_C1", "constraint:_C2", "constraint:x_cap"]
    assert graph.nodes["constraint:_C1"].statement == "The upper limit of 4 on _C1 binds."


def test_unnamed_constraints_can_be_labelled_by_pulps_names() -> None:
    labels = {"constraints": {"_C1": {"name": "the capacity", "unit": "hours"}}}
    graph = graph_from_problem(_unnamed(), labels)
    assert "the capacity" in graph.nodes["constraint:_C1"].statement


def _labels_with(tmp_path: Path, edit: dict[str, Any]) -> Path:
    data = json.loads(MODELS["production_plan"][1].read_text("utf-8"))
    data.update(edit)
    path = tmp_path / "labels.json"
    path.write_text(json.dumps(data), "utf-8")
    return path


@pytest.mark.parametrize("case", UNMATCHED, ids=[c["id"] for c in UNMATCHED])
def test_labels_that_match_nothing_are_one_line_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], case: dict[str, Any]
) -> None:
    labels = _labels_with(tmp_path, case["edit"])
    model = MODELS["production_plan"][0]
    with pytest.raises(InputError) as caught:
        graph_from_file(model, labels)
    assert case["message"] in str(caught.value)
    assert main(["graph-from-lp", str(model), "--labels", str(labels)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and case["message"] in err, err


def test_another_models_labels_file_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    model = MODELS["production_plan"][0]
    other = MODELS["staff_schedule"][1]
    with pytest.raises(LpBackendError, match="matches no") as caught:
        graph_from_file(model, other)
    assert caught.value.code == "labels"
    assert main(["graph-from-lp", str(model), "--labels", str(other)]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_the_examples_own_labels_match_their_models() -> None:
    for name in MODELS:
        assert example_graph(name).model.nodes

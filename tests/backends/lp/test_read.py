"""Reading models: LP and MPS files that pulp writes round-trip; what the reader cannot read
faithfully is refused with one line."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pulp
import pytest

from tests.backends.lp.examples import MODELS
from tests.helpers import FIXTURES, load_json
from verity.backends._pulp_support import variable
from verity.backends.pulp import facts_of, graph_from_problem, read_model, solve_problem
from verity.cli.main import main
from verity.errors import InputError

READ_ERRORS = load_json(FIXTURES / "lp" / "read_errors.json")["cases"]


def _random_model(seed: int) -> Any:
    rng = random.Random(seed)
    sense = rng.choice([pulp.LpMaximize, pulp.LpMinimize])
    problem = pulp.LpProblem(f"random_{seed}", sense)
    xs = []
    for i in range(rng.randint(2, 6)):
        low = rng.choice([0, 0, -5, None])
        up = rng.choice([None, 10, 20])
        kind = rng.choice([pulp.LpContinuous, pulp.LpContinuous, pulp.LpInteger])
        xs.append(variable(problem, f"v_{i}", low, up, kind))
    sign = 1 if sense == pulp.LpMaximize else -1
    problem += pulp.lpSum(rng.randint(1, 9) * sign * x for x in xs)
    for j in range(rng.randint(1, 5)):
        terms = pulp.lpSum(rng.randint(-3, 6) * x for x in xs if rng.random() < 0.8)
        if not isinstance(terms, pulp.LpAffineExpression) or not list(terms.keys()):
            continue
        problem += terms <= rng.randint(5, 40), f"c_{j}"
    for x in xs:  # every variable bounded in the improving direction
        problem += x <= 30, f"box_{x.name}"
        problem += x >= -30, f"floor_{x.name}"
    return problem


def _summary(problem: Any) -> tuple[Any, ...]:
    facts = facts_of(solve_problem(problem))
    values = tuple(round(v.value, 6) for v in facts.variables)
    return (facts.status, facts.sense, round(facts.objective or 0, 6), values)


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("suffix", [".lp", ".mps"])
def test_models_pulp_writes_read_back_the_same(seed: int, suffix: str, tmp_path: Path) -> None:
    path = tmp_path / f"m{suffix}"
    original = _random_model(seed)
    if suffix == ".lp":
        original.writeLP(str(path))
    else:
        original.writeMPS(str(path), with_objsense=seed % 2 == 0)
    again = read_model(path)
    assert [v.name for v in again.variables()] == [v.name for v in original.variables()]
    assert _summary(again) == _summary(_random_model(seed))


@pytest.mark.parametrize("name", sorted(MODELS))
def test_the_examples_survive_a_round_trip_through_the_other_format(
    name: str, tmp_path: Path
) -> None:
    model = read_model(MODELS[name][0])
    other = tmp_path / ("again.mps" if MODELS[name][0].suffix == ".lp" else "again.lp")
    if other.suffix == ".mps":
        model.writeMPS(str(other), with_objsense=True)
    else:
        model.writeLP(str(other))
    first = graph_from_problem(solve_problem(read_model(MODELS[name][0])), MODELS[name][1])
    second = graph_from_problem(solve_problem(read_model(other)), MODELS[name][1])
    assert [n.statement for n in first.model.nodes] == [n.statement for n in second.model.nodes]


def test_lp_syntax_the_reader_accepts(tmp_path: Path) -> None:
    path = tmp_path / "syntax.lp"
    path.write_text(
        "\\ a comment\nMAXIMIZE\n score: 3 x + 2y + z + 4\nsubject to\n"
        " a: x + y <= 4\n -x - 3 y >= -7\n b: 2 x\n  + y = 7\nbounds\n 0 <= x <= 3\n"
        " y >= -inf\n -2 <= z\n z <= 2.5\n y <= +inf\nGeneral\n z\nend\n",
        "utf-8",
    )
    problem = read_model(path)
    facts = facts_of(solve_problem(problem))
    assert facts.sense == "max" and facts.objective == pytest.approx(17.0)
    bounds = {v.name: (v.lowBound, v.upBound, v.cat) for v in problem.variables()}
    assert bounds == {
        "x": (0, 3, "Continuous"),
        "y": (None, None, "Continuous"),
        "z": (-2, 2.5, "Integer"),
    }
    assert [c.name for c in facts.constraints] == ["a", "R2", "b"]


@pytest.mark.parametrize("case", READ_ERRORS, ids=lambda c: c["id"])
def test_unreadable_models_are_one_clear_error(
    case: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / f"model{case['suffix']}"
    path.write_text(case["text"], "utf-8")
    with pytest.raises(InputError) as caught:
        read_model(path)
    assert case["message"] in str(caught.value) and "\n" not in str(caught.value)
    assert main(["graph-from-lp", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and case["message"] in err

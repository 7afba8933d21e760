"""The card-rewards MILP against hand-computed cases and an exhaustive search."""

from __future__ import annotations

import itertools
import json
from decimal import Decimal
from typing import Any

import pytest

from tests.helpers import TESTS
from verity import InputError, load_graph
from verity.backends.card_rewards import (
    CATEGORIES,
    GOALS,
    SOLVERS,
    Card,
    Profile,
    SolveError,
    build_graph,
    card_limit,
    eligible_cards,
    load_catalog,
    load_profiles,
    solve,
)
from verity.backends.card_rewards._alloc import wallet_earnings

FIXTURES = TESTS / "fixtures" / "card_rewards"
CASES = json.loads((FIXTURES / "cases.json").read_text("utf-8"))
BRUTE_FORCE_PROFILES = (0, 17, 31, 44)


def _profile(spend: dict[str, int]) -> Profile:
    return Profile(
        index=0, id="t00", archetype="test", spend={k: Decimal(v) for k, v in spend.items()}
    )


def _solve(case: dict[str, Any], solver: str = "cbc") -> Any:
    catalog = load_catalog(FIXTURES / case["catalog"])
    return catalog, solve(catalog, _profile(case["spend"]), case["goal"], solver)


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("case", CASES["cases"], ids=lambda c: c["name"])
def test_plan_matches_hand_computation(case: dict[str, Any], solver: str) -> None:
    _, solution = _solve(case, solver)
    assert [c.id for c in solution.held] == case["held"]
    assert (str(solution.rewards), str(solution.fees), str(solution.net)) == (
        case["rewards"],
        case["fees"],
        case["net"],
    )
    segments = [
        [p.segment.card.id, p.segment.category, p.segment.kind, str(p.amount), str(p.value)]
        for p in solution.pieces
    ]
    assert segments == case["segments"]


@pytest.mark.parametrize("case", CASES["cases"], ids=lambda c: c["name"])
def test_graph_states_hand_computed_figures(case: dict[str, Any]) -> None:
    catalog, solution = _solve(case)
    graph = build_graph(catalog, solution)
    load_graph(graph)
    statements = {n["id"]: n["statement"] for n in graph["nodes"]}
    for node_id, expected in case["statements"].items():
        assert statements.get(node_id) == expected, node_id
    for node_id in case["absent"]:
        assert node_id not in statements


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("case", CASES["errors"], ids=lambda c: c["name"])
def test_infeasible_goal_is_a_solve_error(case: dict[str, Any], solver: str) -> None:
    with pytest.raises(SolveError) as caught:
        _solve(case, solver)
    assert caught.value.status == case["status"]
    assert (caught.value.goal, caught.value.profile) == (case["goal"], "t00")
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(("goal", "solver"), [("best", "cbc"), ("max_value", "glpk")])
def test_unknown_goal_or_solver_is_input_error(goal: str, solver: str) -> None:
    catalog = load_catalog()
    with pytest.raises(InputError):
        solve(catalog, load_profiles()[0], goal, solver)


def _weight(cards: tuple[Card, ...], order: list[str]) -> int:
    n = len(order)
    return sum(2**n + 2 ** order.index(c.id) for c in cards)


@pytest.mark.parametrize("goal", GOALS)
@pytest.mark.parametrize("index", BRUTE_FORCE_PROFILES)
def test_milp_matches_exhaustive_search(index: int, goal: str) -> None:
    catalog = load_catalog()
    profile = load_profiles()[index]
    pool = eligible_cards(catalog, goal)
    limit = card_limit(goal) or len(pool)
    scored: list[tuple[Decimal, tuple[Card, ...]]] = []
    for size in range(1, limit + 1):
        for cards in itertools.combinations(pool, size):
            fees = sum((c.annual_fee for c in cards), Decimal(0))
            scored.append((wallet_earnings(cards, profile.spend) - fees, cards))
    best = max(value for value, _ in scored)
    order = [c.id for c in catalog.cards]
    tied = [cards for value, cards in scored if value >= best - Decimal("0.005")]
    expected = min(tied, key=lambda cards: _weight(cards, order))
    solution = solve(catalog, profile, goal)
    assert [c.id for c in solution.held] == [c.id for c in expected]
    assert abs(solution.net - best) <= Decimal("0.01") * len(CATEGORIES)

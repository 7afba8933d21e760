"""The card-rewards MILP and its deterministic solution.

Variables: continuous spend ``x[card, category, segment]`` (segment ``within`` the
annual cap, or ``above`` it; an uncapped category has only ``within``) and a binary
``y[card]`` for each card held. Constraints: every category's spend is allocated
(coverage); a within-cap segment takes at most ``cap * y`` (caps); any segment takes
at most ``spend * y`` (linking); the goal's own constraint (``no_fee``: cards with a
fee are not held; ``two_cards``: at most two cards). Objective: value earned
(spend * rate * point value) minus annual fees.

Determinism: a second solve keeps the objective within half a cent of the optimum
and minimizes a weight that prefers fewer cards, then cards earlier in the catalog.
The chosen cards are then allocated exactly by :mod:`._alloc` (the allocation for a
fixed set of cards is unique once ties are broken by catalog order), so CBC and
HiGHS give the same result whenever they agree on the optimum to half a cent.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import pulp

from verity.backends._pulp_support import SOLVERS, variable
from verity.backends._pulp_support import solver as _solver
from verity.backends.card_rewards._alloc import (
    ABOVE,
    WITHIN,
    Piece,
    allocate,
    cents,
    wallet_earnings,
)
from verity.backends.card_rewards._catalog import CATEGORIES, Card, Catalog
from verity.backends.card_rewards._profiles import Profile
from verity.errors import InputError, VerityError

__all__ = [
    "GOALS",
    "SOLVERS",
    "Solution",
    "SolveError",
    "card_limit",
    "eligible_cards",
    "solve",
]

#: Goal names, in the order every listing uses.
GOALS: tuple[str, ...] = ("max_value", "no_fee", "two_cards")

#: Objective values within this many dollars of the optimum count as ties.
TIE_TOLERANCE = Decimal("0.005")
_MAX_CARDS = 48


class SolveError(VerityError):
    """The solver found no optimal solution, or its answer does not check out."""

    def __init__(self, message: str, *, goal: str, profile: str, status: str) -> None:
        super().__init__(message)
        self.goal = goal
        self.profile = profile
        self.status = status


@dataclass(frozen=True, slots=True)
class Solution:
    """An optimal plan: held cards (catalog order), allocation and totals in dollars."""

    goal: str
    profile: Profile
    held: tuple[Card, ...]
    pieces: tuple[Piece, ...]
    solver: str
    solver_seconds: float

    @property
    def rewards(self) -> Decimal:
        """Value earned: the sum of the pieces' values, each rounded to cents."""
        return cents(sum((p.value for p in self.pieces), Decimal(0)))

    @property
    def fees(self) -> Decimal:
        """Annual fees of the held cards, in cents."""
        return cents(sum((c.annual_fee for c in self.held), Decimal(0)))

    @property
    def net(self) -> Decimal:
        """Rewards minus fees."""
        return self.rewards - self.fees


def eligible_cards(catalog: Catalog, goal: str) -> tuple[Card, ...]:
    """Cards the goal allows, in catalog order."""
    _check_goal(goal)
    if goal == "no_fee":
        return tuple(c for c in catalog.cards if c.annual_fee == 0)
    return catalog.cards


def card_limit(goal: str) -> int | None:
    """Most cards the goal allows to hold, or None."""
    _check_goal(goal)
    return 2 if goal == "two_cards" else None


def _check_goal(goal: str) -> None:
    if goal not in GOALS:
        raise InputError(f"unknown goal {goal!r}; choose one of {', '.join(GOALS)}")


def _segment_keys(card: Card, category: str) -> tuple[str, ...]:
    return (WITHIN, ABOVE) if category in card.caps else (WITHIN,)


@dataclass(slots=True)
class _Model:
    problem: Any
    value: Any
    y: dict[str, Any]


def _variable(problem: Any, name: str, low: float, up: float | None, kind: str) -> Any:
    return variable(problem, name, low, up, kind)


def _build(catalog: Catalog, profile: Profile, goal: str) -> _Model:
    problem = pulp.LpProblem("card_rewards", pulp.LpMaximize)
    y = {c.id: _variable(problem, f"y_{i}", 0, 1, "Binary") for i, c in enumerate(catalog.cards)}
    x: dict[tuple[str, str, str], Any] = {}
    for i, card in enumerate(catalog.cards):
        for j, category in enumerate(CATEGORIES):
            for seg in _segment_keys(card, category):
                x[card.id, category, seg] = _variable(
                    problem, f"x_{i}_{j}_{seg}", 0, None, "Continuous"
                )
    earned = []
    for (card_id, category, seg), var in x.items():
        card = catalog.card(card_id)
        rate = card.rates[category] if seg == WITHIN else card.caps[category].rate_above
        earned.append(float(card.dollar_value(rate)) * var)
    fees = [float(c.annual_fee) * y[c.id] for c in catalog.cards]
    value = pulp.lpSum(earned) - pulp.lpSum(fees)
    problem += value
    for category in CATEGORIES:
        spend = float(profile.spend[category])
        keys = [k for k in x if k[1] == category]
        problem += pulp.lpSum(x[k] for k in keys) == spend, f"cover_{category}"
        for card_id, _, seg in keys:
            card = catalog.card(card_id)
            var = x[card_id, category, seg]
            problem += var <= spend * y[card_id]
            if seg == WITHIN and category in card.caps:
                problem += var <= float(card.caps[category].limit) * y[card_id]
    allowed = {c.id for c in eligible_cards(catalog, goal)}
    for card in catalog.cards:
        if card.id not in allowed:
            problem += y[card.id] == 0, f"goal_excludes_{card.id}"
    limit = card_limit(goal)
    if limit is not None:
        problem += pulp.lpSum(y.values()) <= limit, "goal_card_limit"
    return _Model(problem, value, y)


def _run(model: _Model, solver: Any, profile: Profile, goal: str, stage: str) -> float:
    started = time.perf_counter()
    try:
        model.problem.solve(solver)
    except pulp.PulpSolverError as exc:
        raise SolveError(
            f"solver failed on profile {profile.id} goal {goal} ({stage}): {exc}",
            goal=goal,
            profile=profile.id,
            status="Error",
        ) from None
    elapsed = time.perf_counter() - started
    status = pulp.LpStatus.get(model.problem.status, str(model.problem.status))
    optimal = model.problem.sol_status == pulp.LpSolutionOptimal
    if model.problem.status != pulp.LpStatusOptimal or not optimal:
        raise SolveError(
            f"no optimal plan for profile {profile.id} goal {goal} ({stage}): solver says {status}",
            goal=goal,
            profile=profile.id,
            status=status,
        )
    return elapsed


def _tie_weights(cards: Sequence[Card]) -> list[float]:
    """Per-card weights whose subset sums order sets by size, then by catalog position."""
    n = len(cards)
    return [float(2**n + 2**i) for i in range(n)]


def solve(catalog: Catalog, profile: Profile, goal: str, solver: str = "cbc") -> Solution:
    """Solve the MILP for ``profile`` under ``goal``; raise :class:`SolveError` on failure."""
    _check_goal(goal)
    if len(catalog.cards) > _MAX_CARDS:
        raise InputError(f"catalog has {len(catalog.cards)} cards; the limit is {_MAX_CARDS}")
    backend = _solver(solver)
    model = _build(catalog, profile, goal)
    seconds = _run(model, backend, profile, goal, "value")
    best = float(pulp.value(model.value))
    model.problem += model.value >= best - float(TIE_TOLERANCE), "tie_keep_value"
    model.problem.sense = pulp.LpMinimize
    weights = _tie_weights(catalog.cards)
    model.problem.setObjective(
        pulp.lpSum(w * model.y[c.id] for w, c in zip(weights, catalog.cards, strict=True))
    )
    seconds += _run(model, backend, profile, goal, "tie-break")
    held = tuple(c for c in catalog.cards if (pulp.value(model.y[c.id]) or 0) > 0.5)
    pieces = tuple(allocate(held, profile.spend))
    placed = sum((p.amount for p in pieces), Decimal(0))
    exact = wallet_earnings(held, profile.spend) - sum((c.annual_fee for c in held), Decimal(0))
    slack = TIE_TOLERANCE + Decimal("0.000001") * (1 + abs(exact))
    if placed != profile.total or abs(exact - Decimal(repr(best))) > slack:
        raise SolveError(
            f"solver answer for profile {profile.id} goal {goal} does not check out "
            f"(solver {best:.6f}, exact {exact:.6f})",
            goal=goal,
            profile=profile.id,
            status="Inconsistent",
        )
    return Solution(goal, profile, held, pieces, solver, seconds)

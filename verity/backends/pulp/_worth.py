"""What one more unit of a binding limit is worth, and what the runner-up choice costs, by
re-solving: for a mixed-integer program or a linear program whose duals are not stated
(degenerate, not a vertex, unchecked), where no shadow price says it.

The model of the facts is rebuilt in pulp (its objective without a constant, so only
differences are stated) and re-solved with HiGHS when ``highspy`` is installed, else
with CBC: an optimum's objective value is the same whichever solver finds it, and HiGHS
re-solves a small model in process, without a subprocess per solve:

- ``LIMIT_WORTH`` ``worth:<constraint>``, for each binding limit (a linking row is no
  limit): the change of the objective with its right-hand side raised by one step, 1, or
  10% of its size when that is below 1 or 1,000 and more; or that no plan meets every
  constraint then;
- ``RUNNER_UP`` ``runner_up:<variable>``, for each binary decision: the best plan with
  that choice the other way (fixed and re-solved), its objective and the difference; or
  that no such plan exists.

First the model is re-solved as it is: when that optimum differs from the plan's (a
solve with a gap, a time limit), nothing is stated. Re-solves are capped
(:data:`RESOLVES`, the base solve included; the limits first, then the choices in the
plan, then the others, each in model order): a ``RESOLVE_NOTE`` ``resolve_cap`` says how
many were left out.

Each re-solve stops after :data:`RESOLVE_SECONDS` seconds. A solve stopped on time may
come back with pulp's status "Optimal" for a solution only found, not proven (CBC and
HiGHS both report ``sol_status`` ``LpSolutionIntegerFeasible`` then): a re-solve counts
only when :func:`settled` finds it proven optimal or proven infeasible, and nothing of
any other is stated. A ``RESOLVE_NOTE`` ``resolve_time`` says how many re-solves the
time limit cut (when the first one, of the model as it is, is cut, nothing is stated).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from verity.backends.pulp._ranging import Context, Item, Show, zero
from verity.backends.pulp._solution import ConstraintFact, SolutionFacts
from verity.errors import InputError

__all__ = [
    "RESOLVES",
    "RESOLVE_SECONDS",
    "add_worth",
    "check_resolve_seconds",
    "resolve",
    "settled",
    "step_of",
]

#: The default cap on re-solves per graph (the base solve included).
RESOLVES = 20

#: The default time limit of each re-solve, in seconds.
RESOLVE_SECONDS = 10.0


def check_resolve_seconds(seconds: Any) -> float | None:
    """``seconds`` when it is a finite number above 0 (``None``: no limit);
    ``InputError`` otherwise."""
    if seconds is None:
        return None
    if isinstance(seconds, bool) or not isinstance(seconds, int | float):
        raise InputError(f"resolve_seconds must be a number of seconds, not {seconds!r}")
    if not math.isfinite(seconds) or seconds <= 0:
        raise InputError(f"resolve_seconds must be a finite number above 0, not {seconds!r}")
    return float(seconds)


def settled(problem: Any) -> str:
    """How a solved pulp problem settled: ``optimal`` (proven), ``infeasible`` (proven),
    ``stopped`` (a time or iteration limit stopped it first, a solution found or not) or
    ``undecided`` (unbounded, or anything else). pulp reports status "Optimal" for a
    solution a limit stopped before its proof; only ``sol_status`` tells them apart."""
    import pulp

    status, solution = problem.status, getattr(problem, "sol_status", None)
    if status == pulp.LpStatusOptimal:
        return "optimal" if solution == pulp.LpSolutionOptimal else "stopped"
    if status == pulp.LpStatusInfeasible:
        return "infeasible" if solution == pulp.LpSolutionInfeasible else "undecided"
    if status == pulp.LpStatusNotSolved:
        return "stopped"
    return "undecided"


def step_of(rhs: float) -> float:
    """The step a limit is raised by: 1, or 10% of its size when that is below 1 or
    1,000 and more (a limit of 0 takes 1)."""
    size = abs(rhs)
    return 1.0 if size == 0 or 1 <= size < 1000 else size / 10


@dataclass(frozen=True)
class Outcome:
    """A re-solve: its objective (without the model's constant), or ``None`` when no
    plan meets every constraint (proven) or when it is not settled; ``state`` as
    :func:`settled` gives it."""

    objective: float | None
    state: str = "optimal"

    @property
    def counts(self) -> bool:
        """Proven optimal or proven infeasible: only such a re-solve is stated."""
        return self.state in ("optimal", "infeasible")


def solver_key() -> str:
    """``highs`` when highspy is installed, else ``cbc``."""
    import importlib.util

    return "highs" if importlib.util.find_spec("highspy") is not None else "cbc"


def resolve(
    facts: SolutionFacts,
    *,
    rhs: Mapping[str, float] | None = None,
    fix: Mapping[str, float] | None = None,
    seconds: float | None = None,
) -> Outcome:
    """Re-solve the facts' model with some right-hand sides replaced and some variables
    fixed, stopped after ``seconds`` (``None``: no limit)."""
    import pulp

    from verity.backends._pulp_support import solver, variable

    rhs, fix = rhs or {}, fix or {}
    problem = pulp.LpProblem(
        "resolve", pulp.LpMaximize if facts.sense == "max" else pulp.LpMinimize
    )
    made: dict[str, Any] = {}
    for v in facts.variables:
        low, up = v.low, v.up
        if v.name in fix:
            low = up = fix[v.name]
        kind = pulp.LpInteger if v.integer else pulp.LpContinuous
        made[v.name] = variable(problem, v.name, low, up, kind)
    problem += pulp.lpSum(v.cost * made[v.name] for v in facts.variables)
    for i, c in enumerate(facts.constraints):
        lhs = pulp.lpSum(a * made[n] for n, a in c.terms)
        limit = rhs.get(c.name, c.rhs)
        sense = {"<=": pulp.LpConstraintLE, ">=": pulp.LpConstraintGE, "=": pulp.LpConstraintEQ}
        problem += pulp.LpConstraint(lhs, sense[c.sense], f"r{i}", limit)
    problem.solve(solver(solver_key(), seconds))
    state = settled(problem)
    if state != "optimal":
        return Outcome(None, state)
    return Outcome(float(pulp.value(problem.objective) or 0.0))


def _planned(facts: SolutionFacts) -> float:
    return sum(v.cost * v.value for v in facts.variables)


def add_worth(
    ctx: Context,
    items: Mapping[str, Item],
    show: Show,
    cap: int = RESOLVES,
    seconds: float | None = RESOLVE_SECONDS,
) -> None:
    """The ``LIMIT_WORTH``, ``RUNNER_UP`` and ``RESOLVE_NOTE`` nodes of the plan, each
    re-solve stopped after ``seconds`` (``None``: no limit)."""
    facts = ctx.facts
    binding = {i for i, t, *_ in ctx.pending if t == "BINDING_CONSTRAINT"}
    limits = [c for c in facts.constraints if f"constraint:{c.name}" in binding]
    binaries = [v for v in facts.variables if v.binary]
    binaries.sort(key=lambda v: round(v.value) != 1)  # the plan's choices first (stable)
    tasks: list[Any] = [*limits, *binaries]
    if not tasks or cap < 1:
        return
    base = resolve(facts, seconds=seconds)
    if base.state == "stopped":
        _time_note(ctx, seconds, cut=len(tasks), total=len(tasks), base=True)
        return
    if base.objective is None:
        return
    if abs(base.objective - _planned(facts)) > 1e-6 * max(1.0, abs(base.objective)):
        return  # the plan is not the model's optimum: no difference from it is stated
    done = tasks[: cap - 1]
    cut = 0
    for task in done:
        if isinstance(task, ConstraintFact):
            state = _limit_worth(ctx, items[task.name], task, base.objective, show, seconds)
        else:
            state = _runner_up(ctx, items[task.name], task, base.objective, seconds)
        cut += state == "stopped"
    if len(done) < len(tasks):
        skipped, total = len(tasks) - len(done), len(tasks)
        ctx.node(
            "resolve_cap",
            "RESOLVE_NOTE",
            "resolve_cap",
            {"cap": str(cap), "skipped": str(skipped), "total": str(total)},
            data={"cap": cap, "skipped": skipped, "total": total},
            required=["is not stated"],
        )
        ctx.builder.edge("resolve_cap", "result", "qualifies")
    if cut:
        _time_note(ctx, seconds, cut=cut, total=len(done), base=False)


def _seconds_shown(seconds: float) -> str:
    """``10 seconds``, ``0.05 seconds``, ``1 second``."""
    shown = f"{seconds:,.3f}".rstrip("0").rstrip(".")
    return f"{shown} second" + ("" if shown == "1" else "s")


def _time_note(ctx: Context, seconds: float | None, *, cut: int, total: int, base: bool) -> None:
    """``RESOLVE_NOTE`` ``resolve_time``: how many re-solves the time limit cut before a
    proven optimum, so that what they would state is not stated."""
    if seconds is None:  # pragma: no cover - without a limit no re-solve is stopped on time
        return
    slots = {"seconds": _seconds_shown(seconds), "cut": f"{cut:,}", "total": f"{total:,}"}
    template = "resolve_time_base" if base else f"resolve_time_{'one' if cut == 1 else 'many'}"
    if base or cut == 1:
        del slots["cut"]
    ctx.node(
        "resolve_time",
        "RESOLVE_NOTE",
        template,
        slots,
        data={"seconds": seconds, "cut": cut, "total": total, "model_as_is": base},
        required=["not stated"],
    )
    ctx.builder.edge("resolve_time", "result", "qualifies")


def _limit_worth(
    ctx: Context, item: Item, c: Any, base: float, show: Show, seconds: float | None
) -> str:
    new = c.rhs + step_of(c.rhs)
    outcome = resolve(ctx.facts, rhs={c.name: new}, seconds=seconds)
    if not outcome.counts:
        return outcome.state
    slots = {
        "what": {"<=": "upper limit", ">=": "lower limit", "=": "level"}[c.sense],
        "name": item.phrase,
        "rhs": show(c.rhs, item.label),
        "new": show(new, item.label),
        "unit": item.unit,
        "objective": ctx.objective,
    }
    data: dict[str, Any] = {"constraint": c.name, "rhs": c.rhs, "new_rhs": new}
    diff = None if outcome.objective is None else outcome.objective - base
    if diff is None:
        template = "worth_infeasible"
    else:
        slots["diff"] = ctx.money(abs(diff))
        template = (
            "worth_same" if zero(slots["diff"]) else "worth_raises" if diff > 0 else "worth_lowers"
        )
        if template == "worth_same":
            del slots["diff"]
        data["difference"] = diff
    ctx.node(
        f"worth:{c.name}",
        "LIMIT_WORTH",
        template,
        slots,
        item,
        data=data,
        required=["by re-solving the model", f"to {slots['new']}{item.unit}"],
    )
    ctx.builder.edge(f"worth:{c.name}", f"constraint:{c.name}", "prices")
    return outcome.state


def _runner_up(ctx: Context, item: Item, v: Any, base: float, seconds: float | None) -> str:
    chosen = round(v.value) == 1
    outcome = resolve(ctx.facts, fix={v.name: 0.0 if chosen else 1.0}, seconds=seconds)
    if not outcome.counts:
        return outcome.state
    side = "out" if chosen else "in"
    slots = {"name": item.phrase}
    data: dict[str, Any] = {"variable": v.name, "fixed_to": 0 if chosen else 1}
    diff = None if outcome.objective is None else outcome.objective - base
    if diff is None:
        template = f"runner_{side}_infeasible"
    else:
        total = (ctx.facts.objective or 0.0) + diff
        slots |= {"objective": ctx.objective, "value": ctx.money(total)}
        shown = ctx.money(abs(diff))
        if zero(shown):
            template = f"runner_{side}_same"
        else:
            slots["diff"] = shown
            template = f"runner_{side}_{'higher' if diff > 0 else 'lower'}"
        data |= {"objective": total, "difference": diff}
    ctx.node(
        f"runner_up:{v.name}",
        "RUNNER_UP",
        template,
        slots,
        item,
        data=data,
        required=["by re-solving the model", "without" if chosen else "with"],
    )
    target = f"decision:{v.name}" if f"decision:{v.name}" in ctx.ids else "result"
    ctx.builder.edge(f"runner_up:{v.name}", target, "contrasts")
    return outcome.state

"""The facts of a solved :class:`pulp.LpProblem`, as plain data, solver conventions removed.

- status: ``optimal``, ``feasible`` (a solution not proven optimal), ``infeasible`` or
  ``unbounded``; a problem that was never solved, or whose solver could not decide, is
  an error;
- every variable with its value, bounds, kind and objective coefficient; every
  constraint with its terms, sense, right-hand side, activity and slack, computed here
  from the variable values (the solvers disagree on the sign of pulp's ``slack``);
- for a linear program whose solution is a nondegenerate vertex, its duals and reduced
  costs as derivatives of the objective: ``dual`` is the change of the objective per unit
  added to a constraint's right-hand side, ``reduced_cost`` per unit added to a variable.
  pulp passes on each solver's own sign convention (HiGHS negates them for maximization,
  CBC does not); they are normalized, then checked against what optimality implies (a
  binding ``<=`` limit of a maximization can only raise the objective when relaxed, a
  basic variable has no reduced cost, ...). When the model has integer variables, the
  solution is degenerate or not a vertex, or a check fails, ``sensitivity`` says why and
  no dual or reduced cost is given: one that a reader could misread is never stated.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from verity.backends._pulp_support import constraints_of
from verity.errors import InputError

__all__ = [
    "TOLERANCE",
    "ConstraintFact",
    "LpBackendError",
    "SolutionFacts",
    "VariableFact",
    "constraint_names",
    "facts_of",
]

#: Values within this (relative to the size of the limit, at least 1) count as equal.
TOLERANCE = 1e-6

_PULP_STATUS = {1: "optimal", -1: "infeasible", -2: "unbounded"}


class LpBackendError(InputError):
    """A model, labels file or solver result that cannot become a graph.

    ``code`` names the failure (``model``, ``labels``, ``status``, ``names``, ``graph``).
    """

    def __init__(self, message: str, *, code: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True, slots=True)
class VariableFact:
    name: str
    value: float
    low: float | None
    up: float | None
    integer: bool
    cost: float  # objective coefficient
    reduced_cost: float | None = None

    @property
    def binary(self) -> bool:
        return self.integer and self.low == 0 and self.up == 1

    def at(self, bound: float | None) -> bool:
        return bound is not None and _close(self.value, bound)


@dataclass(frozen=True, slots=True)
class ConstraintFact:
    name: str
    sense: str  # "<=", ">=" or "="
    rhs: float
    activity: float
    dual: float | None = None
    #: The row's left-hand side: (variable name, coefficient) for each non-zero term.
    terms: tuple[tuple[str, float], ...] = ()

    @property
    def slack(self) -> float:
        """How far the activity stays inside the limit (an equality: how far off it is)."""
        if self.sense == "<=":
            return self.rhs - self.activity
        if self.sense == ">=":
            return self.activity - self.rhs
        return abs(self.activity - self.rhs)

    @property
    def binding(self) -> bool:
        return self.slack <= TOLERANCE * max(1.0, abs(self.rhs))


@dataclass(frozen=True, slots=True)
class SolutionFacts:
    name: str
    status: str
    sense: str  # "max" or "min"
    objective_name: str | None
    objective: float | None
    variables: tuple[VariableFact, ...]
    constraints: tuple[ConstraintFact, ...]
    solver: str
    #: ``reported``, or why no dual or reduced cost is given: ``integer``, ``degenerate``,
    #: ``not_vertex``, ``unchecked`` (or ``none`` when there is no optimal solution).
    sensitivity: str

    @property
    def integer(self) -> bool:
        return any(v.integer for v in self.variables)


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= TOLERANCE * max(1.0, abs(b))


def _status(problem: Any) -> str:
    import pulp

    status, solution = problem.status, getattr(problem, "sol_status", None)
    if status == pulp.LpStatusNotSolved:
        raise LpBackendError(
            "the problem has not been solved; call problem.solve(solver) first", code="status"
        )
    if status == pulp.LpStatusOptimal:
        return "feasible" if solution == pulp.LpSolutionIntegerFeasible else "optimal"
    found = _PULP_STATUS.get(status)
    if found is None:
        label = pulp.LpStatus.get(status, str(status))
        raise LpBackendError(
            f"the solver could not decide the problem (status {label})", code="status"
        )
    return found


def _sense_of(constraint: Any) -> str:
    import pulp

    return {pulp.LpConstraintLE: "<=", pulp.LpConstraintGE: ">=", pulp.LpConstraintEQ: "="}[
        constraint.sense
    ]


def _float(value: Any) -> float:
    return 0.0 if value is None else float(value)


def _solver_name(problem: Any) -> str:
    solver = getattr(problem, "solver", None)
    return "" if solver is None else type(solver).__name__


def _sign_factor(solver: str, sense: str) -> float | None:
    """The factor that turns the solver's duals into derivatives of the objective."""
    if solver in ("COIN_CMD", "PULP_CBC_CMD", "CPLEX_CMD", "GLPK_CMD"):
        return 1.0
    if solver == "HiGHS":
        return -1.0 if sense == "max" else 1.0
    return None


def constraint_names(problem: Any) -> list[str]:
    """The problem's constraint names in the order they were added: an unnamed
    constraint by the name pulp gave it (``_C1``, ``_C2``, ...: the key of
    ``problem.constraints``, which the constraint itself does not carry)."""
    # pulp 3 keeps the dict in ``_constraints`` (``constraints`` is a deprecated view of
    # it that warns); pulp 2's ``constraints`` is the dict itself.
    table = getattr(problem, "_constraints", None)
    if table is None:
        table = problem.constraints
    if isinstance(table, Mapping):
        return [str(key) for key in table]
    return _pulp_names(constraints_of(problem))  # pragma: no cover - no pulp gives a list


def _pulp_names(constraints: list[Any]) -> list[str]:  # pragma: no cover - see above
    """The names pulp's ``unusedConstraintName`` gives: ``_C1``, ``_C2``, ... for the
    unnamed constraints in order, skipping any name in use."""
    taken = {str(c.name) for c in constraints if c.name}
    names: list[str] = []
    counter = 0
    for constraint in constraints:
        if constraint.name:
            names.append(str(constraint.name))
            continue
        counter += 1
        while f"_C{counter}" in taken:
            counter += 1
        names.append(f"_C{counter}")
    return names


def facts_of(problem: Any) -> SolutionFacts:
    """The facts of a solved problem (``LpBackendError`` when it is not solved)."""
    import pulp

    status = _status(problem)
    sense = "max" if problem.sense == pulp.LpMaximize else "min"
    objective = problem.objective
    costs = {v.name: float(c) for v, c in objective.items()} if objective is not None else {}
    solved = status in ("optimal", "feasible")
    variables = tuple(
        VariableFact(
            name=v.name,
            value=_float(v.varValue) if solved else 0.0,
            low=None if v.lowBound is None else float(v.lowBound),
            up=None if v.upBound is None else float(v.upBound),
            integer=v.cat == pulp.LpInteger,
            cost=costs.get(v.name, 0.0),
        )
        for v in problem.variables()
    )
    values = {v.name: v.value for v in variables}
    constraints = tuple(
        ConstraintFact(
            name=name,
            sense=_sense_of(c),
            rhs=-float(c.constant),
            activity=sum(float(a) * values.get(v.name, 0.0) for v, a in c.items()),
            terms=tuple((v.name, float(a)) for v, a in c.items() if float(a) != 0.0),
        )
        for name, c in zip(constraint_names(problem), constraints_of(problem), strict=True)
    )
    value = None
    if solved and objective is not None:
        value = float(pulp.value(objective) or 0.0)
    facts = SolutionFacts(
        name=str(problem.name),
        status=status,
        sense=sense,
        objective_name=None if objective is None else objective.name,
        objective=value,
        variables=variables,
        constraints=constraints,
        solver=_solver_name(problem),
        sensitivity="none",
    )
    return _with_sensitivity(facts, problem) if status == "optimal" else facts


def _with_sensitivity(facts: SolutionFacts, problem: Any) -> SolutionFacts:
    if facts.integer:
        return _replace(facts, sensitivity="integer")
    active = sum(1 for c in facts.constraints if c.binding)
    active += sum(1 for v in facts.variables if v.at(v.low) or v.at(v.up))
    if active != len(facts.variables):
        reason = "degenerate" if active > len(facts.variables) else "not_vertex"
        return _replace(facts, sensitivity=reason)
    factor = _sign_factor(facts.solver, facts.sense)
    duals = [getattr(c, "pi", None) for c in constraints_of(problem)]
    costs = [getattr(v, "dj", None) for v in problem.variables()]
    if factor is None or None in duals or None in costs:
        return _replace(facts, sensitivity="unchecked")
    constraints = tuple(
        _with(c, dual=factor * _float(d)) for c, d in zip(facts.constraints, duals, strict=True)
    )
    variables = tuple(
        _with_cost(v, factor * _float(d)) for v, d in zip(facts.variables, costs, strict=True)
    )
    checked = _replace(facts, constraints=constraints, variables=variables, sensitivity="reported")
    return checked if _consistent(checked) else _replace(facts, sensitivity="unchecked")


def _replace(facts: SolutionFacts, **changes: Any) -> SolutionFacts:
    return replace(facts, **changes)


def _with(constraint: ConstraintFact, *, dual: float) -> ConstraintFact:
    return replace(constraint, dual=dual)


def _with_cost(variable: VariableFact, cost: float) -> VariableFact:
    return replace(variable, reduced_cost=cost)


def _small(value: float, scale: float = 1.0) -> bool:
    return abs(value) <= 1e-5 * max(1.0, abs(scale))


def _consistent(facts: SolutionFacts) -> bool:
    """True when the duals and reduced costs are what optimality implies."""
    gain = 1.0 if facts.sense == "max" else -1.0  # +1: a larger objective is better
    for c in facts.constraints:
        dual = c.dual or 0.0
        if not c.binding and not _small(dual):
            return False  # complementary slackness
        if c.sense == "<=" and gain * dual < -1e-5:
            return False  # relaxing an upper limit never worsens the optimum
        if c.sense == ">=" and gain * dual > 1e-5:
            return False  # raising a lower limit never improves it
    for v in facts.variables:
        cost = v.reduced_cost or 0.0
        at_low, at_up = v.at(v.low), v.at(v.up)
        if not (at_low or at_up) and not _small(cost, v.cost):
            return False  # a basic variable has no reduced cost
        if at_low and not at_up and gain * cost > 1e-5:
            return False  # moving off a lower bound never improves the optimum
        if at_up and not at_low and gain * cost < -1e-5:
            return False
    return True

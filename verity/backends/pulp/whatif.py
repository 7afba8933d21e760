"""What-if by re-solving: the evidence graph of one change to an optimization model.

:func:`what_if` takes a pulp problem and the changes (name -> new value), solves a copy
of the model as it is and a copy with the changes (the caller's problem is neither
changed nor solved), and builds one graph of the difference. A name addresses:

- ``NAME``: the right-hand side of the constraint ``NAME`` (its limit);
- ``VAR.up`` / ``VAR.low``: the upper / lower bound of the variable ``VAR``; the value
  ``None`` removes that bound (the statements say "with the upper bound on ... removed");
- ``obj.VAR``: the objective coefficient of ``VAR``.

A constraint's own name comes first (a constraint called ``obj.x`` is that constraint).
An unknown name is an :class:`~verity.backends.pulp.LpBackendError` naming the closest
names the model has.

Node types and ids (every statement opens with ``Re-solving with <the change in words>``:
:mod:`._whatif_templates`):

- ``WHATIF_RESULT`` ``result`` (the headline): the optimal objective before and after and
  the difference; or that the changed model is infeasible (no feasible plan) or unbounded,
  with the objective before the change; or that a model infeasible before has a plan;
- ``WHATIF_DECISION`` ``decision:<variable>``: each decision whose value (as displayed)
  changed, from its value before to its value after; a binary brought into or dropped from
  the plan;
- ``WHATIF_CONSTRAINT`` ``constraint:<name>``: each inequality that became binding or
  stopped binding (a linking row, with decisions on both sides, is no limit and is not
  stated; an equality always binds).

Display names, units and number formats come from the labels, as in :mod:`._graph`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from verity.backends.pulp import LabelsSource, load_labels, solve_problem
from verity.backends.pulp._graph import (
    _check_labels_used,
    _closest,
    _Item,
    _Names,
    _objective_name,
    _salience,
    _show,
)
from verity.backends.pulp._labels import ItemLabel, Labels
from verity.backends.pulp._linking import linking
from verity.backends.pulp._solution import (
    ConstraintFact,
    LpBackendError,
    SolutionFacts,
    constraint_names,
    facts_of,
)
from verity.backends.pulp._whatif_templates import add_templates
from verity.core.builder import GraphBuilder
from verity.core.graph import EvidenceGraph
from verity.errors import GraphError

__all__ = ["RULES", "Change", "parse_changes", "what_if"]

#: The claim-type rules of every what-if graph.
RULES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("RESULT", ("WHATIF_RESULT",)),
    ("DECISION", ("WHATIF_DECISION",)),
    ("BINDING_CONSTRAINT", ("WHATIF_CONSTRAINT",)),
)

_SOLVER_NAMES = {"COIN_CMD": "CBC", "PULP_CBC_CMD": "CBC", "HiGHS": "HiGHS", "HiGHS_CMD": "HiGHS"}
_SOLVED = ("optimal", "feasible")


@dataclass(frozen=True)
class Change:
    """One change: what ``name`` addresses (``rhs`` of a constraint, ``up``/``low`` bound
    or ``cost`` of a variable), the constraint or variable, and the new value."""

    name: str
    kind: str
    target: str
    value: float | None  # None: the bound removed


def _addresses(model: Mapping[str, Any]) -> dict[str, tuple[str, str]]:
    """Every name a change may use -> (kind, target), constraints first."""
    out: dict[str, tuple[str, str]] = {}
    for variable in model["variables"]:
        name = variable["name"]
        out[f"{name}.up"] = ("up", name)
        out[f"{name}.low"] = ("low", name)
        out[f"obj.{name}"] = ("cost", name)
    for constraint in model["constraints"]:
        out[constraint["name"]] = ("rhs", constraint["name"])
    return out


def _number(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise LpBackendError(
            f"what-if: the value of {name!r} must be a number, not {value!r}", code="change"
        )
    number = float(value)
    if not math.isfinite(number):
        raise LpBackendError(
            f"what-if: the value of {name!r} must be finite (None removes a bound)",
            code="change",
        )
    return number


_BOUND_KEYS = {"up": ("upBound", "upper"), "low": ("lowBound", "lower")}


def _removed(model: Mapping[str, Any], name: str, kind: str, target: str) -> None:
    """Check that ``name`` may be removed: a bound (not a right-hand side or a
    coefficient) the variable has."""
    if kind not in _BOUND_KEYS:
        what = "a right-hand side" if kind == "rhs" else "an objective coefficient"
        raise LpBackendError(
            f"what-if: {name!r} is {what} and needs a finite number; only a bound "
            "(VAR.up, VAR.low) can be removed (none; None in Python)",
            code="change",
        )
    key, side = _BOUND_KEYS[kind]
    variable = next(v for v in model["variables"] if v["name"] == target)
    if variable.get(key) is None:
        raise LpBackendError(
            f"what-if: {target!r} has no {side} bound to remove ({name!r})", code="change"
        )


def parse_changes(model: Mapping[str, Any], changes: Mapping[str, Any]) -> list[Change]:
    """The changes of ``changes`` (name -> value, ``None`` to remove a bound) against a
    model in pulp's dict form (:meth:`pulp.LpProblem.to_dict`, constraints named);
    ``LpBackendError`` for an empty set, an unknown name, a value that is no finite
    number, or ``None`` for anything but a bound the variable has."""
    if not changes:
        raise LpBackendError("what-if: no change given", code="change")
    known = _addresses(model)
    out: list[Change] = []
    for name, value in changes.items():
        found = known.get(name)
        if found is None:
            raise LpBackendError(
                f"what-if: {name!r} names no constraint, bound (VAR.up, VAR.low) or objective "
                f"coefficient (obj.VAR) of the model{_closest(name, known)}",
                code="change",
            )
        if value is None:
            _removed(model, name, *found)
            out.append(Change(name, found[0], found[1], None))
        else:
            out.append(Change(name, found[0], found[1], _number(name, value)))
    return out


def _model_dict(problem: Any) -> dict[str, Any]:
    """The problem in pulp's dict form, every constraint under the name pulp gave it."""
    # pulp 3 names it toDict (to_dict warns), pulp 2 to_dict
    to_dict = getattr(problem, "toDict", None) or problem.to_dict
    model: dict[str, Any] = to_dict()
    for constraint, name in zip(model["constraints"], constraint_names(problem), strict=True):
        constraint["name"] = name
    if model.get("objective") is None:
        model["objective"] = {"name": None, "coefficients": []}
    return model


def _applied(model: Mapping[str, Any], changes: list[Change]) -> dict[str, Any]:
    """A copy of ``model`` with the changes made."""
    import copy

    out: dict[str, Any] = copy.deepcopy(dict(model))
    variables = {v["name"]: v for v in out["variables"]}
    constraints = {c["name"]: c for c in out["constraints"]}
    for change in changes:
        if change.kind == "rhs":  # a number: parse_changes allows None for a bound only
            constraints[change.target]["constant"] = -(change.value or 0.0)
        elif change.kind == "up":
            variables[change.target]["upBound"] = change.value
        elif change.kind == "low":
            variables[change.target]["lowBound"] = change.value
        else:
            terms = out["objective"]["coefficients"]
            term = next((t for t in terms if t["name"] == change.target), None)
            if term is None:
                terms.append({"name": change.target, "value": change.value})
            else:
                term["value"] = change.value
    return out


def _solved(model: Mapping[str, Any], solver: str) -> SolutionFacts:
    import pulp

    load = getattr(pulp.LpProblem, "fromDict", None) or pulp.LpProblem.from_dict
    _, problem = load(dict(model))
    return facts_of(solve_problem(problem, solver))


@dataclass
class _Build:
    before: SolutionFacts
    after: SolutionFacts
    labels: Labels
    names: _Names
    variables: dict[str, _Item]
    constraints: dict[str, _Item]
    objective: str
    change: str = ""
    used: list[str] = field(default_factory=list)
    named: set[str] = field(default_factory=set)
    pending: list[tuple[str, str, str, dict[str, str], dict[str, Any]]] = field(
        default_factory=list
    )

    def node(
        self, node_id: str, node_type: str, template: str, slots: dict[str, str], **kw: Any
    ) -> None:
        self.used.append(template)
        self.pending.append((node_id, node_type, template, {"change": self.change, **slots}, kw))

    def money(self, value: float) -> str:
        label = self.labels.objective
        return _show(value, ItemLabel(format=label.format, decimals=label.decimals))


def _words(build: _Build, change: Change) -> str:
    """A change in words: ``an upper limit of 250 hours on machine time at Austin``."""
    if change.value is None:  # a bound removed (parse_changes allows no other None)
        item = build.variables[change.target]
        build.named.update(item.entities)
        side = "upper" if change.kind == "up" else "lower"
        return f"the {side} bound on {item.phrase} removed"
    if change.kind == "cost":
        item = build.variables[change.target]
        build.named.update(item.entities)
        article = "an" if build.objective[:1].lower() in "aeiou" else "a"
        money = build.money(change.value)
        return f"{article} {build.objective} of {money} per unit of {item.phrase}"
    if change.kind == "rhs":
        item = build.constraints[change.target]
        build.named.update(item.entities)
        value = _show(change.value, item.label)
        shown = value + item.unit_of(value)
        row = next(c for c in build.before.constraints if c.name == change.target)
        if _linking(build.before, row):
            return f"the right-hand side of {item.phrase} at {shown}"
        if row.sense == "=":
            return f"{item.phrase} held at exactly {shown}"
        side = "an upper" if row.sense == "<=" else "a lower"
        return f"{side} limit of {shown} on {item.phrase}"
    item = build.variables[change.target]
    build.named.update(item.entities)
    fact = next(v for v in build.before.variables if v.name == change.target)
    if fact.binary and (change.kind, change.value) == ("up", 0.0):
        return f"{item.phrase} kept out of the plan"
    if fact.binary and (change.kind, change.value) == ("low", 1.0):
        return f"{item.phrase} forced into the plan"
    integer = fact.integer
    value = _show(change.value, item.label, integer=integer)
    shown = value + item.unit_of(value)
    side = "an upper" if change.kind == "up" else "a lower"
    return f"{side} bound of {shown} on {item.phrase}"


def _joined(parts: list[str]) -> str:
    if len(parts) <= 2:
        return " and ".join(parts)
    return ", ".join(parts[:-1]) + ", and " + parts[-1]


def _linking(facts: SolutionFacts, fact: ConstraintFact) -> bool:
    binary = {v.name: v.binary for v in facts.variables}
    return linking(fact, lambda name: binary[name]) is not None


def _result(build: _Build, changes: list[Change]) -> None:
    before, after = build.before, build.after
    data: dict[str, Any] = {
        "status_before": before.status,
        "status_after": after.status,
        "objective_before": before.objective,
        "objective_after": after.objective,
        "sense": before.sense,
        "solver": _SOLVER_NAMES.get(after.solver, after.solver),
        "changes": [
            {"name": c.name, "kind": c.kind, "target": c.target, "value": c.value} for c in changes
        ],
    }
    objective = build.objective
    pair = (before.status, after.status)
    if before.status == "optimal" and after.status in _SOLVED:
        old, new = before.objective or 0.0, after.objective or 0.0
        shown_old, shown_new = build.money(old), build.money(new)
        slots = {"objective": objective, "before": shown_old, "after": shown_new}
        if after.status == "feasible":
            template, required = "whatif_found", ["not proven optimal"]
        elif shown_old == shown_new:
            template, required = "whatif_objective_same", [f"at {shown_old}"]
            del slots["after"]
        else:
            template = "whatif_objective_up" if new > old else "whatif_objective_down"
            slots["difference"] = build.money(abs(new - old))
            required = [f"from {shown_old} to {shown_new}"]
        data["difference"] = new - old
        salience = _salience(new - old)
    elif before.status == "optimal" and after.status in ("infeasible", "unbounded"):
        shown_old = build.money(before.objective or 0.0)
        slots = {"objective": objective, "before": shown_old}
        if after.status == "infeasible":
            template, required = "whatif_infeasible", ["no feasible plan"]
        else:
            template, required = f"whatif_unbounded_{after.sense}", ["unbounded"]
        salience = None
    elif pair == ("infeasible", "optimal"):
        shown_new = build.money(after.objective or 0.0)
        slots = {"objective": objective, "after": shown_new}
        template, required, salience = "whatif_feasible", ["finds a feasible plan"], None
    elif pair == ("infeasible", "infeasible"):
        slots, template, required, salience = {}, "whatif_still_infeasible", ["infeasible"], None
    else:
        raise LpBackendError(
            f"what-if: the model is {before.status} without the change and {after.status} "
            "with it; a what-if compares an optimal or infeasible model with its change",
            code="status",
        )
    build.node(
        "result",
        "WHATIF_RESULT",
        template,
        slots,
        data=data,
        required=["Re-solving with", *required],
        headline=True,
        salience=salience,
    )


def _decisions(build: _Build) -> None:
    after = {v.name: v for v in build.after.variables}
    for old in build.before.variables:
        new = after[old.name]
        item = build.variables[old.name]
        data = {"variable": old.name, "before": old.value, "after": new.value}
        salience = _salience(new.cost * new.value - old.cost * old.value)
        if old.integer and new.integer and (old.binary or new.binary):
            was, now = round(old.value) == 1, round(new.value) == 1
            if was == now:
                continue
            template = "whatif_chosen_in" if now else "whatif_chosen_out"
            required = ["into the plan" if now else "from the plan"]
            slots = {"name": item.phrase}
        else:
            integer = old.integer and new.integer
            shown_old = _show(old.value, item.label, integer=integer)
            shown_new = _show(new.value, item.label, integer=integer)
            if shown_old == shown_new:
                continue
            up = new.value > old.value
            template = "whatif_decision_up" if up else "whatif_decision_down"
            before_unit, after_unit = item.unit_of(shown_old), item.unit_of(shown_new)
            slots = {"name": item.phrase, "before": shown_old, "after": shown_new}
            slots |= {"before_unit": before_unit, "after_unit": after_unit}
            required = [f"from {shown_old}{before_unit} to {shown_new}{after_unit}"]
        build.named.update(item.entities)
        build.node(
            f"decision:{old.name}",
            "WHATIF_DECISION",
            template,
            slots,
            data=data,
            required=required,
            salience=salience,
        )


def _constraints(build: _Build) -> None:
    after = {c.name: c for c in build.after.constraints}
    for old in build.before.constraints:
        new = after[old.name]
        if new.sense == "=" or old.binding == new.binding or _linking(build.after, new):
            continue
        item = build.constraints[old.name]
        side = "upper" if new.sense == "<=" else "lower"
        rhs = _show(new.rhs, item.label)
        rhs_unit = item.unit_of(rhs)
        slots = {"name": item.phrase, "rhs": rhs, "rhs_unit": rhs_unit}
        if new.binding:
            template, required = f"whatif_binds_{side}", [f"limit of {rhs}{rhs_unit}"]
        else:
            slack = _show(new.slack, item.label)
            slack_unit = item.unit_of(slack)
            slots |= {"slack": slack, "slack_unit": slack_unit}
            template, required = f"whatif_frees_{side}", [f"{slack}{slack_unit}"]
        data = {
            "constraint": old.name,
            "sense": new.sense,
            "rhs_before": old.rhs,
            "rhs_after": new.rhs,
            "binding_before": old.binding,
            "binding_after": new.binding,
            "slack_after": new.slack,
        }
        build.named.update(item.entities)
        build.node(
            f"constraint:{old.name}",
            "WHATIF_CONSTRAINT",
            template,
            slots,
            data=data,
            required=required,
        )


def _graph_id(labels: Labels, facts: SolutionFacts) -> str:
    base = labels.graph_id or "lp-" + (
        re.sub(r"[^a-z0-9]+", "_", facts.name.lower()).strip("_") or "model"
    )
    return f"{base}-what-if"


def build_what_if(
    before: SolutionFacts, after: SolutionFacts, changes: list[Change], labels: Labels
) -> EvidenceGraph:
    """The what-if graph of two solutions of one model, before and after ``changes``."""
    names = _Names(labels)
    taken: set[str] = {e.id for e in labels.entities}
    variables = {v.name: names.item(v.name, "variable", taken) for v in before.variables}
    constraints = {c.name: names.item(c.name, "constraint", taken) for c in before.constraints}
    _check_labels_used(labels, names, before)
    objective = _objective_name(before, labels)
    build = _Build(before, after, labels, names, variables, constraints, objective)
    build.change = _joined([_words(build, c) for c in changes])
    _result(build, changes)
    if before.status in _SOLVED and after.status in _SOLVED:
        _decisions(build)
        _constraints(build)
    kind = "mixed-integer program" if before.integer else "linear program"
    solver = _SOLVER_NAMES.get(after.solver, after.solver or "a solver")
    builder = GraphBuilder(
        _graph_id(labels, before),
        labels.domain or "optimization",
        backend=f"a {kind} solved with {solver} (pulp) before and after a change",
    )
    for entity in names.entities.values():
        if entity.id in build.named:
            builder.entity(entity.id, entity.kind, name=entity.name, aliases=entity.aliases)
    add_templates(builder, build.used)
    for node_id, node_type, template, slots, kw in build.pending:
        builder.node(node_id, node_type, template=template, slots=slots, **kw)
        if node_id != "result":
            relation = "constrains" if node_type == "WHATIF_CONSTRAINT" else "contributes_to"
            builder.edge(node_id, "result", relation)
    for claim_type, types in RULES:
        builder.rule(claim_type, [list(types)])
    try:
        return builder.build()
    except GraphError as exc:
        raise LpBackendError(
            f"the what-if graph of model {before.name!r} does not load: {exc}", code="graph"
        ) from None


def what_if(
    problem: Any,
    changes: Mapping[str, float | None],
    *,
    labels: LabelsSource = None,
    solver: str = "cbc",
) -> EvidenceGraph:
    """The evidence graph of ``changes`` to a pulp problem, found by re-solving.

    ``changes`` maps a name to its new value: a constraint's name (its right-hand side),
    ``VAR.up`` / ``VAR.low`` (a variable's bound; ``None`` removes it) or ``obj.VAR``
    (its objective coefficient). The model is solved as it is and with the changes, on copies (the
    problem passed in is left as it was), with ``solver`` (``cbc`` or ``highs``); the
    graph states the objective before and after and the difference, each decision that
    changed, each constraint that became or stopped being binding, and a changed model
    with no feasible plan or no bound as such. ``LpBackendError`` (an ``InputError``) for
    an unknown name, a value that is no number, labels that match nothing or a solver
    that cannot decide.
    """
    chosen = load_labels(labels)
    model = _model_dict(problem)
    parsed = parse_changes(model, changes)
    before = _solved(model, solver)
    after = _solved(_applied(model, parsed), solver)
    return build_what_if(before, after, parsed, chosen)

"""The statement templates of a what-if graph: a model re-solved with a change.

Every statement says how it was obtained: it opens with ``Re-solving with {change}``
(a variant may front the change as ``With {change}, re-solving ...`` or close on it as
``By re-solving with {change}, ...``), and ``{change}`` is the change itself in words
(``the upper limit on machine time at the Austin plant at 250 hours``), a ``condition``
slot: the facts it opens hold under it. As in :mod:`._templates`, no variant drops the
optimality of a result (``optimal``, ``not proven optimal``), a unit, the direction of a
move (``raises``/``lowers``, ``into``/``from`` the plan, ``below``/``above``), the
order ``from {before} to {after}`` or the state before the change; no variant adds a
quantifier or a negation its canonical lacks. A ``{..._unit}`` slot holds a space and
the unit of the value before it (singular after exactly 1) or nothing. Patterns:
``{slot}``, ``(a|b)``, ``[optional]`` (:mod:`verity.text.variation`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from verity.core.builder import GraphBuilder

__all__ = ["COORDINABLE", "SLOT_KINDS", "TEMPLATES", "add_templates"]

_OPTIMAL = "(optimal|best possible)"
_WITHOUT = "without the change, the optimal {objective} (is|was) {before}"


def _objective(up: bool) -> tuple[str, list[str]]:
    verb, verbs = ("raises", "(raises|increases)") if up else ("lowers", "(lowers|reduces)")
    moves = "(rises|increases|goes up)" if up else "(falls|decreases|goes down)"
    by = "(by|a rise of|an increase of)" if up else "(by|a drop of|a decrease of)"
    return (
        f"Re-solving with {{change}} {verb} the optimal {{objective}} from {{before}} to "
        "{after}, by {difference}.",
        [
            f"Re-solving with {{change}} {verbs} the {_OPTIMAL} {{objective}} from {{before}} "
            f"to {{after}}, {by} {{difference}}.",
            f"With {{change}}, re-solving {verbs} the {_OPTIMAL} {{objective}} from "
            f"{{before}} to {{after}}, {by} {{difference}}.",
            f"By re-solving with {{change}}, the {_OPTIMAL} {{objective}} {moves} by "
            "{difference}, from {before} to {after}.",
        ],
    )


def _decision(up: bool) -> tuple[str, list[str]]:
    verb, verbs = ("raises", "(raises|increases)") if up else ("lowers", "(lowers|reduces)")
    moves = "(rises|increases|goes up)" if up else "(falls|decreases|goes down)"
    span = "from {before}{before_unit} to {after}{after_unit}"
    return (
        f"Re-solving with {{change}} {verb} {{name}} {span}.",
        [
            f"Re-solving with {{change}} {verbs} {{name}} {span}.",
            f"With {{change}}, re-solving {verbs} {{name}} {span}.",
            f"By re-solving with {{change}}, {{name}} {moves} {span}.",
        ],
    )


def _binds(side: str, words: str) -> tuple[str, list[str]]:
    before = "(before the change it did not|without the change it does not)"
    return (
        f"Re-solving with {{change}} makes the {side} limit of {{rhs}}{{rhs_unit}} on {{name}} "
        "bind; before the change it did not.",
        [
            f"Re-solving with {{change}} makes the {words} of {{rhs}}{{rhs_unit}} on {{name}} "
            f"bind; {before}.",
            f"With {{change}}, re-solving (puts|holds) {{name}} at its {words} of "
            f"{{rhs}}{{rhs_unit}}; {before}.",
        ],
    )


def _frees(side: str, words: str, where: str) -> tuple[str, list[str]]:
    before = "(before the change it was binding|without the change it binds)"
    return (
        f"Re-solving with {{change}} leaves {{name}} {{slack}}{{slack_unit}} {where} its {side} "
        "limit of {rhs}{rhs_unit}; before the change it was binding.",
        [
            f"Re-solving with {{change}} (leaves|keeps) {{name}} {{slack}}{{slack_unit}} "
            f"{where} its {words} of {{rhs}}{{rhs_unit}}; {before}.",
            f"With {{change}}, re-solving (leaves|keeps) {{name}} {{slack}}{{slack_unit}} "
            f"{where} its {words} of {{rhs}}{{rhs_unit}}; {before}.",
        ],
    )


def _unbounded(verb: str, verbs: str) -> tuple[str, list[str]]:
    return (
        f"Re-solving with {{change}} makes the model unbounded: {{objective}} can {verb} "
        "without limit; without the change, the optimal {objective} is {before}.",
        [
            f"Re-solving with {{change}} makes (the model|the problem) unbounded: {{objective}} "
            f"can {verbs} without limit; {_WITHOUT}."
        ],
    )


_UPPER = "(upper limit|maximum|limit)"
_LOWER = "(lower limit|minimum)"

#: Template id -> (canonical pattern, variants), in the order graphs list them.
TEMPLATES: Mapping[str, tuple[str, list[str]]] = {
    "whatif_objective_up": _objective(True),
    "whatif_objective_down": _objective(False),
    "whatif_objective_same": (
        "Re-solving with {change} leaves the optimal {objective} at {before}.",
        [
            f"Re-solving with {{change}} (leaves|keeps) the {_OPTIMAL} {{objective}} "
            "(at|unchanged at) {before}.",
            f"With {{change}}, re-solving (leaves|keeps) the {_OPTIMAL} {{objective}} "
            "(at|unchanged at) {before}.",
        ],
    ),
    "whatif_found": (
        "Re-solving with {change} changes the best {objective} found, not proven optimal, "
        "from {before} to {after}.",
        [
            "Re-solving with {change} (changes|moves) the best {objective} (found|the solver "
            "found), not proven optimal, from {before} to {after}."
        ],
    ),
    "whatif_infeasible": (
        "Re-solving with {change} finds no feasible plan: the changed model is infeasible; "
        "without the change, the optimal {objective} is {before}.",
        [
            "Re-solving with {change} finds no (feasible plan|feasible solution): the changed "
            f"(model|problem) is infeasible; {_WITHOUT}.",
            "With {change}, re-solving finds no (feasible plan|feasible solution): the changed "
            f"(model|problem) is infeasible; {_WITHOUT}.",
        ],
    ),
    "whatif_still_infeasible": (
        "Re-solving with {change} finds no feasible plan: the changed model is infeasible, "
        "as is the model without the change.",
        [
            "Re-solving with {change} (still finds|finds) no (feasible plan|feasible solution): "
            "the changed (model|problem) is infeasible, as is the (model|problem) without the "
            "change."
        ],
    ),
    "whatif_feasible": (
        "Re-solving with {change} finds a feasible plan where the model without the change "
        "has none: the optimal {objective} is {after}.",
        [
            "Re-solving with {change} finds a feasible plan where the (model|problem) without "
            f"the change has none: the {_OPTIMAL} {{objective}} (is|comes to) {{after}}."
        ],
    ),
    "whatif_unbounded_max": _unbounded("grow", "(grow|rise|increase)"),
    "whatif_unbounded_min": _unbounded("fall", "(fall|drop|decrease)"),
    "whatif_decision_up": _decision(True),
    "whatif_decision_down": _decision(False),
    "whatif_chosen_in": (
        "Re-solving with {change} brings {name} into the plan.",
        [
            "Re-solving with {change} (brings|puts) {name} into the plan.",
            "With {change}, re-solving (brings|puts) {name} into the plan.",
        ],
    ),
    "whatif_chosen_out": (
        "Re-solving with {change} drops {name} from the plan.",
        [
            "Re-solving with {change} (drops|removes) {name} from the plan.",
            "With {change}, re-solving (drops|removes) {name} from the plan.",
        ],
    ),
    "whatif_binds_upper": _binds("upper", _UPPER),
    "whatif_binds_lower": _binds("lower", _LOWER),
    "whatif_frees_upper": _frees("upper", _UPPER, "below"),
    "whatif_frees_lower": _frees("lower", _LOWER, "above"),
}

#: Per template, the slots a claim may coordinate: a choice that holds of each item apart
#: (``Re-solving with ... drops A and B from the plan``). A value is never coordinable.
COORDINABLE: Mapping[str, tuple[str, ...]] = {
    "whatif_chosen_in": ("name",),
    "whatif_chosen_out": ("name",),
}

_RESULT_KINDS = {
    "change": "condition",
    "objective": "subject",
    "before": "amount",
    "after": "amount",
    "difference": "amount",
}
_ITEM_KINDS = {
    "change": "condition",
    "name": "subject",
    "before": "amount",
    "after": "amount",
    "rhs": "amount",
    "slack": "amount",
}

#: Per template, the kind of each slot that has one (see :mod:`verity.text.kinds`): the
#: change is the condition every fact of a what-if graph holds under.
SLOT_KINDS: Mapping[str, Mapping[str, str]] = {
    tid: _ITEM_KINDS if "{name}" in canonical else _RESULT_KINDS
    for tid, (canonical, _) in TEMPLATES.items()
}


def add_templates(builder: GraphBuilder, used: Sequence[str]) -> None:
    """Add to ``builder`` every template some node uses, in table order, with the kinds
    of the slots its canonical pattern uses."""
    wanted = set(used)
    for tid, (canonical, variants) in TEMPLATES.items():
        if tid in wanted:
            kinds = {k: v for k, v in SLOT_KINDS[tid].items() if "{" + k + "}" in canonical}
            builder.template(
                tid, canonical, variants, coordinable=COORDINABLE.get(tid, ()), slot_kinds=kinds
            )

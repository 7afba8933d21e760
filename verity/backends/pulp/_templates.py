"""The statement templates of optimization-model graphs: what a claim may say instead.

Every canonical pattern starts with fixed words, so a statement reads well as it is; the
variants are the sentences a capable writer uses for the same fact. No variant drops the
optimality of a result (``optimal``, ``not proven optimal``), a unit, the direction of a
limit (``upper``/``lower``, ``below``/``above``), ``exactly`` of an equality, the ``At the
margin`` condition of a sensitivity or the direction of its effect (``raises``/``lowers``):
those stay in every variant, or the variant does not exist. ``{unit}`` holds a space and
the unit (`` hours``) or nothing. Patterns: ``{slot}``, ``(a|b)``, ``[optional]``
(:mod:`verity.text.variation`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from verity.core.builder import GraphBuilder

__all__ = ["COORDINABLE", "TEMPLATES", "add_templates"]

_IS = "(is|comes to|equals)"
_EACH = "each (unit|extra unit|additional unit)"


def _optimal(best: str) -> tuple[str, list[str]]:
    return (
        "The optimal {objective} is {value}.",
        [
            f"The (optimal|best possible|{best}) {{objective}} {_IS} {{value}}.",
            f"At the optimum, {{objective}} {_IS} {{value}}.",
            "{objective} (is|comes to) {value} at the optimum.",
        ],
    )


def _unbounded(verb: str, verbs: str) -> tuple[str, list[str]]:
    return (
        f"The model is unbounded: {{objective}} can {verb} without limit.",
        [f"(The model|The problem) is unbounded: {{objective}} can {verbs} without limit."],
    )


def _binding(side: str, words: str) -> tuple[str, list[str]]:
    return (
        f"The {side} limit of {{rhs}}{{unit}} on {{name}} binds.",
        [
            f"The {words} of {{rhs}}{{unit}} on {{name}} (binds|is binding|is reached).",
            f"{{name}} (is at|reaches|hits) its {words} of {{rhs}}{{unit}}.",
            f"The plan (puts|holds|keeps) {{name}} at its {words} of {{rhs}}{{unit}}.",
        ],
    )


def _slack(side: str, words: str, where: str) -> tuple[str, list[str]]:
    return (
        f"The plan keeps {{name}} {{slack}}{{unit}} {where} its {side} limit of {{rhs}}{{unit}}.",
        [
            f"The plan (keeps|leaves|holds) {{name}} {{slack}}{{unit}} {where} its {words} of "
            "{rhs}{unit}.",
            f"In the plan, {{name}} (stays|is|remains) {{slack}}{{unit}} {where} its {words} of "
            "{rhs}{unit}.",
        ],
    )


def _bound(side: str, words: str) -> tuple[str, list[str]]:
    return (
        f"The plan puts {{name}} at its {side} bound of {{bound}}{{unit}}.",
        [
            f"The plan (puts|sets|holds) {{name}} at its {words} of {{bound}}{{unit}}.",
            f"In the plan, {{name}} (is at|reaches|hits) its {words} of {{bound}}{{unit}}.",
        ],
    )


def _shadow(verb: str, verbs: str) -> tuple[str, list[str]]:
    return (
        f"At the margin, each unit added to the {{what}} of {{name}} {verb} {{objective}} by "
        "{dual}.",
        [
            f"At the margin, {_EACH} added to the {{what}} of {{name}} {verbs} {{objective}} "
            "by {dual}.",
            f"At the margin, raising the {{what}} of {{name}} by one unit {verbs} {{objective}} "
            "by {dual}.",
        ],
    )


def _reduced(verb: str, verbs: str) -> tuple[str, list[str]]:
    return (
        f"At the margin, each unit of {{name}} {{move}} {verb} {{objective}} by {{cost}}.",
        [f"At the margin, {_EACH} of {{name}} {{move}} {verbs} {{objective}} by {{cost}}."],
    )


#: Template id -> (canonical pattern, variants), in the order graphs list them.
TEMPLATES: Mapping[str, tuple[str, list[str]]] = {
    "result_optimal_max": _optimal("highest possible|maximum"),
    "result_optimal_min": _optimal("lowest possible|minimum"),
    "result_feasible": (
        "The best {objective} found, not proven optimal, is {value}.",
        [
            "The best {objective} (found|the solver found), not proven optimal, (is|comes to) "
            "{value}."
        ],
    ),
    "result_infeasible": (
        "The model is infeasible: no plan meets every constraint.",
        [
            "(The model|The problem) is infeasible: no plan (meets|satisfies) every constraint.",
            "No plan (meets|satisfies) every constraint: (the model|the problem) is infeasible.",
        ],
    ),
    "result_unbounded_max": _unbounded("grow", "(grow|rise|increase)"),
    "result_unbounded_min": _unbounded("fall", "(fall|drop|decrease)"),
    "decision": (
        "The plan sets {name} to {value}{unit}.",
        [
            "The plan (sets|puts) {name} (to|at) {value}{unit}.",
            "In the plan, {name} " + _IS + " {value}{unit}.",
        ],
    ),
    "decision_chosen": (
        "The plan includes {name}.",
        [
            "The plan (includes|selects|chooses|picks) {name}.",
            "In the plan, {name} is (chosen|selected|included).",
        ],
    ),
    "binding_upper": _binding("upper", "(upper limit|maximum|limit)"),
    "binding_lower": _binding("lower", "(lower limit|minimum)"),
    "binding_equal": (
        "The plan holds {name} at exactly {rhs}{unit}.",
        [
            "The plan (holds|keeps|fixes) {name} at exactly {rhs}{unit}.",
            "In the plan, {name} (is|stays) at exactly {rhs}{unit}.",
        ],
    ),
    "slack_upper": _slack("upper", "(upper limit|maximum|limit)", "below"),
    "slack_lower": _slack("lower", "(lower limit|minimum)", "above"),
    "bound_upper": _bound("upper", "(upper bound|maximum)"),
    "bound_lower": _bound("lower", "(lower bound|minimum)"),
    "shadow_raises": _shadow("raises", "(raises|increases)"),
    "shadow_lowers": _shadow("lowers", "(lowers|reduces)"),
    "reduced_raises": _reduced("raises", "(raises|increases)"),
    "reduced_lowers": _reduced("lowers", "(lowers|reduces)"),
    "note_integer": (
        "The model has integer variables, so no shadow prices or reduced costs are reported.",
        [
            "(The model|The problem) has integer variables, so (no shadow prices or reduced "
            "costs are reported|it reports no shadow prices or reduced costs)."
        ],
    ),
    "note_degenerate": (
        "The solution is degenerate, so its shadow prices and reduced costs are not unique "
        "and are not reported.",
        [],
    ),
    "note_not_vertex": (
        "The solution is not a vertex of the model, so no shadow prices or reduced costs are "
        "reported.",
        [],
    ),
    "note_unchecked": (
        "The solver's shadow prices and reduced costs do not check out, so none are reported.",
        [],
    ),
}

#: Per template, the slots a claim may coordinate: only a choice that holds of each chosen
#: item apart (``The plan includes A and B``). A value is never coordinable: ``The plan
#: sets A and B to 5 units`` reads as a total.
COORDINABLE: Mapping[str, tuple[str, ...]] = {"decision_chosen": ("name",)}


def add_templates(builder: GraphBuilder, used: Sequence[str]) -> None:
    """Add to ``builder`` every template some node uses, in table order."""
    wanted = set(used)
    for tid, (canonical, variants) in TEMPLATES.items():
        if tid in wanted:
            builder.template(tid, canonical, variants, coordinable=COORDINABLE.get(tid, ()))

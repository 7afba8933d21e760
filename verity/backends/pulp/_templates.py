"""The statement templates of optimization-model graphs: what a claim may say instead.

Every canonical pattern starts with fixed words, so a statement reads well as it is; the
variants are the sentences a capable writer uses for the same fact. No variant drops the
optimality of a result (``optimal``, ``not proven optimal``), a unit, the direction of a
limit (``upper``/``lower``, ``below``/``above``), ``exactly`` of an equality, the ``At the
margin`` condition of a sensitivity or the direction of its effect (``raises``/``lowers``):
those stay in every variant, or the variant does not exist. A linking row's templates
keep ``at most``/``at least``, the factor and the other side, and the condition of its
state (its switch in or out of the plan); no variant adds a quantifier or a negation its
canonical lacks. ``{unit}`` holds a space and
the unit (`` hours``) or nothing. Patterns: ``{slot}``, ``(a|b)``, ``[optional]``
(:mod:`verity.text.variation`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from verity.core.builder import GraphBuilder

__all__ = ["COORDINABLE", "SLOT_KINDS", "TEMPLATES", "add_templates"]

_IS = "(is|comes to|equals)"
_EACH = "each (unit|extra unit|additional unit)"


#: The plan's size after a result's value: ``5 decisions`` (``1 decision``) in the plan.
_PLAN_SIZE = "[(, with|, and there are) {size} in the plan]"


def _optimal(best: str) -> tuple[str, list[str]]:
    return (
        "The optimal {objective} is {value}, with {size} in the plan.",
        [
            f"The (optimal|best possible|{best}) {{objective}} {_IS} {{value}}{_PLAN_SIZE}.",
            f"At the optimum, {{objective}} {_IS} {{value}}{_PLAN_SIZE}.",
            "{objective} (is|comes to) {value} at the optimum" + _PLAN_SIZE + ".",
        ],
    )


def _unbounded(verb: str, verbs: str) -> tuple[str, list[str]]:
    return (
        f"The model is unbounded: {{objective}} can {verb} without limit.",
        [f"(The model|The problem) is unbounded: {{objective}} can {verbs} without limit."],
    )


#: A subject may be singular or plural (``sales of chairs``, ``chairs made at Austin``):
#: canonical patterns name a limit with ``the``, and variants agree in number either way.
_ITS = "(its|their|the)"


def _binding(side: str, words: str) -> tuple[str, list[str]]:
    return (
        f"The {side} limit of {{rhs}}{{unit}} on {{name}} binds.",
        [
            f"The {words} of {{rhs}}{{unit}} on {{name}} (binds|is binding|is reached).",
            f"{{name}} (is at|are at|reaches|reach|hits|hit) {_ITS} {words} of {{rhs}}{{unit}}.",
            f"The plan (puts|holds|keeps) {{name}} at {_ITS} {words} of {{rhs}}{{unit}}.",
        ],
    )


def _slack(side: str, words: str, where: str) -> tuple[str, list[str]]:
    return (
        f"The plan keeps {{name}} {{slack}}{{unit}} {where} the {side} limit of {{rhs}}{{unit}}.",
        [
            f"The plan (keeps|leaves|holds) {{name}} {{slack}}{{unit}} {where} {_ITS} {words} of "
            "{rhs}{unit}.",
            f"In the plan, {{name}} (stays|stay|is|are|remains|remain) {{slack}}{{unit}} {where} "
            f"{_ITS} {words} of {{rhs}}{{unit}}.",
        ],
    )


def _bound_at(side: str, words: str) -> tuple[str, list[str]]:
    """A decision at its bound, whose value its decision node states: the bound is not
    stated again (each fact once)."""
    return (
        f"The plan puts {{name}} at the {side} bound.",
        [
            f"The plan (puts|sets|holds) {{name}} at {_ITS} {words}.",
            f"In the plan, {{name}} (is at|are at|reaches|reach|hits|hit) {_ITS} {words}.",
        ],
    )


def _bound(side: str, words: str) -> tuple[str, list[str]]:
    return (
        f"The plan puts {{name}} at the {side} bound of {{bound}}{{unit}}.",
        [
            f"The plan (puts|sets|holds) {{name}} at {_ITS} {words} of {{bound}}{{unit}}.",
            f"In the plan, {{name}} (is at|are at|reaches|reach|hits|hit) {_ITS} {words} of "
            "{bound}{unit}.",
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


def _link(words: str, verbs: str) -> tuple[str, list[str]]:
    """A linking row as the model states it: ``{right}`` is the other side, its factor
    and any constant (``3,000 times the opening of the South depot``)."""
    return (
        f"In the model, {{left}} {words} {{right}}.",
        [f"In the model, {{left}} {verbs} {{right}}."],
    )


#: How a linking row's state opens: the condition the plan sets on its other side.
#: ``on``/``off``: a binary switch in or out of the plan; ``with``: one other decision at
#: its value; ``plan``: several.
_PREFIXES: Mapping[str, tuple[str, list[str]]] = {
    "on": (
        "With {switch} in the plan, ",
        ["With {switch} in the plan, ", "The plan (includes|selects|chooses) {switch}, so "],
    ),
    "off": (
        "Without {switch} in the plan, ",
        ["Without {switch} in the plan, ", "The plan (leaves out|omits) {switch}, so "],
    ),
    "with": (
        "With {switch} at {switch_value}{switch_unit}, ",
        [
            "With {switch} at {switch_value}{switch_unit}, ",
            "The plan (sets|puts) {switch} (to|at) {switch_value}{switch_unit}, so ",
        ],
    ),
    "plan": ("In the plan, ", ["In the plan, "]),
}
_VALUE = "(; it is|, and it is|; the plan sets it to|, and the plan sets it to) {value}{unit}."

#: What the row then asks of the subject: ``upto`` a limit it may reach (with its value),
#: ``zero`` nothing but 0 (a closed site), ``atleast`` a minimum that holds, ``lapsed`` a
#: minimum that does not (its switch is off), ``exact`` an equality.
_BODIES: Mapping[str, tuple[str, list[str]]] = {
    "upto": (
        "{left} may reach {limit}{unit}; it is {value}{unit}.",
        ["{left} (may reach|can reach|may go up to) {limit}{unit}" + _VALUE],
    ),
    "zero": ("{left} must be 0{unit}.", ["{left} (must be|stays at|is held at) 0{unit}."]),
    "atleast": (
        "{left} must be at least {limit}{unit}; it is {value}{unit}.",
        ["{left} (must be|has to be) at least {limit}{unit}" + _VALUE],
    ),
    "lapsed": (
        "the minimum of {limit}{unit} on {left} does not apply.",
        ["the minimum of {limit}{unit} on {left} does not apply."],
    ),
    "exact": (
        "{left} must be exactly {limit}{unit}.",
        ["{left} (must be|is held at) exactly {limit}{unit}."],
    ),
}


def _state(prefix: str, body: str) -> tuple[str, list[str]]:
    """The state of a linking row in the plan: its condition, then what it asks."""
    first, firsts = _PREFIXES[prefix]
    then, thens = _BODIES[body]
    return first + then, [a + b for a in firsts for b in thens]


def _summary_reduced(verb: str, verbs: str) -> tuple[str, list[str]]:
    """Reduced costs counted (:mod:`._summary`): how many, the least of them."""
    return (
        f"At the margin, each unit of any of {{count}} other {{things}} {{move}} {verb} "
        f"{{objective}} by at least {{least}}.",
        [
            f"At the margin, {_EACH} of any of {{count}} other {{things}} {{move}} {verbs} "
            f"{{objective}} by at least {{least}}."
        ],
    )


def _summary_slack(side: str, words: str, where: str) -> tuple[str, list[str]]:
    """Constraints with slack counted (:mod:`._summary`): how many, the least slack."""
    return (
        f"The plan keeps each of {{count}} other {{things}} at least {{least}}{{unit}} {where} "
        f"its {side} limit.",
        [
            f"In the plan, each of {{count}} other {{things}} (stays|is|remains) at least "
            f"{{least}}{{unit}} {where} its {words}."
        ],
    )


#: Template id -> (canonical pattern, variants), in the order graphs list them.
TEMPLATES: Mapping[str, tuple[str, list[str]]] = {
    "result_optimal_max": _optimal("highest possible|maximum"),
    "result_optimal_min": _optimal("lowest possible|minimum"),
    "result_feasible": (
        "The best {objective} found, not proven optimal, is {value}, with {size} in the plan.",
        [
            "The best {objective} (found|the solver found), not proven optimal, (is|comes to) "
            "{value}" + _PLAN_SIZE + "."
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
    "link_upper": _link("is at most", "(is at most|is capped at|is limited to)"),
    "link_lower": _link("is at least", "(is at least|must be at least)"),
    "link_equal": _link("equals", "(equals|is exactly)"),
    **{
        f"state_{prefix}_{body}": _state(prefix, body)
        for prefix in _PREFIXES
        for body in _BODIES
        if body != "lapsed" or prefix == "off"
    },
    "slack_upper": _slack("upper", "(upper limit|maximum|limit)", "below"),
    "slack_lower": _slack("lower", "(lower limit|minimum)", "above"),
    "bound_upper": _bound("upper", "(upper bound|maximum)"),
    "bound_lower": _bound("lower", "(lower bound|minimum)"),
    "bound_upper_at": _bound_at("upper", "(upper bound|maximum)"),
    "bound_lower_at": _bound_at("lower", "(lower bound|minimum)"),
    "shadow_raises": _shadow("raises", "(raises|increases)"),
    "shadow_lowers": _shadow("lowers", "(lowers|reduces)"),
    "reduced_raises": _reduced("raises", "(raises|increases)"),
    "reduced_lowers": _reduced("lowers", "(lowers|reduces)"),
    "summary_reduced_raises": _summary_reduced("raises", "(raises|increases)"),
    "summary_reduced_lowers": _summary_reduced("lowers", "(lowers|reduces)"),
    "summary_slack_upper": _summary_slack("upper", "(upper limit|maximum|limit)", "below"),
    "summary_slack_lower": _summary_slack("lower", "(lower limit|minimum)", "above"),
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
    "note_rounded": (
        "Shadow prices and reduced costs that round to 0 at the objective's number display "
        "are not stated.",
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

_STATE_KINDS = {
    "switch": "condition",
    "switch_value": "amount",
    "left": "subject",
    "limit": "amount",
    "value": "amount",
}

#: Per template, the kind of each slot that has one (see :mod:`verity.core.models`): the
#: condition a linking row's state is stated under (its switch) scopes what follows it.
SLOT_KINDS: Mapping[str, Mapping[str, str]] = {
    **{f"link_{side}": {"left": "subject", "right": "object"} for side in ("upper", "lower")},
    "link_equal": {"left": "subject", "right": "object"},
    **{tid: _STATE_KINDS for tid in TEMPLATES if tid.startswith("state_")},
    **{
        f"summary_reduced_{verb}": {
            "count": "amount",
            "things": "subject",
            "objective": "object",
            "least": "rate",
        }
        for verb in ("raises", "lowers")
    },
    **{
        f"summary_slack_{side}": {"count": "amount", "things": "subject", "least": "amount"}
        for side in ("upper", "lower")
    },
}


def add_templates(
    builder: GraphBuilder,
    used: Sequence[str],
    extra: Mapping[str, Sequence[str]] | None = None,
) -> None:
    """Add to ``builder`` every template some node uses, in table order; ``extra``
    (template id -> variants, the labels' ``variants``) appends variants to a template's
    own (each once)."""
    wanted = set(used)
    for tid, (canonical, variants) in TEMPLATES.items():
        if tid in wanted:
            kinds = SLOT_KINDS.get(tid)
            if kinds is not None:  # only the slots the canonical pattern uses
                kinds = {k: v for k, v in kinds.items() if "{" + k + "}" in canonical}
            added = (extra or {}).get(tid, ())
            builder.template(
                tid,
                canonical,
                [*variants, *(v for v in dict.fromkeys(added) if v not in variants)],
                coordinable=COORDINABLE.get(tid, ()),
                slot_kinds=kinds,
            )


# --- What limits the plan and how far (ranging, worth by re-solving) -------------------
# Every statement says how it was obtained (``by HiGHS ranging``, ``by re-solving the
# model``) in every variant. A range keeps its ends and their direction (``between``,
# ``at or above``, ``at or below``); a re-solve keeps the limit it was re-solved with and
# the direction of the change. The changed limit and the choice a runner-up differs in
# are the condition of a hypothetical plan: they never scope a fact of the plan itself.

_RANGES = {
    "between": "(stays|remains) between {low}{unit} and {high}{unit}",
    "above": "(stays|remains) at or above {low}{unit}",
    "below": "(stays|remains) at or below {high}{unit}",
}
_RANGING = ", by HiGHS ranging."
_RESOLVED = ", by re-solving the model."
_SCALED = ", by its shadow price times its limit."


def _shadow_range(end: str) -> tuple[str, list[str]]:
    held = _RANGES[end].replace("(stays|remains)", "stays")
    return (
        "The shadow price of {dual} per unit on the {what} of {name} holds while that {what} "
        + held
        + _RANGING,
        [
            "The shadow price of {dual} per unit on the {what} of {name} "
            "(holds|stays valid|applies) while (that|the) {what} " + _RANGES[end] + _RANGING,
        ],
    )


def _cost_range(end: str) -> tuple[str, list[str]]:
    cost = _RANGES[end].replace("{unit}", "")
    return (
        "The plan keeps {name} {move} while its coefficient in {objective} "
        + cost.replace("(stays|remains)", "stays")
        + _RANGING,
        ["The plan (keeps|leaves) {name} {move} while its coefficient in "
         "{objective} " + cost + _RANGING],
    )  # fmt: skip


def _top_limit(change: str, verb: str, verbs: str) -> tuple[str, list[str]]:
    return (
        "For its size, {name} limits {objective} the most: " + change + " its {what} of "
        "{rhs}{unit} by 1% " + verb + " {objective} by {amount} at the margin" + _SCALED,
        [
            "For its size, {name} limits {objective} the most: " + change + " its {what} of "
            "{rhs}{unit} by 1% " + verbs + " {objective} by {amount} at the margin" + _SCALED
        ],
    )


_RAISING = "Raising the {what} of {name} from {rhs}{unit} to {new}{unit} "


def _worth(outcome: str, outcomes: str) -> tuple[str, list[str]]:
    return (_RAISING + outcome + _RESOLVED, [_RAISING + outcomes + _RESOLVED])


_WORTH_OUTCOMES = {
    "raises": ("raises {objective} by {diff}", "(raises|increases) {objective} by {diff}"),
    "lowers": ("lowers {objective} by {diff}", "(lowers|reduces) {objective} by {diff}"),
    "same": ("leaves {objective} unchanged", "leaves {objective} unchanged"),
    "infeasible": (
        "leaves no plan that meets every constraint",
        "leaves no plan that (meets|satisfies) every constraint",
    ),
}


def _runner_up(side: str, outcome: str) -> tuple[str, list[str]]:
    if outcome == "infeasible":
        return (
            f"No plan {side} {{name}} meets every constraint" + _RESOLVED,
            [f"No plan {side} {{name}} (meets|satisfies) every constraint" + _RESOLVED],
        )
    tail = {
        "higher": "comes to {value} in {objective}, {diff} higher",
        "lower": "comes to {value} in {objective}, {diff} lower",
        "same": "comes to the same {value} in {objective}",
    }[outcome]
    return (
        f"The best plan {side} {{name}} " + tail + _RESOLVED,
        [f"The best (plan|possible plan) {side} {{name}} " + tail + _RESOLVED],
    )


_LIMIT_TEMPLATES: dict[str, tuple[str, list[str]]] = {
    **{f"range_{end}": _shadow_range(end) for end in _RANGES},
    **{f"cost_range_{end}": _cost_range(end) for end in _RANGES},
    "top_raising_raises": _top_limit("raising", "raises", "(raises|increases)"),
    "top_raising_lowers": _top_limit("raising", "lowers", "(lowers|reduces)"),
    "top_lowering_raises": _top_limit("lowering", "raises", "(raises|increases)"),
    "top_lowering_lowers": _top_limit("lowering", "lowers", "(lowers|reduces)"),
    **{f"worth_{key}": _worth(*words) for key, words in _WORTH_OUTCOMES.items()},
    **{
        f"runner_{side}_{outcome}": _runner_up(words, outcome)
        for side, words in (("out", "without"), ("in", "with"))
        for outcome in ("higher", "lower", "same", "infeasible")
    },
    "resolve_cap": (
        "Re-solving stops at its cap of {cap} solves, so the worth of {skipped} of the "
        "{total} limits and choices is not stated.",
        [],
    ),
    "resolve_time_one": (
        "Re-solving stops at its time limit of {seconds} per solve before a proven optimum "
        "in 1 of the {total} re-solves, so the worth of that limit or choice is not stated.",
        [],
    ),
    "resolve_time_many": (
        "Re-solving stops at its time limit of {seconds} per solve before a proven optimum "
        "in {cut} of the {total} re-solves, so the worth of those {cut} limits and choices "
        "is not stated.",
        [],
    ),
    "resolve_time_base": (
        "Re-solving the model as it is stops at its time limit of {seconds} before a proven "
        "optimum, so the worth of its {total} limits and choices is not stated.",
        [],
    ),
}

_LIMIT_KINDS: dict[str, str] = {
    "name": "subject",
    "dual": "rate",
    "low": "amount",
    "high": "amount",
    "rhs": "amount",
    "amount": "amount",
    "diff": "amount",
    "value": "amount",
}

TEMPLATES = {**TEMPLATES, **_LIMIT_TEMPLATES}
_KINDS_BY_PREFIX = {
    "worth_": {**_LIMIT_KINDS, "new": "condition"},
    "runner_": {**_LIMIT_KINDS, "name": "condition"},
    "range_": _LIMIT_KINDS,
    "cost_range_": _LIMIT_KINDS,
    "top_": _LIMIT_KINDS,
}
SLOT_KINDS = {
    **SLOT_KINDS,
    **{
        tid: kinds
        for tid in _LIMIT_TEMPLATES
        for prefix, kinds in _KINDS_BY_PREFIX.items()
        if tid.startswith(prefix)
    },
}

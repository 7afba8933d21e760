"""The evidence graph of a solved optimization model, made with GraphBuilder.

Node types and ids (every statement one sentence from :mod:`._templates`):

- ``RESULT`` ``result`` (the headline): the status, the objective value and the plan's
  size (``with 5 decisions in the plan``);
- ``DECISION`` ``decision:<variable>``: each variable at a value that displays as
  non-zero (a binary at 1 is "included"): together, the plan;
- ``BINDING_CONSTRAINT`` ``constraint:<name>``: a constraint at its limit (an equality is
  always held exactly); ``CONSTRAINT_SLACK`` ``constraint:<name>`` one that is not, with
  its slack; ``BOUND`` ``bound:<variable>``: a variable at a finite upper bound, or at a
  non-zero lower bound (the bound's value only when no decision node states the
  variable's value: each fact once);
- a row with decisions on both sides (:mod:`._linking`: a linking, big-M or
  minimum-if-open row) is no limit of its right-hand side: ``LINKING_CONSTRAINT``
  ``constraint:<name>`` states what it relates, ``LINKING_STATE`` ``link:<name>`` what that
  allows in the plan (under its switch, in or out of the plan); neither says "limit of"
  or "binds", and no shadow price is stated for it;
- for a linear program whose solution is a nondegenerate vertex (:mod:`._solution`):
  ``SHADOW_PRICE`` ``shadow_price:<constraint>`` for each binding constraint with a
  non-zero dual, ``REDUCED_COST`` ``reduced_cost:<variable>`` for each variable at a bound
  with a non-zero reduced cost; otherwise one ``SENSITIVITY_NOTE`` ``sensitivity`` says
  why none is stated.
- what limits the plan and how far (:mod:`._ranging`, :mod:`._worth`): with shadow
  prices stated, ``SHADOW_RANGE`` ``range:<constraint>``, ``COST_RANGE``
  ``cost_range:<variable>`` and ``TOP_LIMIT`` ``top_limit`` by HiGHS ranging; otherwise
  ``LIMIT_WORTH`` ``worth:<constraint>``, ``RUNNER_UP`` ``runner_up:<variable>`` and
  ``RESOLVE_NOTE`` ``resolve_cap`` by re-solving.

Entities are the index values of the labels' groups (``make[plant,product]``: plants and
products), and each variable or constraint outside a group, by its display name.

Salience tells the plan first, then what limits it (:data:`_BANDS`): decisions rank
highest, grouped by their first index value (a plant, an origin: the group with the
largest total first, then its largest decision); then binding constraints and their
shadow prices; then reduced costs; within a band by the size of the fact in objective
units (a decision's cost times its value, a dual times its limit, a reduced cost).
Slack rows, bounds, linking rows and notes have none.
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from verity.backends.pulp._labels import ItemLabel, Labels, parse_group
from verity.backends.pulp._linking import Link, Terms, linking
from verity.backends.pulp._solution import (
    LpBackendError,
    SolutionFacts,
    VariableFact,
)
from verity.backends.pulp._summary import (
    DEFAULT_DETAIL,
    Summarised,
    SummaryKey,
    check_detail,
    summarise,
)
from verity.backends.pulp._templates import add_templates
from verity.backends.pulp._worth import RESOLVE_SECONDS, check_resolve_seconds
from verity.core.builder import DEFAULT_DECIMALS, GraphBuilder, format_number
from verity.core.graph import EvidenceGraph, load_graph
from verity.errors import GraphError

__all__ = ["RULES", "build_graph"]

#: The node types of what limits the plan and how far (:mod:`._ranging`, :mod:`._worth`).
LIMIT_TYPES: tuple[str, ...] = (
    "SHADOW_RANGE", "COST_RANGE", "TOP_LIMIT", "LIMIT_WORTH", "RUNNER_UP", "RESOLVE_NOTE"
)  # fmt: skip

#: The claim-type rules of every optimization-model graph.
RULES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("RESULT", ("RESULT",)),
    ("DECISION", ("DECISION",)),
    (
        "BINDING_CONSTRAINT",
        (
            "BINDING_CONSTRAINT",
            "CONSTRAINT_SLACK",
            "LINKING_CONSTRAINT",
            "LINKING_STATE",
            "BOUND",
            "SLACK_SUMMARY",
        ),
    ),
    (
        "SENSITIVITY",
        ("SHADOW_PRICE", "REDUCED_COST", "SENSITIVITY_NOTE", "REDUCED_COST_SUMMARY"),
    ),
    ("LIMITS", LIMIT_TYPES),
)

_SOLVER_NAMES = {"COIN_CMD": "CBC", "PULP_CBC_CMD": "CBC", "HiGHS": "HiGHS", "HiGHS_CMD": "HiGHS"}
_NOTES = {
    "integer": "note_integer",
    "degenerate": "note_degenerate",
    "not_vertex": "note_not_vertex",
    "unchecked": "note_unchecked",
}


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_") or "model"


def _places(value: float) -> int:
    """Decimals that show ``value`` faithfully: up to two, more only to keep it non-zero."""
    for places in range(7):
        shown = round(value, places)
        if places >= 2 and (shown != 0 or value == 0):
            return places
        if places < 2 and shown == round(value, 2):
            return places
    return 6


def _show(value: float, label: ItemLabel | None, *, integer: bool = False) -> str:
    fmt = label.format if label is not None else None
    decimals = label.decimals if label is not None else None
    if fmt is None:
        places = 0 if integer else _places(value) if decimals is None else decimals
        return format_number(value, "integer" if places == 0 else "plain", places)
    if decimals is None and fmt == "plain":
        decimals = _places(value)
    return format_number(value, fmt, decimals)


@dataclass
class _Entity:
    id: str
    kind: str
    name: str | None
    aliases: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class _Item:
    phrase: str
    label: ItemLabel | None
    entities: tuple[str, ...]
    group: str | None = None  # the labels group key it matched

    @property
    def unit(self) -> str:
        return "" if self.label is None or self.label.unit is None else " " + self.label.unit

    def unit_of(self, shown: str) -> str:
        """The unit after a value shown as ``shown``: singular after exactly ``1``."""
        return singular(self.unit) if shown == "1" else self.unit


def singular(unit: str) -> str:
    """``1 project``, not ``1 projects``: the last word of a plural unit made singular
    (``hours`` -> ``hour``, ``batches`` -> ``batch``, ``batteries`` -> ``battery``); a unit
    that is no plain English plural (``kg``, ``people``, ``glass``) stays as it is."""
    head, space, word = unit.rpartition(" ")
    lower = word.lower()
    if lower.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif lower.endswith(("ches", "shes", "sses", "xes", "zes")):
        word = word[:-2]
    elif lower.endswith("s") and not lower.endswith(("ss", "us", "is")) and len(word) > 1:
        word = word[:-1]
    return head + space + word


class _Names:
    """Display names of variables and constraints, and the entities they need."""

    def __init__(self, labels: Labels) -> None:
        self.labels = labels
        self.declared = {e.id: e for e in labels.entities}
        self.entities: dict[str, _Entity] = {}
        #: The labels keys some variable or constraint used (plain names and groups).
        self.used: set[tuple[str, str]] = set()
        #: Per kind, the index values its declared entities spell (looked up, not scanned:
        #: matching a name costs its length, not the number of entities).
        self.known: dict[str, set[str]] = {}
        #: A group's label with its unit filled in, per (group key, unit): one copy each.
        self.copies: dict[tuple[str, str | None], ItemLabel] = {}
        for e in labels.entities:
            self.known.setdefault(e.kind, set()).add(e.id)

    def _index(self, kind: str, value: str) -> _Entity:
        found = self.entities.get(value)
        if found is not None:
            return found
        label = self.declared.get(value)
        entity = (
            _Entity(value, kind, None)
            if label is None
            else _Entity(label.id, label.kind, label.name, list(label.aliases))
        )
        if label is not None and label.kind != kind:
            raise LpBackendError(
                f"labels: entity {value!r} is a {label.kind}, but a group uses it as a {kind}",
                code="labels",
            )
        self.entities[value] = entity
        return entity

    def _split(self, rest: str, kinds: tuple[str, ...]) -> list[list[str]]:
        if not kinds:
            return [[]] if not rest else []
        known = self.known.get(kinds[0])
        parts = rest.split("_")
        options = ["_".join(parts[:i]) for i in range(1, len(parts) + 1)]
        if known:
            options = [k for k in options if k in known]
        out: list[list[str]] = []
        for option in options:
            tail = rest[len(option) + 1 :] if len(rest) > len(option) else ""
            out += [[option, *more] for more in self._split(tail, kinds[1:])]
        return out

    def _grouped(
        self, name: str, table: Mapping[str, ItemLabel], what: str
    ) -> tuple[_Item | None, list[_Entity]]:
        for key, label in table.items():
            group = parse_group(key)
            if group is None or not name.startswith(group.prefix + "_"):
                continue
            splits = self._split(name[len(group.prefix) + 1 :], group.kinds)
            if len(splits) > 1:
                raise LpBackendError(
                    f"{what} {name!r} matches group {key!r} in {len(splits)} ways; declare "
                    "its index values under entities",
                    code="names",
                )
            if splits:
                self.used.add((what, key))
                used = [self._index(k, v) for k, v in zip(group.kinds, splits[0], strict=True)]
                shown = {k: e.name or e.id for k, e in zip(group.kinds, used, strict=True)}
                if label.name is not None:
                    phrase = label.name.format_map(shown)
                else:
                    phrase = " ".join([group.prefix, *shown.values()])
                unit = None if label.unit is None else label.unit.format_map(shown)
                ids = tuple(e.id for e in used)
                shown_label = self.copies.get((key, unit))
                if shown_label is None:
                    shown_label = label.model_copy(update={"unit": unit})
                    self.copies[key, unit] = shown_label
                item = _Item(phrase, shown_label, ids, key)
                return item, used
        return None, []

    def item(self, name: str, what: str, taken: set[str]) -> _Item:
        table = self.labels.variables if what == "variable" else self.labels.constraints
        label = table.get(name)
        if label is not None:
            self.used.add((what, name))
        if label is None:
            grouped, _ = self._grouped(name, table, what)
            if grouped is not None:
                return grouped
        entity_id = name if name not in taken else f"{what}_{name}"
        display = None if label is None else label.name
        self.entities[entity_id] = _Entity(entity_id, what, display)
        taken.add(entity_id)
        return _Item(display or entity_id, label, (entity_id,))


@dataclass
class _Context:
    facts: SolutionFacts
    labels: Labels
    builder: GraphBuilder
    names: _Names
    objective: str
    used: list[str] = field(default_factory=list)
    ids: set[str] = field(default_factory=set)
    named: dict[str, tuple[str, ...]] = field(default_factory=dict)  # node id -> entities
    rounded: int = 0  # shadow prices and reduced costs that show as 0 at the objective's display
    pending: list[tuple[str, str, str, dict[str, str], dict[str, Any]]] = field(
        default_factory=list
    )

    def node(
        self,
        node_id: str,
        node_type: str,
        template: str,
        slots: dict[str, str],
        item: _Item | None = None,
        **kw: Any,
    ) -> None:
        self.used.append(template)
        self.ids.add(node_id)
        if item is not None:
            self.named[node_id] = item.entities
        self.pending.append((node_id, node_type, template, slots, kw))

    def money(self, value: float) -> str:
        """A value in objective units (the objective; :meth:`rate` for duals and reduced
        costs)."""
        return _show(value, self._money)

    def rate(self, value: float, *, fixed: bool = True) -> str:
        """A shadow price or reduced cost (objective units per unit): the objective's
        format; one that would show as 0 at the format's decimals gets two significant
        digits (up to 6 decimals: ``$0.0012``), unless the labels fix the decimals; one
        that still shows as 0 is counted in ``rounded``. ``fixed=False`` overrides fixed
        decimals the same way (a summary's least value, never shown as 0)."""
        label = self.labels.objective
        if label.format is None or (label.decimals is not None and fixed) or label.format == "year":
            shown = self.money(value)
        else:
            places = DEFAULT_DECIMALS[label.format]
            if label.format != "integer" and round(value, places) == 0:
                while places < 6 and abs(value) < 10 ** (1 - places):  # two significant digits
                    places += 1
            shown = format_number(value, label.format, places)
        if _zero(shown) and abs(value) > 1e-9 and fixed:
            self.rounded += 1
        return shown

    @functools.cached_property
    def _money(self) -> ItemLabel:
        label = self.labels.objective
        return ItemLabel(format=label.format, decimals=label.decimals)


def _plan_size(count: int) -> str:
    """``5 decisions``, ``1 decision``: the number of decisions in the plan."""
    return f"{count} decision" + ("" if count == 1 else "s")


def _result(ctx: _Context, planned: int) -> None:
    facts = ctx.facts
    data: dict[str, Any] = {
        "status": facts.status,
        "sense": facts.sense,
        "solver": _SOLVER_NAMES.get(facts.solver, facts.solver),
    }
    if facts.status in ("infeasible", "unbounded"):
        template = (
            "result_infeasible"
            if facts.status == "infeasible"
            else f"result_unbounded_{facts.sense}"
        )
        ctx.node(
            "result",
            "RESULT",
            template,
            {"objective": ctx.objective} if facts.status == "unbounded" else {},
            data=data,
            required=[facts.status],
            headline=True,
        )
        return
    value = ctx.money(facts.objective or 0.0)
    data["objective"] = facts.objective
    slots = {"objective": ctx.objective, "value": value, "size": _plan_size(planned)}
    if facts.status == "optimal":
        ctx.node(
            "result",
            "RESULT",
            f"result_optimal_{facts.sense}",
            slots,
            data=data,
            required=[f"The optimal {ctx.objective}"],
            headline=True,
            salience=_salience(facts.objective),
        )
    else:
        ctx.node(
            "result",
            "RESULT",
            "result_feasible",
            slots,
            data=data,
            required=["not proven optimal"],
            headline=True,
            salience=_salience(facts.objective),
        )


def _salience(value: float | None) -> float | None:
    if value is None:
        return None
    size = round(abs(value), 4)
    return size or None


def _in_plan(v: VariableFact, item: _Item) -> bool:
    """A decision the plan takes: a binary at 1, any other variable at a value that
    displays as non-zero."""
    if v.binary:
        return round(v.value) == 1
    return not _zero(_show(v.value, item.label, integer=v.integer))


def _decisions(ctx: _Context, items: Mapping[str, _Item]) -> None:
    for v in ctx.facts.variables:
        item = items[v.name]
        if not _in_plan(v, item):
            continue
        if v.binary:
            slots = {"name": item.phrase}
            ctx.node(
                f"decision:{v.name}",
                "DECISION",
                "decision_chosen",
                slots,
                item,
                data=_plan_data(v, item),
                salience=_salience(v.cost),
            )
            ctx.builder.edge(f"decision:{v.name}", "result", "contributes_to")
            continue
        shown = _show(v.value, item.label, integer=v.integer)
        if _zero(shown):
            continue
        unit = item.unit_of(shown)
        slots = {"name": item.phrase, "value": shown, "unit": unit}
        required = [f"to {shown}{unit}"]
        ctx.node(
            f"decision:{v.name}",
            "DECISION",
            "decision",
            slots,
            item,
            data=_plan_data(v, item),
            required=required,
            salience=_salience(v.cost * v.value),
        )
        ctx.builder.edge(f"decision:{v.name}", "result", "contributes_to")


def _plan_data(v: VariableFact, item: _Item) -> dict[str, Any]:
    """A decision's data: its variable's, and the group of the plan it belongs to (its
    first index value: a plant, an origin; its own entity outside a group)."""
    return {**_var_data(v), "plan_group": item.entities[0]}


def _var_data(v: VariableFact) -> dict[str, Any]:
    return {
        "variable": v.name,
        "value": v.value,
        "lower_bound": v.low,
        "upper_bound": v.up,
        "integer": v.integer,
        "objective_coefficient": v.cost,
    }


def _constraints(ctx: _Context, items: Mapping[str, _Item], variables: Mapping[str, _Item]) -> None:
    kinds = {v.name: v for v in ctx.facts.variables}
    for c in ctx.facts.constraints:
        item = items[c.name]
        link = linking(c, lambda name: kinds[name].binary)
        if link is not None:
            _linking_row(ctx, c, link, item, variables)
            continue
        rhs = _show(c.rhs, item.label)
        data = {
            "constraint": c.name,
            "sense": c.sense,
            "rhs": c.rhs,
            "activity": c.activity,
            "slack": c.slack,
            "binding": c.binding,
        }
        unit = item.unit
        if c.binding:
            unit = item.unit_of(rhs)
            if c.sense == "=":
                template, required = "binding_equal", [f"exactly {rhs}{unit}"]
            else:
                side = "upper" if c.sense == "<=" else "lower"
                template, required = f"binding_{side}", [f"{side} limit of {rhs}{unit}"]
            salience = None if c.dual is None else _salience(c.dual * c.rhs)
            ctx.node(
                f"constraint:{c.name}",
                "BINDING_CONSTRAINT",
                template,
                {"name": item.phrase, "rhs": rhs, "unit": unit},
                item,
                data=data,
                required=required,
                salience=salience,
            )
        else:
            side, where = ("upper", "below") if c.sense == "<=" else ("lower", "above")
            slack = _show(c.slack, item.label)
            slots = {"name": item.phrase, "slack": slack, "unit": unit, "rhs": rhs}
            required = [f"{slack}{unit} {where} the {side} limit of {rhs}{unit}"]
            ctx.node(
                f"constraint:{c.name}",
                "CONSTRAINT_SLACK",
                f"slack_{side}",
                slots,
                item,
                data=data,
                required=required,
            )
        ctx.builder.edge(f"constraint:{c.name}", "result", "constrains")


def _times(factor: float, item: _Item) -> str:
    """``3,000 times the opening of the South depot``, or the phrase alone at a factor 1."""
    return item.phrase if _close(factor, 1.0) else f"{_show(factor, None)} times {item.phrase}"


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-9 * max(1.0, abs(b))


def _side(terms: Terms, variables: Mapping[str, _Item]) -> str:
    """One side of a linking row: ``A plus 2 times B``."""
    return " plus ".join(_times(k, variables[name]) for name, k in terms)


@dataclass(frozen=True)
class _Linked:
    """A linking row as the graph states it: its sides in words, the item whose number
    display and unit its values take, and the values of the plan."""

    link: Link
    left: str
    right: str
    item: _Item
    integer: bool
    value: float  # the subject's value in the plan
    limit: float  # what the row compares it with in the plan


def _linked(ctx: _Context, link: Link, row: _Item, variables: Mapping[str, _Item]) -> _Linked:
    facts = {v.name: v for v in ctx.facts.variables}
    values = {v.name: v.value for v in ctx.facts.variables}
    subject = [variables[name] for name, _ in link.subject]
    # the subject's values display as the subject does when it is one decision, else as
    # the row does
    shown = subject[0] if len(subject) == 1 else row
    right = _side(link.other, variables)
    if not _close(link.constant, 0.0):
        sign = "plus" if link.constant > 0 else "minus"
        right += f" {sign} {_show(abs(link.constant), shown.label)}{shown.unit}"
    entities = tuple(
        dict.fromkeys(
            e for name, _ in (*link.subject, *link.other) for e in variables[name].entities
        )
    )
    left = _side(link.subject, variables)
    return _Linked(
        link=link,
        left=left,
        right=right,
        item=_Item(left, shown.label, entities),
        integer=all(facts[n].integer and float(k).is_integer() for n, k in link.subject),
        value=link.side_value(link.subject, values),
        limit=link.limit(values),
    )


def _linking_row(
    ctx: _Context, c: Any, link: Link, row: _Item, variables: Mapping[str, _Item]
) -> None:
    """A row with decisions on both sides: ``constraint:<name>`` states what it relates
    (``In the model, shipping from the South depot is at most 3,000 times the opening of
    the South depot.``), ``link:<name>`` what that allows in the plan (``With the opening
    of the South depot in the plan, shipping from the South depot may reach 3,000
    pallets; it is 3,000 pallets.``). Neither calls the row a limit of its right-hand
    side, nor binding: its limit is the other side's value, and a row that is tight only
    because both sides are 0 (a closed site) limits nothing."""
    linked = _linked(ctx, link, row, variables)
    side = {"<=": "upper", ">=": "lower", "=": "equal"}[link.sense]
    words = {"<=": "at most", ">=": "at least", "=": "equals"}[link.sense]
    data: dict[str, Any] = {
        "constraint": c.name,
        "sense": c.sense,
        "rhs": c.rhs,
        "activity": c.activity,
        "linking": True,
        "subject": [list(t) for t in link.subject],
        "other": [list(t) for t in link.other],
        "reads": link.sense,
        "constant": link.constant,
    }
    ctx.node(
        f"constraint:{c.name}",
        "LINKING_CONSTRAINT",
        f"link_{side}",
        {"left": linked.left, "right": linked.right},
        linked.item,
        data=data,
        required=[f"{words} {linked.right}"],
    )
    ctx.builder.edge(f"constraint:{c.name}", "result", "constrains")
    _linking_state(ctx, c.name, linked, variables)


def _nonnegative(link: Link, facts: Mapping[str, VariableFact]) -> bool:
    """Every decision of the subject has a lower bound of 0 or more."""
    lows = [facts[n].low for n, _ in link.subject]
    return all(low is not None and low >= 0 for low in lows)


def _state_body(linked: _Linked, prefix: str, facts: Mapping[str, VariableFact]) -> str:
    """What a linking row asks of its subject in the plan (see ``_BODIES`` of
    :mod:`._templates`): ``zero`` only when the subject cannot be negative and the other
    side leaves it no room; ``lapsed`` a minimum whose switch is off."""
    link = linked.link
    if link.sense == "=":
        return "exact"
    room = _show(linked.limit, linked.item.label, integer=linked.integer)
    if link.sense == "<=":
        nothing = linked.limit <= 0 or _zero(room)
        return "zero" if nothing and _nonnegative(link, facts) else "upto"
    if prefix == "off" and _nonnegative(link, facts) and linked.limit <= 0 < _switched_on(link):
        return "lapsed"
    return "atleast"


def _switched_on(link: Link) -> float:
    """The row's limit with every decision of its other side at 1 (a switch on)."""
    return link.side_value(link.other, {name: 1.0 for name, _ in link.other}) + link.constant


def _linking_state(
    ctx: _Context, name: str, linked: _Linked, variables: Mapping[str, _Item]
) -> None:
    facts = {v.name: v for v in ctx.facts.variables}
    slots: dict[str, str] = {"left": linked.left, "unit": linked.item.unit}
    prefix = _state_prefix(linked.link, facts, variables, slots)
    body = _state_body(linked, prefix, facts)
    label, integer, unit = linked.item.label, linked.integer, linked.item.unit
    limit = _switched_on(linked.link) if body == "lapsed" else linked.limit
    shown = _show(limit, label, integer=integer)
    if body != "zero":
        slots["limit"] = shown
    if body in ("upto", "atleast"):
        slots["value"] = _show(linked.value, label, integer=integer)
    required = {
        "upto": f"may reach {shown}{unit}",
        "zero": f"must be 0{unit}",
        "atleast": f"at least {shown}{unit}",
        "lapsed": "does not apply",
        "exact": f"exactly {shown}{unit}",
    }[body]
    ctx.node(
        f"link:{name}",
        "LINKING_STATE",
        f"state_{prefix}_{body}",
        slots,
        linked.item,
        data={"constraint": name, "value": linked.value, "limit": linked.limit},
        required=[required],
    )
    ctx.builder.edge(f"link:{name}", f"constraint:{name}", "applies")
    for other, _ in linked.link.other:
        if f"decision:{other}" in ctx.ids:
            ctx.builder.edge(f"link:{name}", f"decision:{other}", "depends_on")


def _state_prefix(
    link: Link,
    facts: Mapping[str, VariableFact],
    variables: Mapping[str, _Item],
    slots: dict[str, str],
) -> str:
    """The condition a linking row's state is stated under, its slots added to ``slots``:
    a binary switch in or out of the plan, one other decision at its value, or the plan."""
    if len(link.other) != 1:
        return "plan"
    name = link.other[0][0]
    fact, item = facts[name], variables[name]
    slots["switch"] = item.phrase
    if fact.binary:
        return "on" if round(fact.value) == 1 else "off"
    slots["switch_value"] = _show(fact.value, item.label, integer=fact.integer)
    slots["switch_unit"] = item.unit
    return "with"


def _bounds(ctx: _Context, items: Mapping[str, _Item]) -> None:
    for v in ctx.facts.variables:
        if v.binary:
            continue
        side = (
            "upper" if v.at(v.up) else "lower" if v.at(v.low) and v.low not in (None, 0) else None
        )
        if side is None:
            continue
        item = items[v.name]
        limit = v.up if side == "upper" else v.low
        bound = _show(limit or 0.0, item.label, integer=v.integer)
        unit = item.unit_of(bound)
        if f"decision:{v.name}" in ctx.ids:  # its value is stated there: each fact once
            template, slots = f"bound_{side}_at", {"name": item.phrase}
            required = [f"{side} bound"]
        else:
            template = f"bound_{side}"
            slots = {"name": item.phrase, "bound": bound, "unit": unit}
            required = [f"{side} bound of {bound}{unit}"]
        ctx.node(
            f"bound:{v.name}",
            "BOUND",
            template,
            slots,
            item,
            data=_var_data(v),
            required=required,
        )
        if f"decision:{v.name}" in ctx.ids:
            ctx.builder.edge(f"bound:{v.name}", f"decision:{v.name}", "bounds")


def _sensitivity(ctx: _Context, items: Mapping[str, _Item]) -> None:
    facts = ctx.facts
    if facts.sensitivity in _NOTES:
        template = _NOTES[facts.sensitivity]
        ctx.node(
            "sensitivity",
            "SENSITIVITY_NOTE",
            template,
            {},
            data={"reason": facts.sensitivity},
            required=["reported"],
        )
        ctx.builder.edge("sensitivity", "result", "qualifies")
        return
    if facts.sensitivity != "reported":
        return
    linked = {i.split(":", 1)[1] for i in ctx.ids if i.startswith("link:")}
    for c in facts.constraints:
        if c.dual is None or not c.binding or c.name in linked:
            continue
        shown = ctx.rate(abs(c.dual))
        if _zero(shown):
            continue
        verb = "raises" if c.dual > 0 else "lowers"
        what = "level" if c.sense == "=" else "limit"
        slots = {
            "what": what,
            "name": items[c.name].phrase,
            "objective": ctx.objective,
            "dual": shown,
        }
        data = {"constraint": c.name, "dual": c.dual}
        ctx.node(
            f"shadow_price:{c.name}",
            "SHADOW_PRICE",
            f"shadow_{verb}",
            slots,
            items[c.name],
            data=data,
            required=["At the margin", f"{verb} {ctx.objective} by {shown}"],
            salience=_salience(c.dual * c.rhs),
        )
        ctx.builder.edge(f"shadow_price:{c.name}", f"constraint:{c.name}", "prices")
    for v in facts.variables:
        cost = v.reduced_cost
        if cost is None or not (v.at(v.low) or v.at(v.up)):
            continue
        shown = ctx.rate(abs(cost))
        if _zero(shown):
            continue
        if v.at(v.up) and not v.at(v.low):
            move, change = "below its upper bound", -cost
        else:
            move = "forced into the plan" if v.low == 0 else "above its lower bound"
            change = cost
        verb = "raises" if change > 0 else "lowers"
        slots = {
            "name": items[v.name].phrase,
            "move": move,
            "objective": ctx.objective,
            "cost": shown,
        }
        data = {"variable": v.name, "reduced_cost": cost}
        ctx.node(
            f"reduced_cost:{v.name}",
            "REDUCED_COST",
            f"reduced_{verb}",
            slots,
            items[v.name],
            data=data,
            required=["At the margin", f"{move} {verb} {ctx.objective} by {shown}"],
            salience=_salience(cost),
        )
        ctx.builder.edge(f"reduced_cost:{v.name}", "result", "prices")
    if ctx.rounded:
        ctx.node(
            "sensitivity_rounded",
            "SENSITIVITY_NOTE",
            "note_rounded",
            {},
            data={"reason": "rounded", "count": ctx.rounded},
            required=["round to 0"],
        )
        ctx.builder.edge("sensitivity_rounded", "result", "qualifies")


#: The salience band of each ranked node type: the plan (decisions) first, then what
#: limits it (a binding limit and its shadow price side by side), then reduced costs.
#: Within a band a node's salience grows with its size in objective units (up to
#: ``_SPAN`` above the band's base); every other node has none.
_BANDS: Mapping[str, float] = {
    "DECISION": 3.0,
    "BINDING_CONSTRAINT": 2.0,
    "SHADOW_PRICE": 2.0,
    "REDUCED_COST": 1.0,
}
_SPAN = 0.9

_Pending = tuple[str, str, str, dict[str, str], dict[str, Any]]


def _banded(pending: list[_Pending]) -> list[_Pending]:
    """``pending`` with the salience of each ranked node set in its band (:data:`_BANDS`).

    Decisions are ranked as a plan grouped by their ``plan_group`` (the first index
    value, a plant or an origin): the group with the largest total size first, within it
    the largest decision first, file order breaking ties; their salience falls evenly
    from the top of the band. Limits and reduced costs keep their size's order."""
    sizes = {nid: float(kw.get("salience") or 0.0) for nid, _, _, _, kw in pending}
    decisions = [nid for nid, ntype, _, _, _ in pending if ntype == "DECISION"]
    groups = {
        nid: str(kw["data"]["plan_group"])
        for nid, ntype, _, _, kw in pending
        if ntype == "DECISION"
    }
    totals: dict[str, float] = {}
    for nid in decisions:
        totals[groups[nid]] = totals.get(groups[nid], 0.0) + sizes[nid]
    order = sorted(
        range(len(decisions)),
        key=lambda i: (-totals[groups[decisions[i]]], -sizes[decisions[i]], i),
    )
    count = len(decisions)
    rank = {decisions[i]: count - r for r, i in enumerate(order)}
    top = {t: max((sizes[n] for n, nt, _, _, _ in pending if nt == t), default=0.0) for t in _BANDS}
    out: list[_Pending] = []
    for nid, ntype, template, slots, kw in pending:
        base = _BANDS.get(ntype)
        if base is not None:
            if ntype == "DECISION":
                share = rank[nid] / count
            else:
                share = sizes[nid] / top[ntype] if top[ntype] else 0.0
            kw = {**kw, "salience": round(base + _SPAN * share, 6)}
        out.append((nid, ntype, template, slots, kw))
    return out


def _zero(shown: str) -> bool:
    digits = re.sub(r"[^0-9]", "", shown)
    return not digits.strip("0")


def _objective_name(facts: SolutionFacts, labels: Labels) -> str:
    if labels.objective.name is not None:
        return labels.objective.name
    name = facts.objective_name
    return name if name and name not in ("OBJ", "__dummy") else "objective value"


def _closest(word: str, candidates: Iterable[str]) -> str:
    """``; closest: 'a', 'b'`` (difflib), or the first few candidates when none is close."""
    pool = sorted(set(candidates))
    if not pool:
        return "; the model has none"
    close = difflib.get_close_matches(word, pool, n=3, cutoff=0.6)
    if close:
        return "; closest: " + ", ".join(repr(c) for c in close)
    more = ", ..." if len(pool) > 3 else ""
    return "; the model has " + ", ".join(repr(c) for c in pool[:3]) + more


def _prefixes(names: Iterable[str]) -> list[str]:
    """Every group a name could belong to: ``make_austin_chairs`` -> make, make_austin."""
    out: list[str] = []
    for name in names:
        parts = name.split("_")
        out += ["_".join(parts[:i]) + "[...]" for i in range(1, len(parts))]
    return out


def _check_labels_used(labels: Labels, names: _Names, facts: SolutionFacts) -> None:
    """Refuse labels that match nothing in the model (another model's labels, a typo in a
    name, a group key or an entity id), naming the closest names the model has."""
    model = {
        "variable": [v.name for v in facts.variables],
        "constraint": [c.name for c in facts.constraints],
    }
    for what, table in (("variable", labels.variables), ("constraint", labels.constraints)):
        for key in table:
            if (what, key) in names.used:
                continue
            group = parse_group(key)
            if group is None:
                hint = _closest(key, model[what])
            else:
                hint = _closest(group.prefix + "[...]", _prefixes(model[what]))
            raise LpBackendError(
                f"labels: {what}s key {key!r} matches no {what} of the model{hint}",
                code="labels",
            )
    for entity in labels.entities:
        if entity.id not in names.entities:
            hint = _closest(entity.id, [e.id for e in names.entities.values()])
            raise LpBackendError(
                f"labels: entity {entity.id!r} is no index value of the model's groups{hint}",
                code="labels",
            )


# --- what limits the plan and how far: ranging (LP) or re-solves (MILP, degenerate LP) ---
def _limits(
    ctx: _Context, items: Mapping[str, _Item], resolves: int | None, seconds: float | None
) -> None:
    """``SHADOW_RANGE``/``COST_RANGE``/``TOP_LIMIT`` (:mod:`._ranging`) when shadow prices
    are stated, else ``LIMIT_WORTH``/``RUNNER_UP``/``RESOLVE_NOTE`` (:mod:`._worth`)."""
    from verity.backends.pulp._ranging import add_ranges
    from verity.backends.pulp._worth import RESOLVES, add_worth

    if ctx.facts.status != "optimal":
        return
    if ctx.facts.sensitivity == "reported":
        add_ranges(ctx, items, _show)
    else:
        add_worth(ctx, items, _show, RESOLVES if resolves is None else resolves, seconds)


# --- end of what limits the plan ---


def _shown(item: _Item, value: float) -> str:
    return _show(value, item.label)


def _summary_keys(
    ctx: _Context, variables: Mapping[str, _Item], constraints: Mapping[str, _Item]
) -> dict[str, SummaryKey]:
    """What each reduced cost and slack row shares with the others a summary counts."""
    keys: dict[str, SummaryKey] = {}
    for node_id, node_type, _, _, kw in ctx.pending:
        if node_type == "REDUCED_COST":
            item, what = variables[kw["data"]["variable"]], "decisions"
        elif node_type == "CONSTRAINT_SLACK":
            item, what = constraints[kw["data"]["constraint"]], "constraints"
        else:
            continue
        group = parse_group(item.group) if item.group is not None else None
        things = what if group is None else f"{group.prefix} {what}"
        label = item.label
        if label is not None and label.plural is not None:
            things = label.plural
        style = (None, None) if label is None else (label.format, label.decimals)
        if node_type == "REDUCED_COST":
            fine = functools.partial(ctx.rate, fixed=False)
            keys[node_id] = SummaryKey(item.group, things, ctx.rate, style, fine)
        else:
            keys[node_id] = SummaryKey(item.group, things, functools.partial(_shown, item), style)
    return keys


def build_graph(
    facts: SolutionFacts,
    labels: Labels,
    detail: int | None = DEFAULT_DETAIL,
    *,
    resolves: int | None = None,
    resolve_seconds: float | None = RESOLVE_SECONDS,
) -> EvidenceGraph:
    """The evidence graph of a solution, named by its labels; at most ``detail`` reduced
    costs and slack rows each, the rest counted (:mod:`._summary`; ``None``: all);
    ``resolves`` caps the re-solves of :mod:`._worth` (default :data:`._worth.RESOLVES`,
    0: none), each stopped after ``resolve_seconds`` (default
    :data:`._worth.RESOLVE_SECONDS`, ``None``: no limit)."""
    detail = check_detail(detail)
    resolve_seconds = check_resolve_seconds(resolve_seconds)
    kind = "mixed-integer program" if facts.integer else "linear program"
    solver = _SOLVER_NAMES.get(facts.solver, facts.solver or "a solver")
    builder = GraphBuilder(
        labels.graph_id or f"lp-{_slug(facts.name)}",
        labels.domain or "optimization",
        backend=f"a {kind} solved with {solver} (pulp)",
    )
    names = _Names(labels)
    taken: set[str] = {e.id for e in labels.entities}
    variables = {v.name: names.item(v.name, "variable", taken) for v in facts.variables}
    constraints = {c.name: names.item(c.name, "constraint", taken) for c in facts.constraints}
    _check_labels_used(labels, names, facts)
    ctx = _Context(facts, labels, builder, names, _objective_name(facts, labels))
    planned = [v.name for v in facts.variables if _in_plan(v, variables[v.name])]
    _result(ctx, len(planned))
    if facts.status in ("optimal", "feasible"):
        _decisions(ctx, variables)
        _constraints(ctx, constraints, variables)
        _bounds(ctx, variables)
        _sensitivity(ctx, {**constraints, **variables})
        ctx.pending = _banded(ctx.pending)
    kept = summarise(ctx.pending, detail, _summary_keys(ctx, variables, constraints), ctx.objective)
    # what limits the plan is stated of what the graph states one by one (a range of each
    # stated shadow price and reduced cost, none of one counted in a summary)
    ctx.pending, ctx.ids = list(kept.nodes), {n[0] for n in kept.nodes}
    _limits(ctx, {**constraints, **variables}, resolves, resolve_seconds)
    kept = Summarised(ctx.pending, kept.dropped)
    named = {e for n in kept.nodes for e in ctx.named.get(n[0], ())}
    for entity in names.entities.values():
        if entity.id in named:
            builder.entity(entity.id, entity.kind, name=entity.name, aliases=entity.aliases)
    add_templates(builder, [n[2] for n in kept.nodes], labels.variants)
    for node_id, node_type, template, slots, kw in kept.nodes:
        builder.node(node_id, node_type, template=template, slots=slots, **kw)
        if node_id.startswith("summary:"):
            relation = "prices" if node_type == "REDUCED_COST_SUMMARY" else "constrains"
            builder.edge(node_id, "result", relation)
    for claim_type, types in RULES:
        builder.rule(claim_type, [list(types)])
    try:
        if not kept.dropped:
            return builder.build()
        data = builder.to_dict()  # the edges of the nodes counted in summaries go
        data["edges"] = [e for e in data["edges"] if not {e["source"], e["target"]} & kept.dropped]
        return load_graph(data)
    except GraphError as exc:
        raise LpBackendError(
            f"the graph of model {facts.name!r} does not load: {exc}", code="graph"
        ) from None

"""Building evidence graphs: the one way a backend makes a graph.

:class:`GraphBuilder` collects entities (with display names and aliases), statement
templates with their declared variation, nodes, edges and claim-type rules, and
:meth:`GraphBuilder.build` loads the result with :func:`verity.core.graph.load_graph`, so a
built graph is checked exactly as a graph file is. :func:`format_number` is the display of
numbers the backends share (``$1,234.56``, ``1,234``, ``12.5%``, ``1234.5``, ``2007``).

A node is written either with its ``statement`` or from a ``template`` and its ``slots``
(the statement is then the template's canonical rendering). Its ``entities`` and
``numbers`` default to what the statement mentions (entity ids and aliases, number
mentions as written), resolved when the graph is built, so an entity may be added after
the nodes that name it. Nothing else is inferred.

:meth:`GraphBuilder.to_dict` gives the file form: optional fields appear only when set
(``name``, ``required_spans``, ``optional_spans``, ``template`` and ``slots``,
``headline``, ``salience``, a rule's ``narrates``, the graph's ``backend`` and
``templates``), in the order of the format. Equal calls give byte-identical JSON.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any

from verity.core.graph import EvidenceGraph, entity_scan, load_graph
from verity.core.models import Requirement
from verity.errors import GraphError
from verity.formats import GRAPH_FORMAT
from verity.jsonio import dumps
from verity.text.aliases import AliasMatcher
from verity.text.normalize import normalize
from verity.text.numbers import find_numbers
from verity.text.patterns import PatternError, parse_pattern

__all__ = ["DEFAULT_DECIMALS", "NUMBER_FORMATS", "GraphBuilder", "format_number", "to_decimal"]

#: The display formats of :func:`format_number`.
NUMBER_FORMATS: tuple[str, ...] = ("money", "integer", "percent", "plain", "year")

#: Decimal places each format uses unless told otherwise.
DEFAULT_DECIMALS: Mapping[str, int] = {
    "money": 2,
    "integer": 0,
    "percent": 1,
    "plain": 0,
    "year": 0,
}


def to_decimal(value: object) -> Decimal:
    """A number as a :class:`~decimal.Decimal`: a float by its shortest repr (``0.1`` is
    ``Decimal("0.1")``, not the binary fraction), so that every backend rounds a float the
    same way; text is parsed. ``ValueError`` for anything that is not a finite number."""
    if value is None:
        raise ValueError("is NULL")
    if isinstance(value, bool):
        raise ValueError("holds a boolean, not a number")
    if isinstance(value, Decimal):
        result = value
    elif isinstance(value, int):
        result = Decimal(value)
    elif isinstance(value, float):
        result = Decimal(repr(value))
    elif isinstance(value, str):
        try:
            result = Decimal(value.strip())
        except InvalidOperation:
            raise ValueError(f"holds {value!r}, not a number") from None
    else:
        raise ValueError(f"holds a {type(value).__name__}, not a number")
    if not result.is_finite():
        raise ValueError(f"holds {value}")
    return result


def format_number(value: object, fmt: str, decimals: int | None = None) -> str:
    """Display ``value`` rounded half away from zero to ``decimals`` places (the format's
    default when None): ``money`` ``$1,234.56``, ``integer`` ``1,234``, ``percent``
    ``12.5%``, ``plain`` ``1234.5``, ``year`` ``2007`` (a whole number, no separator).

    ``ValueError`` for an unknown format, a value that is no finite number, decimals on
    ``integer`` or ``year``, or a ``year`` that is not a whole number from 1 to 9999.
    """
    if fmt not in DEFAULT_DECIMALS:
        raise ValueError(f"unknown number format {fmt!r}; use one of {', '.join(NUMBER_FORMATS)}")
    places = DEFAULT_DECIMALS[fmt] if decimals is None else decimals
    if places < 0 or (fmt in ("integer", "year") and places != 0):
        raise ValueError(f"the {fmt} format takes no decimals")
    number = to_decimal(value)
    rounded = number.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    if fmt == "year":
        if rounded != number or not 1 <= rounded <= 9999:
            raise ValueError(f"holds {value}, which is not a year (a whole number, 1 to 9999)")
        return str(int(rounded))
    sign = "-" if rounded < 0 else ""
    magnitude = abs(rounded)
    if fmt == "money":
        return f"{sign}${magnitude:,.{places}f}"
    if fmt == "integer":
        return f"{sign}{magnitude:,.0f}"
    if fmt == "percent":
        return f"{sign}{magnitude:,.{places}f}%"
    return f"{sign}{magnitude:.{places}f}"


@dataclass(slots=True)
class _Node:
    id: str
    type: str
    statement: str
    entities: list[str] | None
    numbers: list[str] | None
    data: dict[str, Any]
    required: list[str]
    optional: list[str]
    template: str | None
    slots: dict[str, str]
    headline: bool
    salience: float | None


@dataclass(slots=True)
class _Entity:
    id: str
    kind: str
    name: str | None
    aliases: list[str] = field(default_factory=list)


def _unique(values: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(values))


def _requirement(item: Requirement | Mapping[str, Any] | Sequence[str]) -> dict[str, Any]:
    if isinstance(item, Requirement):
        return {"any_of": list(item.any_of), "when_present": item.when_present}
    if isinstance(item, Mapping):
        return {"any_of": list(item["any_of"]), "when_present": bool(item.get("when_present"))}
    if isinstance(item, str):
        raise GraphError(f"a rule requirement is a list of node types, not the string {item!r}")
    return {"any_of": list(item), "when_present": False}


class GraphBuilder:
    """An evidence graph under construction (``verity.evidence_graph/1``).

    ``graph_id`` and ``domain`` name the graph; ``backend`` is a short noun phrase naming
    what produced the result (``"a MILP optimizer (pulp)"``). Ids must be unique: adding
    a second entity, template or node with one id raises :class:`~verity.errors.GraphError`
    at once; every other check runs in :meth:`build`, which is the graph loader's.
    """

    def __init__(self, graph_id: str, domain: str, *, backend: str | None = None) -> None:
        self.graph_id = graph_id
        self.domain = domain
        self.backend = backend
        self._entities: dict[str, _Entity] = {}
        self._templates: dict[str, dict[str, Any]] = {}
        self._nodes: dict[str, _Node] = {}
        self._edges: list[dict[str, str]] = []
        self._rules: dict[str, dict[str, Any]] = {}

    # ------------------------------------------------------------------ adding

    def entity(
        self,
        entity_id: str,
        kind: str,
        *,
        name: str | None = None,
        aliases: Sequence[str] = (),
    ) -> str:
        """Add an entity; ``name`` is the display name (also an accepted mention). Returns
        the id."""
        if entity_id in self._entities:
            raise GraphError(f"graph {self.graph_id!r}: entity {entity_id!r} is added twice")
        self._entities[entity_id] = _Entity(entity_id, kind, name, _unique(list(aliases)))
        return entity_id

    def has_entity(self, entity_id: str) -> bool:
        """True when an entity with this id has been added."""
        return entity_id in self._entities

    def mention(self, entity_id: str) -> str:
        """How a statement names the entity: its display name (``name``, else the id)."""
        entity = self._entities.get(entity_id)
        if entity is None:
            raise GraphError(f"graph {self.graph_id!r}: no entity {entity_id!r} to mention")
        return entity_id if entity.name is None else entity.name

    def template(
        self,
        template_id: str,
        canonical: str,
        variants: Sequence[str] = (),
        *,
        coordinable: Sequence[str] = (),
        slot_kinds: Mapping[str, str] | None = None,
    ) -> str:
        """Add a statement template: its canonical pattern (slots only) and the variants a
        claim may state instead; ``coordinable`` slots may be coordinated across nodes;
        ``slot_kinds`` gives slots a kind (a scope kind governs the facts of its sentence)."""
        if template_id in self._templates:
            raise GraphError(f"graph {self.graph_id!r}: template {template_id!r} is added twice")
        self._templates[template_id] = {
            "id": template_id,
            "canonical": canonical,
            "variants": list(variants),
            "coordinable": list(coordinable),
        }
        if slot_kinds:
            self._templates[template_id]["slot_kinds"] = dict(slot_kinds)
        return template_id

    def node(
        self,
        node_id: str,
        node_type: str,
        *,
        statement: str | None = None,
        template: str | None = None,
        slots: Mapping[str, str] | None = None,
        entities: Sequence[str] | None = None,
        numbers: Sequence[str] | None = None,
        data: Mapping[str, Any] | None = None,
        required: Sequence[str] = (),
        optional: Sequence[str] = (),
        headline: bool = False,
        salience: float | None = None,
    ) -> str:
        """Add an evidence node. Give its ``statement``, or a ``template`` (added before)
        and ``slots`` whose canonical rendering is the statement. ``required`` and
        ``optional`` are spans of the statement a claim may not drop / may drop whole.
        ``entities`` and ``numbers`` default to what the statement mentions. Returns the id.
        """
        if node_id in self._nodes:
            raise GraphError(f"graph {self.graph_id!r}: node {node_id!r} is added twice")
        filled = dict(slots or {})
        if statement is None:
            if template is None:
                raise GraphError(f"node {node_id!r} needs a statement or a template")
            statement = self._render(node_id, template, filled)
        self._nodes[node_id] = _Node(
            id=node_id,
            type=node_type,
            statement=statement,
            entities=None if entities is None else _unique(list(entities)),
            numbers=None if numbers is None else _unique(list(numbers)),
            data=dict(data or {}),
            required=_unique(list(required)),
            optional=_unique(list(optional)),
            template=template,
            slots=filled,
            headline=headline,
            salience=None if salience is None else float(salience),
        )
        return node_id

    def _render(self, node_id: str, template_id: str, slots: Mapping[str, str]) -> str:
        found = self._templates.get(template_id)
        if found is None:
            raise GraphError(f"node {node_id!r} names template {template_id!r}, not added yet")
        try:
            pattern = parse_pattern(found["canonical"])
            missing = sorted(pattern.slots - set(slots))
            if missing:
                raise GraphError(
                    f"node {node_id!r} lacks slot {missing[0]!r} of template {template_id!r}"
                )
            return next(pattern.renderings(slots))
        except PatternError as exc:
            raise GraphError(f"template {template_id!r}: {exc}") from None

    def edge(self, source: str, target: str, relation: str) -> None:
        """Add a navigation edge between two nodes (never evidence itself)."""
        self._edges.append({"source": source, "target": target, "relation": relation})

    def rule(
        self,
        claim_type: str,
        requires: Sequence[Requirement | Mapping[str, Any] | Sequence[str]] = (),
        *,
        narrates: Sequence[str] = (),
    ) -> str:
        """Add the rule of a claim type: each requirement is a list of node types (cite at
        least one node of one of them), a ``Requirement`` or its dict form
        (``{"any_of": [...], "when_present": true}``); ``narrates`` names the node types
        whose statements the claim type narrates (default: the first requirement's)."""
        if claim_type in self._rules:
            raise GraphError(f"graph {self.graph_id!r}: two rules for claim type {claim_type!r}")
        rule: dict[str, Any] = {
            "claim_type": claim_type,
            "requires": [_requirement(r) for r in requires],
        }
        if narrates:
            rule["narrates"] = list(narrates)
        self._rules[claim_type] = rule
        return claim_type

    # ------------------------------------------------------------------ output

    def _matcher(self) -> AliasMatcher:
        forms: dict[str, str] = {}
        for entity in self._entities.values():
            name = () if entity.name is None else (entity.name,)
            for form in (entity.id, *name, *entity.aliases):
                forms.setdefault(form, entity.id)
        return AliasMatcher(forms)

    def _node_dict(self, node: _Node, matcher: AliasMatcher) -> dict[str, Any]:
        entities, numbers = node.entities, node.numbers
        if entities is None or numbers is None:
            found, blanked = entity_scan(node.statement, matcher)
            if entities is None:
                entities = _unique([m.entity_id for m in found])
            if numbers is None:
                numbers = _mentioned_numbers(node.statement, blanked)
        item: dict[str, Any] = {
            "id": node.id,
            "type": node.type,
            "statement": node.statement,
            "entities": list(entities),
            "numbers": list(numbers),
            "data": _copied(node.data),
        }
        if node.required:
            item["required_spans"] = list(node.required)
        if node.optional:
            item["optional_spans"] = list(node.optional)
        if node.template is not None:
            item["template"], item["slots"] = node.template, dict(node.slots)
        if node.headline:
            item["headline"] = True
        if node.salience is not None:
            item["salience"] = node.salience
        return item

    def to_dict(self) -> dict[str, Any]:
        """The graph in its file form (not checked: :meth:`build` checks it)."""
        needs = any(n.entities is None or n.numbers is None for n in self._nodes.values())
        matcher = self._matcher() if needs else AliasMatcher({})
        data: dict[str, Any] = {"format": GRAPH_FORMAT, "graph_id": self.graph_id}
        data["domain"] = self.domain
        if self.backend is not None:
            data["backend"] = self.backend
        data["entities"] = [_entity_dict(e) for e in self._entities.values()]
        data["nodes"] = [self._node_dict(n, matcher) for n in self._nodes.values()]
        data["edges"] = [dict(e) for e in self._edges]
        data["rules"] = _copied(list(self._rules.values()))
        if self._templates:
            data["templates"] = _copied(list(self._templates.values()))
        return data

    def dumps(self) -> str:
        """The canonical JSON text of :meth:`to_dict`."""
        return dumps(self.to_dict())

    def build(self) -> EvidenceGraph:
        """The graph, loaded and checked exactly as :func:`~verity.core.graph.load_graph`
        checks a file (:class:`~verity.errors.GraphError` with one line when it fails)."""
        return load_graph(self.to_dict())


_ATOMS = (str, int, float, bool, type(None))


def _copied(value: Any) -> Any:
    """A deep copy of JSON-like ``value`` (what :func:`copy.deepcopy` gives, without its
    memo for the plain dicts, lists and scalars a graph is made of; anything else is
    deep-copied)."""
    kind = type(value)
    if kind in _ATOMS:
        return value
    if kind is dict:
        return {k: _copied(v) for k, v in value.items()}
    if kind is list:
        return [_copied(v) for v in value]
    return copy.deepcopy(value)


def _mentioned_numbers(statement: str, blanked: str) -> list[str]:
    """The number mentions of a statement as it writes them (``blanked`` is its normalized
    form with entity mentions blanked out); their normalized form when normalizing changed
    the statement's length, so that the spans no longer line up."""
    aligned = len(normalize(statement)) == len(statement) == len(blanked)
    return _unique(
        [statement[m.start : m.end] if aligned else m.raw for m in find_numbers(blanked)]
    )


def _entity_dict(entity: _Entity) -> dict[str, Any]:
    item: dict[str, Any] = {"id": entity.id, "kind": entity.kind}
    if entity.name is not None:
        item["name"] = entity.name
    item["aliases"] = list(entity.aliases)
    return item

"""The claim menu of the extractive variant: claims built from the graph, verified by construction.

A menu is a finite, ordered list of :class:`MenuItem`; each item is a complete claim
(``type``, ``cited_evidence_ids``, ``text``, ``entities``, ``numbers``) built from one
narrated node:

- for every rule whose requirements the listed nodes can meet, in rule order, and every
  listed node of a type the rule narrates (:meth:`verity.core.models.Rule.narrated_types`), in
  file order. A rule that narrates any type (no ``narrates``, no requirement) is offered
  only the nodes whose type no other usable rule narrates, so a winner is a COMPARISON,
  never a THRESHOLD; the gates would accept either, the menu keeps the specific label;
- ``text`` is the node's statement with entities written by their display names
  (:meth:`verity.core.graph.EvidenceGraph.named`: a name is an accepted mention, so the
  gates read the same sentence); ``cited_evidence_ids`` is the node, then one
  companion per further requirement that the node's own type does not meet (a node linked
  to it by an edge when there is one, else the first listed node of a required type);
- ``entities`` are the entity ids the statement mentions (by id or alias), ``numbers`` the
  number strings the node lists;
- a node whose text a reader would not see as it is checked is left off: the one reader
  rule of strict and check-answer (:func:`verity.text.reader.shown_as_checked`: no markup,
  character reference, control or invisible character, misreadable digit or
  superscript, no emphasis or bullet read away, a letter or digit in every sentence);
- a node with ``optional_spans`` also yields its shorter sub-statements: the statement
  with one or more of those spans dropped (the cuts the node declares, so each passes
  strict); their numbers and entities are the ones the sub-statement itself states.

The menu is plain data from pure functions, deterministic (stable order, no sets iterated),
so prompts and their hashes reproduce. Nothing downstream trusts it: a narration built
from menu items is verified like any other. ``tests/llm/test_menu.py`` holds the guarantee
that every item of every checked-in graph passes ``strict`` and ``paper``.

One fact, one claim: :func:`remaining_items` drops every item that narrates a node some
chosen claim already narrates (its first cited id), so a decoder that removes used items
after each claim never states a fact twice, not even under another claim type or in a
shorter form.

What a decoder may take next is :func:`allowed_items`, the one selection rule of every
menu decoder. On a graph that marks a headline or salience (see
:attr:`verity.core.graph.EvidenceGraph.marked`) the first claim is a headline item when
the menu has one; then the plan: up to :data:`PLAN_CLAIMS` claims of the plan's type
(the type of the most salient node that is no headline: an optimization model's
decisions, the card-rewards allocation of spend to cards), while the menu offers one;
then each later claim narrates a node of a type no claim narrates yet, as long as the
menu offers one (so five claims tell the plan, then what limits it: a binding limit, a
shadow price, a cap or a threshold, before any other part twice); on any other graph it
is :func:`remaining_items`. :func:`choice_items` is the short list the ``choice`` variant
numbers for the model: one item per node (its full statement, under the first rule
that narrates it), headline first, then by salience, at most :data:`MAX_PLAN_LISTED` of
the plan's type, at most :data:`MAX_CHOICE_ITEMS` in all.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from verity.core.graph import EvidenceGraph, entity_scan
from verity.core.models import NodeModel, Rule, is_marked, reading_key
from verity.text.normalize import normalize
from verity.text.numbers import find_numbers
from verity.text.reader import shown_as_checked

__all__ = [
    "MAX_CHOICE_ITEMS",
    "MAX_PLAN_LISTED",
    "PLAN_CLAIMS",
    "MenuItem",
    "Said",
    "allowed_items",
    "choice_items",
    "effective_requirements",
    "item_for",
    "menu_facts",
    "menu_items",
    "menu_schema",
    "node_item",
    "plan_type",
    "remaining_items",
]

#: The most items the ``choice`` variant lists on a graph that marks salience.
MAX_CHOICE_ITEMS = 10
#: The claims of the plan's type a decoder tells after the headline, before other kinds.
PLAN_CLAIMS = 3
#: The most items of the plan's type the ``choice`` listing holds (the rest of the list
#: is what limits the plan).
MAX_PLAN_LISTED = 5


@dataclass(frozen=True, slots=True)
class MenuItem:
    """One claim the extractive variant may state: built from the node ``node_id``."""

    claim_type: str
    node_id: str
    cited_evidence_ids: tuple[str, ...]
    text: str
    entities: tuple[str, ...]
    numbers: tuple[str, ...]
    #: The narrated node's type, ``headline`` mark and ``salience`` (not part of the claim).
    node_type: str = ""
    headline: bool = False
    salience: float | None = None

    def claim(self) -> dict[str, Any]:
        """The item as a claim in output field order (no ``id``: narrators number claims)."""
        return {
            "type": self.claim_type,
            "cited_evidence_ids": list(self.cited_evidence_ids),
            "text": self.text,
            "entities": list(self.entities),
            "numbers": list(self.numbers),
        }


def effective_requirements(rule: Rule, node_types: frozenset[str]) -> list[list[str]] | None:
    """The node types a claim of ``rule`` must cite, one list per requirement that applies.

    ``None`` when the rule cannot be satisfied by nodes of ``node_types`` (a requirement
    that always applies names no present type). Requirements with ``when_present`` whose
    types are all absent are left out.
    """
    out: list[list[str]] = []
    for req in rule.requires:
        present = [t for t in req.any_of if t in node_types]
        if present:
            out.append(present)
        elif not req.when_present:
            return None
    return out


def _linked(graph: EvidenceGraph, node_id: str) -> set[str]:
    out = {e.target for e in graph.model.edges if e.source == node_id}
    out |= {e.source for e in graph.model.edges if e.target == node_id}
    return out


def _companions(
    graph: EvidenceGraph, node: NodeModel, reqs: Sequence[Sequence[str]], nodes: Sequence[NodeModel]
) -> list[str] | None:
    """One node id per requirement the node's own type does not meet; None if one has none."""
    linked: set[str] | None = None
    out: list[str] = []
    for req in reqs:
        if node.type in req or any(graph.nodes[i].type in req for i in out):
            continue
        fits = [n for n in nodes if n.type in req and n.id != node.id]
        if not fits:
            return None
        if linked is None:
            linked = _linked(graph, node.id)
        out.append(next((n.id for n in fits if n.id in linked), fits[0].id))
    return out


def _mentioned(graph: EvidenceGraph, text: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(m.entity_id for m in graph.matcher.mentions(text)))


def _stated_numbers(graph: EvidenceGraph, node: NodeModel, text: str) -> tuple[str, ...]:
    """The node's number strings that ``text`` states (as the graph loader reads numbers)."""
    raw = {m.raw for m in find_numbers(entity_scan(text, graph.matcher)[1])}
    return tuple(x for x in node.numbers if normalize(x).strip() in raw)


def _sub_statements(graph: EvidenceGraph, node: NodeModel) -> list[str]:
    """The statement's declared cuts: its optional spans dropped, in declaration order."""
    return graph.declared(node.id).cuts()


def node_item(
    graph: EvidenceGraph,
    rule: Rule,
    reqs: Sequence[Sequence[str]],
    node: NodeModel,
    nodes: Sequence[NodeModel],
) -> MenuItem | None:
    """The claim of ``rule`` that narrates ``node`` by its whole statement: the one way a
    node becomes a claim (menu items, the prompt's example claim, the simulated narrator).

    The text is the statement with entities written by their display names, cited are the
    node and its companions (:func:`_companions`, among ``nodes``), the entities those the
    statement mentions and the numbers the node lists. None when a requirement has no
    companion, or a reader would not see the text as it is checked
    (:func:`verity.text.reader.shown_as_checked`).
    """
    companions = _companions(graph, node, reqs, nodes)
    text = graph.named(node.statement)
    if companions is None or not shown_as_checked(text):
        return None
    return MenuItem(
        rule.claim_type,
        node.id,
        (node.id, *companions),
        text,
        _mentioned(graph, node.statement),
        tuple(node.numbers),
        node.type,
        node.headline,
        node.salience,
    )


def _items_for(
    graph: EvidenceGraph,
    rule: Rule,
    reqs: Sequence[Sequence[str]],
    node: NodeModel,
    nodes: Sequence[NodeModel],
    substatements: bool,
) -> list[MenuItem]:
    """The node's item under ``rule`` (:func:`node_item`), then, with ``substatements``,
    one per declared cut of its statement (that cut's own entities and numbers)."""
    whole = node_item(graph, rule, reqs, node, nodes)
    if whole is None:
        return []
    items = [whole]
    if substatements:
        items.extend(
            replace(
                whole,
                text=named,
                entities=_mentioned(graph, text),
                numbers=_stated_numbers(graph, node, text),
            )
            for text in _sub_statements(graph, node)
            if shown_as_checked(named := graph.named(text))
        )
    return items


def menu_items(
    graph: EvidenceGraph,
    node_ids: Sequence[str] | None = None,
    *,
    substatements: bool = True,
) -> list[MenuItem]:
    """The menu of ``graph`` over the listed nodes (all nodes when ``node_ids`` is None)."""
    wanted = set(node_ids) if node_ids is not None else None
    nodes = [n for n in graph.model.nodes if wanted is None or n.id in wanted]
    types = frozenset(n.type for n in nodes)
    usable = [
        (rule, reqs)
        for rule in graph.model.rules
        if (reqs := effective_requirements(rule, types)) is not None
    ]
    specific: set[str] = set()
    for rule, _ in usable:
        specific |= rule.narrated_types() or set()
    out: list[MenuItem] = []
    for rule, reqs in usable:
        narrated = rule.narrated_types()
        for node in nodes:
            offered = node.type not in specific if narrated is None else node.type in narrated
            if offered:
                out.extend(_items_for(graph, rule, reqs, node, nodes, substatements))
    return list(dict.fromkeys(out))


def item_for(items: Sequence[MenuItem], claim: Any) -> MenuItem | None:
    """The item of ``items`` a model's written claim is (its ``id`` aside), or None: the one
    way back from model output to the menu, where an endpoint returns JSON."""
    if not isinstance(claim, Mapping):
        return None
    written = {k: v for k, v in claim.items() if k != "id"}
    return next((item for item in items if item.claim() == written), None)


def menu_facts(items: Iterable[MenuItem]) -> list[str]:
    """The distinct narrated node ids of a menu, in menu order."""
    return list(dict.fromkeys(item.node_id for item in items))


#: What a decoder has said so far: menu items it chose, or claims as written (a model's
#: output, a review's kept and failing claims), each read by :func:`_told`.
Said = MenuItem | Mapping[str, Any]


def _told(said: Any) -> tuple[str | None, str | None]:
    """The node a said claim narrates (its first cited id) and its text; None for what
    it does not hold."""
    if isinstance(said, MenuItem):
        return said.node_id, said.text
    if not isinstance(said, Mapping):
        return None, None
    cited, text = said.get("cited_evidence_ids"), said.get("text")
    node = cited[0] if isinstance(cited, list) and cited and isinstance(cited[0], str) else None
    return node, text if isinstance(text, str) else None


def _key(text: str) -> str:
    return " ".join(normalize(text).split())


def remaining_items(items: Sequence[MenuItem], chosen: Iterable[Said]) -> list[MenuItem]:
    """The items left once ``chosen`` claims are stated: none about an already narrated node.

    A claim narrates its first cited id (every menu item cites its node first); an item
    whose text a chosen claim already states is dropped as well.
    """
    used_nodes: set[str] = set()
    used_texts: set[str] = set()
    for said in chosen:
        node, text = _told(said)
        if node is not None:
            used_nodes.add(node)
        if text is not None:
            used_texts.add(_key(text))
    return [
        item
        for item in items
        if item.node_id not in used_nodes and _key(item.text) not in used_texts
    ]


def _marked(items: Sequence[MenuItem]) -> bool:
    return any(map(is_marked, items))


def plan_type(items: Sequence[MenuItem]) -> str | None:
    """The type of the plan on a marked menu: that of its most salient item that is no
    headline (menu order breaks ties); None when no such item carries a salience."""
    best: MenuItem | None = None
    for item in items:
        if item.headline or item.salience is None:
            continue
        if best is None or item.salience > (best.salience or 0.0):
            best = item
    return None if best is None else best.node_type


def allowed_items(items: Sequence[MenuItem], chosen: Sequence[Said]) -> list[MenuItem]:
    """The items a decoder may take after the claims ``chosen``: what is left
    (:func:`remaining_items`), and on a marked menu a headline item first, then items of
    the plan's type (:func:`plan_type`) until :data:`PLAN_CLAIMS` are told, then a node
    type not narrated yet, each while the menu offers one."""
    left = remaining_items(items, chosen)
    if not _marked(items):
        return left
    if not chosen:
        return [item for item in left if item.headline] or left
    type_of = {item.node_id: item.node_type for item in items}
    told = [
        said.node_type if isinstance(said, MenuItem) else type_of.get(node)
        for said in chosen
        if (node := _told(said)[0]) is not None
    ]
    plan = plan_type(items)
    if plan is not None and told.count(plan) < PLAN_CLAIMS:
        planned = [item for item in left if item.node_type == plan]
        if planned:
            return planned
    return [item for item in left if item.node_type not in set(told)] or left


def choice_items(items: Sequence[MenuItem]) -> list[MenuItem]:
    """The list the ``choice`` variant numbers: each node's first item (its whole
    statement, under the first rule that narrates it), headline items first, then by
    salience (highest first), then menu order; at most :data:`MAX_CHOICE_ITEMS` on a
    marked menu, every node in menu order otherwise."""
    first: dict[str, MenuItem] = {}
    for item in items:
        if item.node_id not in first:
            first[item.node_id] = item
    if not _marked(items):
        return list(first.values())
    ranked = sorted(first.values(), key=reading_key)
    plan = plan_type(items)
    planned = [i for i in ranked if not i.headline and i.node_type == plan]
    extra = set(map(id, planned[MAX_PLAN_LISTED:]))
    listed = [i for i in ranked if id(i) not in extra]
    return [*listed, *planned[MAX_PLAN_LISTED:]][:MAX_CHOICE_ITEMS]


def menu_schema(items: Sequence[MenuItem], max_claims: int) -> dict[str, Any]:
    """The output schema: ``{"claims": [...]}`` whose every claim is one menu item (``enum``).

    ``enum`` of objects is in the portable subset (llama.cpp's grammar converter writes each
    as a literal; structured-output APIs accept it). That a claim may not repeat another
    fact is not expressible here: decoders remove used items claim by claim instead.
    """
    return {
        "type": "object",
        "properties": {
            "claims": {
                "type": "array",
                "items": {"enum": [item.claim() for item in items]},
                "minItems": 1,
                "maxItems": max(1, max_claims),
            }
        },
        "required": ["claims"],
        "additionalProperties": False,
    }

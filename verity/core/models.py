"""The file formats as pydantic v2 models: evidence graph and rules.

These models define the JSON Schemas under ``schemas/`` (see
``scripts/gen_schemas.py``). Consistency checks that a schema cannot state
(unique ids, references, aliases) live in :mod:`verity.core.graph`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from verity.formats import GRAPH_FORMAT, RULES_FORMAT

__all__ = [
    "GRAPH_FORMAT",
    "RULES_FORMAT",
    "EdgeModel",
    "EntityModel",
    "GraphModel",
    "NodeModel",
    "Requirement",
    "Rule",
    "RuleSet",
    "SlotKind",
    "TemplateModel",
    "is_marked",
    "reading_key",
]


class _Marked(Protocol):
    @property
    def headline(self) -> bool: ...
    @property
    def salience(self) -> float | None: ...


def is_marked(marked: _Marked) -> bool:
    """True when a node (or what narrates it) marks the reading order: a headline or a
    salience."""
    return marked.headline or marked.salience is not None


def reading_key(marked: _Marked) -> tuple[int, float]:
    """The one reading-order key of a node (or of what narrates it): headline first, then
    salience, highest first (absent is 0). Sort stably by it: ties keep their order."""
    return (0 if marked.headline else 1, -(marked.salience or 0.0))


Id = Annotated[str, StringConstraints(min_length=1, max_length=256)]
TypeName = Annotated[str, StringConstraints(min_length=1, max_length=128)]
Text = Annotated[str, StringConstraints(min_length=1)]


#: What a template slot holds (:data:`verity.text.kinds.SLOT_KINDS`, which a test holds
#: equal to this list; a schema needs the literal values).
SlotKind = Literal[
    "subject", "object", "amount", "rate", "set", "period", "place", "group", "condition"
]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class EntityModel(_Strict):
    """An entity the narration may name: its id, kind, display name and aliases."""

    id: Id
    kind: TypeName
    #: The name a person reads (a card's name, a region, a species). It is also an accepted
    #: mention of the entity, like an alias. Absent: the id is the display name.
    name: Text | None = None
    aliases: list[Text] = Field(default_factory=list)

    @property
    def display_name(self) -> str:
        """The name a person reads: ``name``, or the id when there is none."""
        return self.id if self.name is None else self.name


class NodeModel(_Strict):
    """One evidence node: a typed fact with its canonical statement."""

    id: Id
    type: TypeName
    statement: Text
    entities: list[Id] = Field(default_factory=list)
    numbers: list[Text] = Field(default_factory=list)
    data: dict[str, Any] = Field(default_factory=dict)
    #: Substrings of ``statement`` that a claim resting on this node may not drop: the
    #: scope, conditions, ties, caps or the verb that the statement's truth depends on.
    #: Optional; a graph without them loads as before.
    required_spans: list[Text] = Field(default_factory=list)
    #: Substrings of ``statement`` that a claim may drop whole (each occurs once and
    #: overlaps no required span). Nothing else may be dropped.
    optional_spans: list[Text] = Field(default_factory=list)
    #: The id of the graph template whose canonical form, with ``slots`` filled in, is the
    #: statement; its variants are sentences a claim may state instead.
    template: Id | None = None
    #: The template's slot values, as rendered text.
    slots: dict[str, str] = Field(default_factory=dict)
    #: True when this node states the headline of the result (the plan and its net value,
    #: the optimizer's status and objective).
    headline: bool = False
    #: How important the fact is to tell a person: higher is more important; absent is 0.
    salience: Annotated[float, Field(ge=0, allow_inf_nan=False)] | None = None


class TemplateModel(_Strict):
    """A statement template: the canonical pattern and the variants a claim may state.

    Patterns are text with ``{slot}`` fields, alternatives ``(wins|leads)`` and optional
    parts ``[, ahead of {runner}]``; ``\\`` escapes the next character. The canonical
    pattern holds slots only (no alternatives or optional parts).
    """

    id: Id
    canonical: Text
    variants: list[Text] = Field(default_factory=list)
    #: Slots over which a claim may coordinate nodes of this template that differ in that
    #: slot alone (``X wins dining and groceries at 5%``): only slots whose predicate holds
    #: of each value apart, never one a reader could take as a total.
    coordinable: list[Id] = Field(default_factory=list)
    #: The kind of a slot (:data:`verity.text.kinds.SLOT_KINDS`); a slot not listed is plain.
    slot_kinds: dict[Id, SlotKind] = Field(default_factory=dict)


class EdgeModel(_Strict):
    """A navigation edge between two nodes; never evidence itself."""

    source: Id
    target: Id
    relation: TypeName


class Requirement(_Strict):
    """Cite at least one node whose type is in ``any_of``.

    With ``when_present`` the requirement applies only when the graph holds a node
    of one of those types.
    """

    any_of: Annotated[list[TypeName], Field(min_length=1)]
    when_present: bool = False


class Rule(_Strict):
    """The evidence a claim of ``claim_type`` must cite."""

    claim_type: TypeName
    requires: list[Requirement] = Field(default_factory=list)
    #: Node types whose statements a claim of this type narrates. Optional: when empty,
    #: the types of the first requirement are narrated (a rule without requirements
    #: then narrates any node type).
    narrates: list[TypeName] = Field(default_factory=list)

    def narrated_types(self) -> frozenset[str] | None:
        """The node types this claim type narrates, or None for any type."""
        if self.narrates:
            return frozenset(self.narrates)
        if self.requires:
            return frozenset(self.requires[0].any_of)
        return None


class RuleSet(_Strict):
    """A named, shippable set of claim-type rules (``verity.rules/1``)."""

    format: Literal["verity.rules/1"]
    name: Id
    source: str = ""
    rules: list[Rule]


class GraphModel(_Strict):
    """An evidence graph file (``verity.evidence_graph/1``)."""

    format: Literal["verity.evidence_graph/1"]
    graph_id: Id
    domain: TypeName
    #: A short noun phrase naming what produced the result ("a MILP optimizer (pulp)",
    #: "a SQL query", "your own backend"), for prompts and help.
    backend: Annotated[str, StringConstraints(min_length=1, max_length=200)] | None = None
    entities: list[EntityModel] = Field(default_factory=list)
    nodes: list[NodeModel]
    edges: list[EdgeModel] = Field(default_factory=list)
    rules: list[Rule] = Field(default_factory=list)
    templates: list[TemplateModel] = Field(default_factory=list)

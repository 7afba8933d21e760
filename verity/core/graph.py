"""Evidence graphs: loading, validation and the indexes the gates read.

:func:`load_graph` reads the ``verity.evidence_graph/1`` format, validates it once,
as the pydantic model (from which ``schemas/evidence_graph.schema.json`` is generated
and published), checks what a schema cannot (unique ids, references, aliases, numbers
stated) and computes once the sets every claim is checked against.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import cached_property, lru_cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel, ValidationError

from verity.core.models import (
    GraphModel,
    NodeModel,
    Rule,
    RuleSet,
    TemplateModel,
    is_marked,
)
from verity.errors import GraphError
from verity.jsonio import dumps, path_text, read_json
from verity.text.aliases import AliasMatcher, alias_key, entity_scan
from verity.text.declarations import name_problem
from verity.text.declared import Declared, declare
from verity.text.normalize import normalize
from verity.text.patterns import Pattern
from verity.text.scan import sentence_key
from verity.text.segment import split_sentences
from verity.text.spans import statement_problem
from verity.text.templates import (
    TemplateKey,
    checked_template,
    scope_kept_problem,
    share_problem,
    template_patterns,
    templated_node_problem,
)

if TYPE_CHECKING:  # imported where used: networkx costs ~20 MB and 0.1 s to import
    import networkx as nx

__all__ = ["EvidenceGraph", "entity_scan", "load_graph", "load_rules"]

_M = TypeVar("_M", bound=BaseModel)


def _path_text(path: Sequence[Any]) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _schema_error(error: Mapping[str, Any]) -> tuple[str, str]:
    """The path and one-line message of one pydantic error, worded as the published
    schema words it: a missing or unexpected key is an error of the object holding it."""
    loc, kind = tuple(error["loc"]), error["type"]
    if kind == "missing":
        return _path_text(loc[:-1]), f"{str(loc[-1])!r} is a required property"
    if kind == "extra_forbidden":
        return _path_text(loc[:-1]), (
            f"Additional properties are not allowed ({str(loc[-1])!r} was unexpected)"
        )
    if kind == "model_type":
        return _path_text(loc), f"expected an object, not {_short(error['input'])}"
    if loc and loc[-1] == "[key]":
        return _path_text(loc[:-2]), f"the key {_short(loc[-2])}: {error['msg']}"
    if kind.endswith(("too_long", "too_short")):
        return _path_text(loc), error["msg"]
    return _path_text(loc), f"{error['msg']}, not {_short(error['input'])}"


def _validated(model: type[_M], data: Any, what: str) -> _M:
    """``data`` as ``model`` (the one check of a file's shape: the published JSON Schema
    is generated from the model), or a one-line :class:`GraphError` naming the first bad
    field's path."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
        path, message = _schema_error(errors[0])
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise GraphError(f"{what} fails its schema at {path}: {message}{more}") from None


def _duplicates(values: list[str]) -> list[str]:
    seen: set[str] = set()
    dup: list[str] = []
    for v in values:
        if v in seen and v not in dup:
            dup.append(v)
        seen.add(v)
    return dup


#: :func:`name_problem` once per name and process: graphs naming the same entities share
#: their names (a pure function of the name).
_name_problem = lru_cache(maxsize=4096)(name_problem)


def _alias_table(model: GraphModel, what: str) -> dict[str, str]:
    """Normalized surface form -> entity id, refusing forms shared by two entities.

    The forms of an entity are its id, its display name and its aliases."""
    table: dict[str, str] = {}
    for entity in model.entities:
        name = () if entity.name is None else (entity.name,)
        for form in (entity.id, *name, *entity.aliases):
            key = alias_key(form)
            if not key:
                raise GraphError(f"{what}: entity {entity.id!r} has an alias that is blank")
            owner = table.get(key)
            if owner is not None and owner != entity.id:
                raise GraphError(
                    f"{what}: the name {form!r} of entity {entity.id!r} collides with "
                    f"entity {owner!r} (names compare case- and width-insensitively)"
                )
            table[key] = entity.id
        for form in (entity.display_name, *entity.aliases):
            problem = _name_problem(form)
            if problem is not None:
                raise GraphError(f"{what}: entity {entity.id!r}: the name {form!r} {problem}")
    return table


@lru_cache(maxsize=64)
def _matcher_of(forms: tuple[tuple[str, str], ...]) -> AliasMatcher:
    """The matcher of an alias table, one per table: graphs naming the same entities
    share it, and with it what the text functions cache per matcher (an immutable value;
    :func:`verity.text.variation.sentence_key` is cached by text and matcher)."""
    return AliasMatcher(dict(forms))


def _check_statement(node: NodeModel, matcher: AliasMatcher, what: str) -> None:
    """The numbers, required spans and optional spans of a node agree with its statement."""
    problem = statement_problem(
        matcher,
        node.statement,
        tuple(node.numbers),
        tuple(node.required_spans),
        tuple(node.optional_spans),
    )
    if problem is not None:
        raise GraphError(f"{what}: node {node.id!r}{problem}")


def _template_keys(model: GraphModel, what: str) -> dict[str, TemplateKey]:
    """Template id -> the template as data, each checked (parsed, its patterns agreeing);
    refusing duplicate ids and bad patterns."""
    dup = _duplicates([t.id for t in model.templates])
    if dup:
        raise GraphError(f"{what}: duplicate template id {dup[0]!r}")
    out: dict[str, TemplateKey] = {}
    for template in model.templates:
        key: TemplateKey = (
            template.id,
            template.canonical,
            tuple(template.variants),
            tuple(template.coordinable),
            tuple(template.slot_kinds.items()),
        )
        problem = checked_template(key)
        if isinstance(problem, str):
            raise GraphError(f"{what}: {problem}")
        out[template.id] = key
    return out


def _check_template(
    node: NodeModel,
    templates: Mapping[str, TemplateKey],
    matcher: AliasMatcher,
    what: str,
) -> None:
    """A templated node names a known template, fills exactly its slots, and states the
    canonical rendering; no optional part or alternative of its renderings holds part of
    a required span (alternatives may replace one: they are declared synonyms)."""
    if node.template is None:
        if node.slots:
            raise GraphError(f"{what}: node {node.id!r} gives slots but names no template")
        return
    key = templates.get(node.template)
    if key is None:
        raise GraphError(f"{what}: node {node.id!r} names unknown template {node.template!r}")
    problem = templated_node_problem(
        matcher, key, node.statement, tuple(node.slots.items()), tuple(node.required_spans)
    )
    if problem is not None:
        raise GraphError(f"{what}: node {node.id!r}{problem}")


def _check_share(
    node: NodeModel, templates: Mapping[str, TemplateModel], matcher: AliasMatcher, what: str
) -> None:
    """A node of a template with coordinable slots states no percentage of a whole
    (:func:`verity.text.templates.share_problem`)."""
    template = None if node.template is None else templates[node.template]
    if template is None:
        return
    problem = share_problem(template.coordinable, node.statement, matcher)
    if problem is not None:
        raise GraphError(f"{what}: template {template.id!r} {problem} (node {node.id!r})")


def _check_scope_kept(node: NodeModel, templates: Mapping[str, TemplateModel], what: str) -> None:
    """No optional span of a node holds the value of a scope slot
    (:func:`verity.text.templates.scope_kept_problem`)."""
    template = templates.get(str(node.template))
    kinds = {} if template is None else template.slot_kinds
    problem = scope_kept_problem(kinds, node.slots, node.optional_spans)
    if problem is not None:
        raise GraphError(f"{what}: node {node.id!r}{problem}")


def _check_references(model: GraphModel, what: str) -> None:
    dup_nodes = _duplicates([n.id for n in model.nodes])
    if dup_nodes:
        raise GraphError(f"{what}: duplicate node id {dup_nodes[0]!r}")
    dup_entities = _duplicates([e.id for e in model.entities])
    if dup_entities:
        raise GraphError(f"{what}: duplicate entity id {dup_entities[0]!r}")
    dup_rules = _duplicates([r.claim_type for r in model.rules])
    if dup_rules:
        raise GraphError(f"{what}: two rules for claim type {dup_rules[0]!r}")
    entity_ids = {e.id for e in model.entities}
    node_ids = {n.id for n in model.nodes}
    for node in model.nodes:
        for entity in node.entities:
            if entity not in entity_ids:
                raise GraphError(f"{what}: node {node.id!r} names unknown entity {entity!r}")
    for i, edge in enumerate(model.edges):
        for end in (edge.source, edge.target):
            if end not in node_ids:
                raise GraphError(f"{what}: edges[{i}] points at unknown node {end!r}")


#: Node fields a graph file may leave out, with the value that stands for "not set".
_OPTIONAL_NODE_FIELDS: tuple[tuple[str, Any], ...] = (
    ("optional_spans", []),
    ("template", None),
    ("slots", {}),
    ("headline", False),
    ("salience", None),
)


def _drop_unset(item: dict[str, Any], fields: tuple[tuple[str, Any], ...]) -> None:
    """Remove the keys of ``item`` that hold their "not set" value."""
    for key, empty in fields:
        if key in item and item[key] == empty and type(item[key]) is type(empty):
            del item[key]


class EvidenceGraph:
    """A loaded, validated evidence graph and the sets the gates check claims against.

    Build one with :func:`load_graph`. All indexes are computed once, here; the
    object is read-only afterwards (gate 5 adds per-statement caches lazily).
    """

    def __init__(self, model: GraphModel, *, what: str = "graph") -> None:
        _check_references(model, what)
        self.model = model
        self.graph_id: str = model.graph_id
        self.domain: str = model.domain
        #: What produced the result, as a short noun phrase, or None.
        self.backend: str | None = model.backend
        self.nodes: dict[str, NodeModel] = {n.id: n for n in model.nodes}
        self.entities = {e.id: e for e in model.entities}
        self.rules: dict[str, Rule] = {r.claim_type: r for r in model.rules}
        self.node_types: frozenset[str] = frozenset(n.type for n in model.nodes)
        #: Node id -> its type.
        self.type_of: dict[str, str] = {n.id: n.type for n in model.nodes}
        self.allowed_entities: frozenset[str] = frozenset(self.entities)
        self.allowed_numbers: frozenset[str] = frozenset(x for n in model.nodes for x in n.numbers)
        stating: dict[str, set[str]] = {}
        for node in model.nodes:
            for number in node.numbers:
                stating.setdefault(number, set()).add(node.id)
        self.number_nodes: dict[str, frozenset[str]] = {k: frozenset(v) for k, v in stating.items()}
        self.aliases: dict[str, str] = _alias_table(model, what)
        self.matcher = _matcher_of(tuple(self.aliases.items()))
        #: Template id -> its parsed patterns (canonical first).
        keys = _template_keys(model, what)
        self.templates: dict[str, tuple[Pattern, ...]] = {
            t: template_patterns(k) for t, k in keys.items()
        }
        self._template_models: dict[str, TemplateModel] = {t.id: t for t in model.templates}
        #: Lazily filled caches of the gates (per-node declarations, per-graph tables).
        self.cache: dict[str, Any] = {}
        for node in model.nodes:
            _check_statement(node, self.matcher, what)
            _check_template(node, keys, self.matcher, what)
            _check_scope_kept(node, self._template_models, what)
            _check_share(node, self._template_models, self.matcher, what)

    #: Attributes derived from the others, rebuilt on unpickling rather than pickled.
    _DERIVED = ("matcher", "cache", "nx")

    def __getstate__(self) -> dict[str, Any]:
        """The model and its indexes: the matcher and the caches are left out (derived
        from the rest, and rebuilt on unpickling)."""
        return {k: v for k, v in vars(self).items() if k not in self._DERIVED}

    def __setstate__(self, state: dict[str, Any]) -> None:
        vars(self).update(state)
        self.matcher = _matcher_of(tuple(self.aliases.items()))
        self.cache = {}

    def declared(self, node_id: str) -> Declared:
        """Every sentence the node declares (statement, optional cuts, template variants),
        built once and cached."""
        table: dict[str, Declared] = self.cache.setdefault("declared", {})
        found = table.get(node_id)
        if found is None:
            node = self.nodes[node_id]
            template = None
            coordinable: Sequence[str] = ()
            slot_kinds: Mapping[str, str] = {}
            if node.template is not None:
                coordinable = self._template_models[node.template].coordinable
                slot_kinds = self._template_models[node.template].slot_kinds
                patterns = self.templates[node.template]
                # A set slot reads its members in any order (verity.text.variation), in
                # the statement's own wording too: the canonical pattern joins the variants.
                if "set" not in slot_kinds.values():
                    patterns = patterns[1:]
                template = (node.template, patterns)
            found = table[node_id] = declare(
                node.statement,
                self.matcher,
                optional_spans=node.optional_spans,
                required_spans=node.required_spans,
                template=template,
                slots=node.slots,
                coordinable=coordinable,
                slot_kinds=slot_kinds,
            )
        return found

    @cached_property
    def nx(self) -> nx.MultiDiGraph:
        """The graph as networkx: ``("evidence", id)`` and ``("entity", id)`` nodes.

        Evidence nodes carry ``type``, ``statement``, ``numbers``; entity nodes carry
        ``kind``, ``name`` (the display name) and ``aliases``. File edges keep their
        ``relation``; every evidence node has a ``mentions`` edge to each entity it names.
        """
        import networkx

        g = networkx.MultiDiGraph(graph_id=self.graph_id, domain=self.domain)
        for entity in self.model.entities:
            g.add_node(
                ("entity", entity.id),
                kind=entity.kind,
                name=entity.display_name,
                aliases=list(entity.aliases),
            )
        for node in self.model.nodes:
            g.add_node(
                ("evidence", node.id),
                type=node.type,
                statement=node.statement,
                numbers=list(node.numbers),
            )
            for entity_id in node.entities:
                g.add_edge(("evidence", node.id), ("entity", entity_id), relation="mentions")
        for edge in self.model.edges:
            g.add_edge(("evidence", edge.source), ("evidence", edge.target), relation=edge.relation)
        return g

    def display_name(self, entity_id: str) -> str:
        """The name a person reads for an entity: its ``name``, else its id."""
        return self.entities[entity_id].display_name

    def named(self, text: str) -> str:
        """``text`` with every entity written by its id written by its display name instead.

        A name is an accepted mention of its entity, so the gates read the result as they
        read ``text``: the same entity mentions in the same places, every other character
        unchanged (a name that starts the text is capitalized; letter case is forgiven).
        The result is kept only when every sentence reads, token for token, as the same
        sentence of ``text`` (:func:`verity.text.variation.sentence_key`); otherwise (text
        whose normalized form does not index like the text itself, a name that would run
        into the words around it and be read as another mention) ``text`` is returned as
        it is.
        """
        named_ids = {e.id for e in self.model.entities if e.name is not None and e.name != e.id}
        if not named_ids or len(normalize(text)) != len(text):
            return text
        found = self.matcher.mentions(text)
        parts: list[str] = []
        last = 0
        for m in found:
            if m.entity_id not in named_ids or m.raw != alias_key(m.entity_id):
                continue
            name = self.display_name(m.entity_id)
            if m.start == 0:
                name = name[:1].upper() + name[1:]
            parts.extend((text[last : m.start], name))
            last = m.end
        if not parts:
            return text
        out = "".join([*parts, text[last:]])
        if self._keys(out) != self._keys(text):
            return text
        return out

    def _keys(self, text: str) -> list[tuple[str, ...]]:
        """The v4 tokens of each sentence of ``text``, as the text check reads them."""
        return [sentence_key(s, self.matcher) for s in split_sentences(text, self.matcher)]

    def headline_ids(self) -> frozenset[str]:
        """The ids of the nodes marked ``headline``."""
        return frozenset(n.id for n in self.model.nodes if n.headline)

    @cached_property
    def marked(self) -> bool:
        """True when some node is marked ``headline`` or carries a ``salience``: the graph
        says what a reader should hear first (:func:`verity.core.verify.reading_order`)."""
        return any(map(is_marked, self.model.nodes))

    def nodes_of_type(self, node_type: str) -> list[NodeModel]:
        """Evidence nodes of one type, in file order."""
        return [n for n in self.model.nodes if n.type == node_type]

    def to_dict(self) -> dict[str, Any]:
        """The graph in its file format (declared-variation fields, display names, headline,
        salience and backend only where they are set)."""
        data = self.model.model_dump(mode="json")
        _drop_unset(data, (("backend", None),))
        for entity in data["entities"]:
            _drop_unset(entity, (("name", None),))
        for node in data["nodes"]:
            _drop_unset(node, _OPTIONAL_NODE_FIELDS)
        for template in data["templates"]:
            _drop_unset(template, (("slot_kinds", {}),))
        if not data["templates"]:
            del data["templates"]
        return data

    def dumps(self) -> str:
        """The canonical JSON text of the graph (byte-stable for equal graphs)."""
        return dumps(self.to_dict())

    def __repr__(self) -> str:
        return (
            f"EvidenceGraph({self.graph_id!r}, nodes={len(self.nodes)}, "
            f"entities={len(self.entities)}, rules={len(self.rules)})"
        )


def load_graph(source: EvidenceGraph | Mapping[str, Any] | str | Path) -> EvidenceGraph:
    """Load and validate an evidence graph from a path, a dict or an :class:`EvidenceGraph`.

    Raises :class:`verity.errors.GraphError` (an ``InputError``) with a one-line
    message when the graph cannot be used; :class:`verity.errors.InputError` when
    the file cannot be read or is not JSON.
    """
    if isinstance(source, EvidenceGraph):
        return source
    if isinstance(source, (str, Path)):
        what = f"graph {path_text(source)}"
        data = read_json(source, "graph file")
    elif isinstance(source, Mapping):
        what = "graph"
        data = dict(source)
    else:
        raise GraphError(
            f"a graph must be a path, a dict or an EvidenceGraph, not {type(source).__name__}"
        )
    return EvidenceGraph(_validated(GraphModel, data, what), what=what)


def load_rules(name_or_path: str | Path) -> RuleSet:
    """A shipped rule set by name (``"card_rewards"``) or a ``verity.rules/1`` file."""
    path = Path(name_or_path)
    if isinstance(name_or_path, str) and path.suffix != ".json" and "/" not in name_or_path:
        ref = resources.files("verity").joinpath("data", "rules", f"{name_or_path}.json")
        if not ref.is_file():
            raise GraphError(f"no shipped rule set named {name_or_path!r}")
        data = json.loads(ref.read_text("utf-8"))
        what = f"rule set {name_or_path}"
    else:
        data = read_json(path, "rules file")
        what = f"rules file {path_text(path)}"
    return _validated(RuleSet, data, what)

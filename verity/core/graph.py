"""Evidence graphs: loading, validation and the indexes the gates read.

:func:`load_graph` reads the ``verity.evidence_graph/1`` format, validates it
against ``schemas/evidence_graph.schema.json`` (jsonschema), builds the pydantic
model, checks what a schema cannot (unique ids, references, aliases, numbers
stated) and computes once the sets every claim is checked against.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import cache, cached_property
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from verity.core._declarations import (
    coordinable_message,
    coordinable_problem,
    name_problem,
    percent_of,
    variant_problem,
)
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
from verity.text.aliases import AliasMatcher, EntityMention, alias_key
from verity.text.kinds import SCOPE_KINDS
from verity.text.normalize import normalize
from verity.text.numbers import find_numbers, number_value
from verity.text.segment import split_sentences
from verity.text.variation import (
    Declared,
    Pattern,
    PatternError,
    compile_canonical,
    declare,
    parse_pattern,
    sentence_key,
)

if TYPE_CHECKING:  # imported where used: networkx costs ~20 MB and 0.1 s to import
    import networkx as nx
    from jsonschema import Draft202012Validator

__all__ = ["EvidenceGraph", "entity_scan", "load_graph", "load_rules"]


@cache
def _schema_validator(name: str) -> Draft202012Validator:
    """The JSON Schema validator of a shipped schema, built (and jsonschema imported) on
    first use: a graph unpickled in a worker or passed in loaded never needs one."""
    from jsonschema import Draft202012Validator

    text = resources.files("verity").joinpath("schemas", f"{name}.schema.json").read_text("utf-8")
    return Draft202012Validator(json.loads(text))


def _path_text(path: Any) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def _schema_check(data: Any, schema: str, what: str) -> None:
    validator = _schema_validator(schema)
    errors = sorted(validator.iter_errors(data), key=lambda e: (list(map(str, e.path)), e.message))
    if errors:
        first = errors[0]
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        message = first.message if len(first.message) <= 200 else first.message[:200] + "..."
        raise GraphError(f"{what} fails its schema at {_path_text(first.path)}: {message}{more}")


def _duplicates(values: list[str]) -> list[str]:
    seen: set[str] = set()
    dup: list[str] = []
    for v in values:
        if v in seen and v not in dup:
            dup.append(v)
        seen.add(v)
    return dup


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
            problem = name_problem(form)
            if problem is not None:
                raise GraphError(f"{what}: entity {entity.id!r}: the name {form!r} {problem}")
    return table


def entity_scan(text: str, matcher: AliasMatcher) -> tuple[list[EntityMention], str]:
    """The entity mentions of ``text`` and its normalized form with them blanked out.

    Numbers are read from the blanked text, so a digit inside an entity's name (``Gold
    2``) is never a number mention. The spans index the normalized text.
    """
    normalized = normalize(text)
    found = matcher.find(normalized)
    if not found:
        return found, normalized
    parts: list[str] = []
    last = 0
    for m in found:
        parts.append(normalized[last : m.start])
        parts.append(" " * (m.end - m.start))
        last = m.end
    parts.append(normalized[last:])
    return found, "".join(parts)


def _check_node_numbers(node: NodeModel, matcher: AliasMatcher, what: str) -> None:
    """Every listed number is a mention of the statement and every mention is listed."""
    mentions = find_numbers(entity_scan(node.statement, matcher)[1])
    raw_mentions = {m.raw for m in mentions}
    for number in node.numbers:
        if normalize(number).strip() not in raw_mentions:
            raise GraphError(
                f"{what}: node {node.id!r} lists number {number!r} "
                "that its statement does not state"
            )
    listed = [v for v in (number_value(n) for n in node.numbers) if v is not None]
    for found in mentions:
        if not any(found.value.matches(v) for v in listed):
            raise GraphError(
                f"{what}: node {node.id!r} states the number {found.raw!r} "
                "but does not list it in its numbers"
            )


def _check_required_spans(node: NodeModel, matcher: AliasMatcher, what: str) -> None:
    """Every required span is a non-blank substring of one sentence of the statement."""
    sentences: list[str] | None = None
    for span in node.required_spans:
        if not span.strip() or span not in node.statement:
            raise GraphError(
                f"{what}: node {node.id!r} requires the span {span[:80]!r}, "
                "which its statement does not contain"
            )
        if sentences is None:
            sentences = split_sentences(node.statement, matcher) or [node.statement]
        if not any(span in sentence for sentence in sentences):
            raise GraphError(
                f"{what}: node {node.id!r}: required span {span[:80]!r} crosses a sentence boundary"
            )


def _overlaps(statement: str, span: str, required: str) -> bool:
    """True when ``span`` and some occurrence of ``required`` share a character of the
    statement (``span`` occurs once)."""
    lo = statement.find(span)
    hi = lo + len(span)
    at = statement.find(required)
    while at >= 0:
        if at < hi and at + len(required) > lo:
            return True
        at = statement.find(required, at + 1)
    return False


def _check_optional_spans(node: NodeModel, matcher: AliasMatcher, what: str) -> None:
    """Each optional span occurs once in the statement, at token boundaries, and shares no
    token with a required span."""
    statement = node.statement
    for span in node.optional_spans:
        where = statement.find(span)
        if not span.strip() or where < 0:
            raise GraphError(
                f"{what}: node {node.id!r} declares the optional span {span[:80]!r}, "
                "which its statement does not contain"
            )
        if statement.find(span, where + 1) >= 0:
            raise GraphError(
                f"{what}: node {node.id!r}: the optional span {span[:80]!r} occurs more "
                "than once in its statement"
            )
        pieces = (statement[:where], span, statement[where + len(span) :])
        if sum((sentence_key(p, matcher) for p in pieces), ()) != sentence_key(statement, matcher):
            raise GraphError(
                f"{what}: node {node.id!r}: the optional span {span[:80]!r} does not start "
                "and end at word boundaries"
            )
        for required in node.required_spans:
            if _overlaps(statement, span, required):
                raise GraphError(
                    f"{what}: node {node.id!r}: the optional span {span[:80]!r} overlaps "
                    f"the required span {required[:80]!r}"
                )


def _parse_templates(model: GraphModel, what: str) -> dict[str, tuple[Pattern, ...]]:
    """Template id -> (canonical, *variants), parsed; refusing duplicates and bad patterns."""
    dup = _duplicates([t.id for t in model.templates])
    if dup:
        raise GraphError(f"{what}: duplicate template id {dup[0]!r}")
    out: dict[str, tuple[Pattern, ...]] = {}
    for template in model.templates:
        out[template.id] = _template_patterns(template, what)
    return out


def _template_patterns(template: TemplateModel, what: str) -> tuple[Pattern, ...]:
    try:
        patterns = tuple(parse_pattern(p) for p in (template.canonical, *template.variants))
    except PatternError as exc:
        raise GraphError(f"{what}: template {template.id!r}: {exc}") from None
    canonical = patterns[0]
    if not canonical.plain:
        raise GraphError(
            f"{what}: template {template.id!r}: the canonical pattern may hold slots only "
            "(alternatives and optional parts belong in variants)"
        )
    unknown = sorted(set(template.coordinable) - canonical.slots)
    if unknown:
        raise GraphError(
            f"{what}: template {template.id!r} makes the slot {unknown[0]!r} coordinable, "
            "which the canonical pattern does not use"
        )
    unknown = sorted(set(template.slot_kinds) - canonical.slots)
    if unknown:
        raise GraphError(
            f"{what}: template {template.id!r} gives a kind to the slot {unknown[0]!r}, "
            "which the canonical pattern does not use"
        )
    scoped = [n for n, kind in template.slot_kinds.items() if kind in SCOPE_KINDS]
    for variant in patterns[1:]:
        dropped = [n for n in scoped if not variant.always_has(n)]
        if dropped:
            raise GraphError(
                f"{what}: template {template.id!r}: the variant {variant.source[:80]!r} can "
                f"leave out the scope slot {dropped[0]!r} (a scope is stated in every "
                "rendering, or the variant states a wider fact)"
            )
        extra = sorted(variant.slots - canonical.slots)
        if extra:
            raise GraphError(
                f"{what}: template {template.id!r}: a variant uses the slot {extra[0]!r}, "
                "which the canonical pattern does not"
            )
        problem = variant_problem(canonical, variant)
        if problem is not None:
            raise GraphError(f"{what}: template {template.id!r}: {problem}")
    problem = coordinable_problem(canonical, tuple(template.coordinable))
    if problem is not None:
        raise GraphError(f"{what}: template {template.id!r} {problem}")
    return patterns


def _check_template(
    node: NodeModel,
    templates: Mapping[str, tuple[Pattern, ...]],
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
    patterns = templates.get(node.template)
    if patterns is None:
        raise GraphError(f"{what}: node {node.id!r} names unknown template {node.template!r}")
    canonical = patterns[0]
    if set(node.slots) != canonical.slots:
        missing = sorted(canonical.slots - set(node.slots))
        extra = sorted(set(node.slots) - canonical.slots)
        problem = f"lacks slot {missing[0]!r}" if missing else f"has unknown slot {extra[0]!r}"
        raise GraphError(f"{what}: node {node.id!r} {problem} of template {node.template!r}")
    rendered = next(canonical.renderings(node.slots))
    if rendered != node.statement:
        raise GraphError(
            f"{what}: node {node.id!r}: its statement is not the canonical rendering of "
            f"template {node.template!r} ({rendered[:120]!r})"
        )
    if compile_canonical(canonical, node.slots, matcher) != sentence_key(node.statement, matcher):
        raise GraphError(
            f"{what}: node {node.id!r}: template {node.template!r} reads differently piece by "
            "piece than its statement does (keep an entity name or a number inside one slot "
            "or one piece of text)"
        )
    for variant in patterns[1:]:
        for part in variant.optional_texts(node.slots):
            for required in node.required_spans:
                if _drops_required(part, required, matcher):
                    raise GraphError(
                        f"{what}: node {node.id!r}: template {node.template!r} lets a claim "
                        f"drop {part[:80]!r}, which holds the required span {required[:80]!r}"
                    )


def _check_share(
    node: NodeModel, templates: Mapping[str, TemplateModel], matcher: AliasMatcher, what: str
) -> None:
    """A node of a template with coordinable slots states no percentage of a whole."""
    template = None if node.template is None else templates[node.template]
    if template is None or not template.coordinable:
        return
    if percent_of(sentence_key(node.statement, matcher)):
        problem = coordinable_message(template.coordinable[0], "a percentage of a whole")
        raise GraphError(f"{what}: template {template.id!r} {problem} (node {node.id!r})")


def _check_scope_kept(node: NodeModel, templates: Mapping[str, TemplateModel], what: str) -> None:
    """No optional span of a node holds the value of a scope slot: a cut without it would
    state the fact wider than its scope (``Total revenue was $810`` of Q4's revenue)."""
    template = templates.get(str(node.template))
    kinds = {} if template is None else template.slot_kinds
    for slot, kind in kinds.items():
        value = node.slots.get(slot, "")
        for span in node.optional_spans:
            if kind in SCOPE_KINDS and value and value in span:
                raise GraphError(
                    f"{what}: node {node.id!r}: the optional span {span[:80]!r} holds the "
                    f"{kind} {value!r} of slot {slot!r} (a scope is never optional)"
                )


def _drops_required(part: str, required: str, matcher: AliasMatcher) -> bool:
    """True when an optional part ``part`` holds the whole required span."""
    kp, kr = sentence_key(part, matcher), sentence_key(required, matcher)
    return bool(kr) and any(kp[i : i + len(kr)] == kr for i in range(len(kp) - len(kr) + 1))


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
        self.matcher = AliasMatcher(self.aliases)
        #: Template id -> its parsed patterns (canonical first).
        self.templates: dict[str, tuple[Pattern, ...]] = _parse_templates(model, what)
        self._template_models: dict[str, TemplateModel] = {t.id: t for t in model.templates}
        #: Lazily filled caches of the gates (per-node declarations, per-graph tables).
        self.cache: dict[str, Any] = {}
        for node in model.nodes:
            _check_node_numbers(node, self.matcher, what)
            _check_required_spans(node, self.matcher, what)
            _check_optional_spans(node, self.matcher, what)
            _check_template(node, self.templates, self.matcher, what)
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
        self.matcher = AliasMatcher(self.aliases)
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


def _model_from_data(data: Any, what: str) -> GraphModel:
    _schema_check(data, "evidence_graph", what)
    try:
        return GraphModel.model_validate(data)
    except ValidationError as exc:  # pragma: no cover - the JSON Schema rejects first
        first = exc.errors()[0]
        raise GraphError(
            f"{what} is invalid at {_path_text(first['loc'])}: {first['msg']}"
        ) from None


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
    return EvidenceGraph(_model_from_data(data, what), what=what)


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
    _schema_check(data, "rules", what)
    return RuleSet.model_validate(data)

"""What a repair points at, and the restatement of a claim refused only by its words.

Pure functions over an :class:`~verity.core.graph.EvidenceGraph`, used by
:mod:`verity.llm.repair`:

- :func:`declared_sentences`: every sentence a node declares that a reader can be shown
  (its statement, its optional cuts, and the renderings of its template's variants, each
  one the text check reads as declared), entities by their display names;
- :func:`nearest_declared`: the few of them most like a refused sentence (token keys
  compared as the text check's diagnosis compares them);
- :func:`words_not_read`: the words of a refused sentence that its nearest declared
  sentence does not hold, and the words it leaves out;
- :func:`suggested_nodes`: for a citation that is unknown or states none of the claim's
  numbers, the nodes that state the numbers and entities the claim states, first;
- :func:`restatable_node_ids`: the cited nodes a claim refused only by the text check may
  be restated from (each states every entity and number the claim declares).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from itertools import islice
from typing import Any

from verity.core.gates import text_mentions
from verity.core.graph import EvidenceGraph
from verity.text.declarations import WIDENING
from verity.text.numbers import number_value
from verity.text.scan import MARKERS, sentence_key
from verity.text.support import likeness, unread_words

__all__ = [
    "MAX_RENDERINGS",
    "NEAREST_PER_NODE",
    "RESTATABLE_CODES",
    "SUGGESTED_NODES",
    "declared_sentences",
    "guarded_words",
    "keeps_meaning",
    "likeness",
    "nearest_declared",
    "restatable_node_ids",
    "same_markers",
    "stated_by",
    "suggested_nodes",
    "words_not_read",
]

#: Most renderings of one template pattern looked at for one node.
MAX_RENDERINGS = 256
#: How many nearest declared sentences a repair shows per cited node.
NEAREST_PER_NODE = 3
#: How many suggested nodes a repair shows for a wrong or unknown citation.
SUGGESTED_NODES = 3


#: The text refusals a claim may be restated after: its words are not declared, or drop
#: words the node does not declare optional. Never after a dropped negation or other
#: marker, a fact read in a scope its node does not state, or a coordination of nodes
#: that do not each state it: there the writer said something else than the node, and
#: the node's sentence would not be a rewording of it. Never after a reader's refusal
#: (hidden characters, markup): a text that does not read as it is checked is not
#: reworded.
RESTATABLE_CODES = frozenset(
    {
        "polarity.unsupported_sentence",
        "polarity.variant_not_declared",
        "polarity.undeclared_deletion",
        "polarity.required_span_dropped",
    }
)


def _renderings(graph: EvidenceGraph, node_id: str) -> Iterable[str]:
    node = graph.nodes[node_id]
    if node.template is None or not node.slots:
        return
    for pattern in graph.templates[node.template]:
        yield from islice(pattern.renderings(node.slots), MAX_RENDERINGS)


def declared_sentences(
    graph: EvidenceGraph, node_id: str
) -> tuple[tuple[tuple[str, ...], str], ...]:
    """(token key, text) of every sentence node ``node_id`` declares that can be shown:
    the statement first, its optional cuts, then each rendering of its template's patterns
    that the text check reads as declared; one per key, entities written by their display
    names (:meth:`EvidenceGraph.named`). Cached per graph."""
    table: dict[str, tuple[tuple[tuple[str, ...], str], ...]]
    table = graph.cache.setdefault("declared_sentences", {})
    found = table.get(node_id)
    if found is not None:
        return found
    declared = graph.declared(node_id)
    out: dict[tuple[str, ...], str] = dict(declared.texts)
    for text in _renderings(graph, node_id):
        key = sentence_key(text, graph.matcher)
        if key and key not in out and declared.declares(key):
            out[key] = text
    found = table[node_id] = tuple((key, graph.named(text)) for key, text in out.items())
    return found


def nearest_declared(
    graph: EvidenceGraph, node_id: str, sentences: Sequence[str], n: int = NEAREST_PER_NODE
) -> list[str]:
    """The ``n`` sentences node ``node_id`` declares most like any of ``sentences``, the
    most alike first (declaration order on a tie: the statement before its variants)."""
    keys = [sentence_key(s, graph.matcher) for s in sentences]
    ranked = sorted(
        enumerate(declared_sentences(graph, node_id)),
        key=lambda item: (-max((likeness(k, item[1][0]) for k in keys), default=0.0), item[0]),
    )
    return [text for _, (_, text) in ranked[:n]]


def words_not_read(graph: EvidenceGraph, sentence: str, nearest: str) -> dict[str, str]:
    """``not_read``: the words of ``sentence`` that ``nearest`` does not hold;
    ``missing``: the words of ``nearest`` that ``sentence`` leaves out (one alignment of
    their token keys, as the text check reads them)."""
    not_read, missing = unread_words(
        sentence_key(sentence, graph.matcher), sentence_key(nearest, graph.matcher)
    )
    return {"not_read": not_read, "missing": missing}


def stated_by(graph: EvidenceGraph, claim: Mapping[str, Any]) -> tuple[set[str], set[str]]:
    """(allowed numbers, allowed entities) a claim states: those it declares, and those
    its text mentions (a number by value and unit)."""
    numbers = {x for x in _strings(claim.get("numbers")) if x in graph.allowed_numbers}
    entities = {x for x in _strings(claim.get("entities")) if x in graph.allowed_entities}
    text = claim.get("text")
    if isinstance(text, str) and text.strip():
        mentions = text_mentions(text, graph)
        entities.update(entity for entity, _ in mentions.entities)
        values = [value for _, value in mentions.numbers]
        for allowed in graph.allowed_numbers:
            own = number_value(allowed)
            if own is not None and any(v.matches(own) for v in values):
                numbers.add(allowed)
    return numbers, entities


def _strings(value: Any) -> list[str]:
    return [x for x in value if isinstance(x, str)] if isinstance(value, list) else []


def suggested_nodes(
    graph: EvidenceGraph,
    claim: Mapping[str, Any],
    wrong_ids: Sequence[str],
    near_ids: Sequence[str] = (),
    n: int = SUGGESTED_NODES,
) -> list[dict[str, Any]]:
    """The nodes a claim citing ``wrong_ids`` (unknown, or stating none of its numbers)
    may mean, best first: by how many of the claim's numbers, then of its entities, each
    states; then the ids nearest a wrong id (``near_ids`` first, as the evidence gate
    suggests them), then graph order. A node that states none of the claim's numbers or
    entities and is not near a wrong id is not suggested. Each: id, type, statement, and
    the claim's numbers and entities it states."""
    numbers, entities = stated_by(graph, claim)
    cited = set(_strings(claim.get("cited_evidence_ids")))  # already cited: not suggested
    near = {node_id: i for i, node_id in enumerate(near_ids) if node_id in graph.nodes}
    scored = []
    for order, node in enumerate(graph.model.nodes):
        if node.id in cited:
            continue
        has_numbers = sorted(numbers.intersection(node.numbers))
        has_entities = sorted(entities.intersection(node.entities))
        if not has_numbers and not has_entities and node.id not in near:
            continue
        closeness = max((likeness(w, node.id) for w in wrong_ids), default=0.0)
        rank = (-len(has_numbers), -len(has_entities), near.get(node.id, len(near)), -closeness)
        scored.append((rank, order, node.id, has_numbers, has_entities))
    scored.sort(key=lambda item: (item[0], item[1]))
    return [
        {
            "id": node_id,
            "type": graph.type_of[node_id],
            "statement": graph.named(graph.nodes[node_id].statement),
            "states_numbers": has_numbers,
            "states_entities": has_entities,
        }
        for _, _, node_id, has_numbers, has_entities in scored[:n]
    ]


def restatable_node_ids(graph: EvidenceGraph, claim: Mapping[str, Any]) -> list[str]:
    """The cited nodes that state every entity and number ``claim`` declares (and every
    one its text mentions), in citation order; none when the claim declares a number or
    entity no cited node states."""
    numbers, entities = stated_by(graph, claim)
    declared_numbers = set(_strings(claim.get("numbers")))
    declared_entities = set(_strings(claim.get("entities")))
    if not declared_numbers <= numbers or not declared_entities <= entities:
        return []  # a declared number or entity the graph does not allow
    out = []
    for node_id in dict.fromkeys(_strings(claim.get("cited_evidence_ids"))):
        node = graph.nodes.get(node_id)
        if node is not None and numbers <= set(node.numbers) and entities <= set(node.entities):
            out.append(node_id)
    return out


def same_markers(graph: EvidenceGraph, a: str, b: str) -> bool:
    """True when two texts hold the same negation and other polarity markers, each as
    many times (a restatement never adds or drops one)."""

    def count(text: str) -> list[str]:
        return sorted(t for t in sentence_key(text, graph.matcher) if t in MARKERS)

    return count(a) == count(b)


def _words(graph: EvidenceGraph, text: str) -> set[str]:
    """The words of ``text`` as the text check reads them, each part of a hyphenated or
    possessive compound also a word of its own."""
    out: set[str] = set()
    for token in sentence_key(text, graph.matcher):
        if token[:1].isalpha():
            out.add(token)
            out.update(p for p in token.replace("'", "-").split("-") if p)
    return out


def guarded_words(graph: EvidenceGraph) -> frozenset[str]:
    """The words a restatement must keep when the writer wrote them: polarity markers,
    the quantifier, superlative, exclusivity and other widening words the declarations
    check (:data:`verity.text.declarations.WIDENING`), and every word of a slot value
    of a node (a period, place, group, condition or other value a fact is stated for).
    Cached per graph."""
    found: frozenset[str] | None = graph.cache.get("guarded_words")
    if found is None:
        words = set(MARKERS).union(*WIDENING.values())
        for node in graph.model.nodes:
            for value in node.slots.values():
                words |= _words(graph, value)
        found = graph.cache["guarded_words"] = frozenset(words)
    return found


def keeps_meaning(graph: EvidenceGraph, written: str, text: str) -> bool:
    """True when ``text`` may stand for ``written``: the same polarity markers, and every
    guarded word (:func:`guarded_words`) the writer wrote is a word of ``text`` (a
    restatement never turns "fewest" into "most", Q4 into Q3, or "only" into nothing)."""
    if not same_markers(graph, written, text):
        return False
    if _bindings(graph, written) != _bindings(graph, text):
        return False
    if _order_by_kind(graph, written) != _order_by_kind(graph, text):
        return False
    return _words(graph, written) & guarded_words(graph) <= _words(graph, text)


def _order_by_kind(graph: EvidenceGraph, text: str) -> dict[str, list[str]]:
    """The entities of each kind in the order the text names them: a restatement keeps
    it, so "A wins, ahead of B" never stands for "B wins, ahead of A" even at one rate
    (an entity before another of its kind is a role, as winner before runner-up)."""
    out: dict[str, list[str]] = {}
    for token in sentence_key(text, graph.matcher):
        if token[:1] == "@":
            entity = graph.entities.get(token[1:])
            kind = entity.kind if entity is not None else ""
            seen = out.setdefault(kind, [])
            if token not in seen:
                seen.append(token)
    return out


def _bindings(graph: EvidenceGraph, text: str) -> frozenset[tuple[str, str]]:
    """Which number each entity is stated with: every entity mention paired with the
    nearest number mention (the one after it on a tie; ``""`` when there is none). A
    restatement keeps them all, so it never swaps values between entities: "A wins at
    2%, ahead of B at 4.5%" is no restatement of "A wins at 4.5%, ahead of B at 2%"."""
    key = sentence_key(text, graph.matcher)
    numbers = [i for i, t in enumerate(key) if t[:1] == "<"]
    pairs = set()
    for i, token in enumerate(key):
        if token[:1] == "@":
            nearest = min(numbers, key=lambda j: (abs(j - i), j < i), default=None)
            pairs.add((token, "" if nearest is None else key[nearest]))
    return frozenset(pairs)

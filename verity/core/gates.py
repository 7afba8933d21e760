"""The gates: pure checks of one claim against one evidence graph.

Each gate is a generator ``(claim, graph) -> Iterator[Finding]`` registered in
:data:`GATES` with the profiles it runs in and the codes it reports (``schema`` and
``duplicate`` are rows too, run by verify itself); :data:`GATE_NAMES` and
:data:`ERROR_CODES` are derived from the table. :func:`verity.verify` runs the gates of a
profile in table order on each claim, stamps the gate name on each finding and turns an
exception inside a gate into an ``internal.error`` that rejects the claim (fail closed).
Custom gates join a profile through :func:`verity.extend`.

Profile ``paper`` is the published four-gate contract: evidence, entity, number
(exact string membership) and claim_type. Profile ``strict`` adds number scope,
prose consistency and the text polarity gate; it only ever rejects more.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any, NamedTuple, get_args

from verity.core.claims import SCHEMA_CODES, Claim
from verity.core.codes import Code, by_reason, code_of, row_codes
from verity.core.graph import EvidenceGraph, entity_scan
from verity.errors import InputError
from verity.text.declared import Declared
from verity.text.display import one_line
from verity.text.numbers import NUMBER_RE, NumberValue, number_value, value_of_match
from verity.text.reader import ReaderIssue, reader_issue
from verity.text.scan import sentence_key
from verity.text.scopes import read_scopes
from verity.text.segment import split_sentences
from verity.text.suggest import Candidates
from verity.text.support import SentenceVerdict, support_sentence

__all__ = [
    "ERROR_CODES",
    "GATES",
    "GATE_NAMES",
    "INTERNAL_ERROR",
    "PROFILES",
    "TEXT_CODES",
    "Finding",
    "Gate",
    "Mentions",
    "gates_for",
    "prose_findings",
    "sentence_support",
    "text_mentions",
]

PROFILES: tuple[str, ...] = ("paper", "strict")


@dataclass(frozen=True, slots=True)
class Finding:
    """What a gate found wrong, before verify stamps the gate name on it."""

    code: str
    message: str
    expected: Any = None
    actual: Any = None
    #: The gate to report under when it is not the gate that found it (type binding is
    #: found by the polarity gate, which knows the supporting node, but is a claim_type rule).
    gate: str | None = None


def _finding(
    name: str, expected: Any, actual: Any, variant: str | None = None, **fields: Any
) -> Finding:
    """The finding of the code ``name``, its message from the catalogue
    (:mod:`verity.core.codes`; ``fields``: its template's)."""
    return Finding(name, code_of(name).text(variant, **fields), expected, actual)


GateCheck = Callable[[Claim, EvidenceGraph], Iterator[Finding]]


@dataclass(frozen=True, slots=True)
class Gate:
    """A row of the gate table: a check, the profiles it runs in, the codes it reports.

    ``codes`` maps each code the check may report to its meaning (a code names the gate
    it is reported under: ``claim_type.text_not_narrated`` comes from the polarity check).
    """

    name: str
    check: GateCheck
    profiles: frozenset[str]
    codes: Mapping[str, str] = field(default_factory=dict, compare=False, hash=False)
    #: Where the check runs: ``claim`` (the gate loop of verify, on each well-formed
    #: claim), ``parse`` (reading the narration) or ``narration`` (across claims).
    stage: str = "claim"


def _nearest(value: str, graph: EvidenceGraph, name: str, choices: Iterable[str]) -> list[str]:
    """``difflib.get_close_matches(value, sorted(choices), 3, 0.5)``, cached per graph."""
    key = "candidates:" + name
    candidates = graph.cache.get(key)
    if candidates is None:
        candidates = graph.cache[key] = Candidates.of(choices)
    return candidates.nearest(value, n=3, cutoff=0.5)


def _cited_nodes(claim: Claim, graph: EvidenceGraph) -> list[str]:
    """Cited ids that name nodes, first occurrence order, no repeats."""
    return list(dict.fromkeys(filter(graph.nodes.__contains__, claim.cited_evidence_ids)))


# --- gate 1: evidence existence ------------------------------------------------------


def check_evidence(claim: Claim, graph: EvidenceGraph) -> Iterator[Finding]:
    """Every cited id is a node id, and at least one id is cited."""
    if not claim.cited_evidence_ids:
        yield _finding("evidence.none_cited", "at least one evidence id", [])
        return
    for node_id in dict.fromkeys(claim.cited_evidence_ids):
        if node_id not in graph.nodes:
            nearest = _nearest(node_id, graph, "nodes", graph.nodes)
            yield _finding("evidence.unknown_id", nearest, node_id, node_id=node_id)


# --- gate 2: entity allowlist --------------------------------------------------------


def check_entities(claim: Claim, graph: EvidenceGraph) -> Iterator[Finding]:
    """Every declared entity is an allowed entity id (exact string)."""
    for entity in dict.fromkeys(claim.entities):
        if entity not in graph.allowed_entities:
            nearest = _nearest(entity, graph, "entities", graph.allowed_entities)
            yield _finding("entity.not_allowed", nearest, entity, entity=entity)


# --- gate 3: number binding ----------------------------------------------------------


def _same_value_table(graph: EvidenceGraph) -> dict[NumberValue, list[str]]:
    """Allowed numbers grouped by their (well-formed) value, each group sorted; cached."""
    table: dict[NumberValue, list[str]] | None = graph.cache.get("numbers_by_value")
    if table is None:
        table = {}
        for n in sorted(graph.allowed_numbers):
            v = number_value(n)
            if v is not None and v.value is not None:
                table.setdefault(v, []).append(n)
        graph.cache["numbers_by_value"] = table
    return table


def _same_value(number: str, graph: EvidenceGraph) -> list[str]:
    """Allowed numbers equal in value and unit to ``number`` (``NumberValue.matches``)."""
    value = number_value(number)
    if value is None:
        return []
    return list(_same_value_table(graph).get(value, ()))


def check_number_binding(claim: Claim, graph: EvidenceGraph) -> Iterator[Finding]:
    """Every declared number string is an allowed number string (exact membership)."""
    for number in dict.fromkeys(claim.numbers):
        if number not in graph.allowed_numbers:
            expected = _same_value(number, graph) or _nearest(
                number, graph, "numbers", graph.allowed_numbers
            )
            yield _finding("number.not_allowed", expected, number, number=number)


def check_number_scope(claim: Claim, graph: EvidenceGraph) -> Iterator[Finding]:
    """Each declared (allowed) number is stated by at least one cited node."""
    cited = set(_cited_nodes(claim, graph))
    for number in dict.fromkeys(claim.numbers):
        stating = graph.number_nodes.get(number)
        if stating is None:
            continue  # not allowed at all: gate 3 already said so
        if not stating & cited:
            yield _finding("number.out_of_scope", sorted(stating), sorted(cited), number=number)


# --- gate 4: claim-type rules --------------------------------------------------------


def check_claim_type(claim: Claim, graph: EvidenceGraph) -> Iterator[Finding]:
    """The claim type has a rule and the cited nodes satisfy every requirement that applies."""
    rule = graph.rules.get(claim.type)
    if rule is None:
        yield _finding("claim_type.unknown", sorted(graph.rules), claim.type, claim_type=claim.type)
        return
    cited_types = set(map(graph.type_of.__getitem__, _cited_nodes(claim, graph)))
    for req in rule.requires:
        if req.when_present and not any(t in graph.node_types for t in req.any_of):
            continue
        if cited_types.isdisjoint(req.any_of):
            yield _finding(
                "claim_type.missing_required",
                list(req.any_of),
                sorted(cited_types),
                claim_type=claim.type,
                need=" or ".join(req.any_of),
            )


# --- strict: prose consistency -------------------------------------------------------


class Mentions(NamedTuple):
    """What a text mentions, in text order: (entity id, raw) and (raw number, value)."""

    entities: tuple[tuple[str, str], ...]
    numbers: tuple[tuple[str, NumberValue], ...]


#: (entity id, raw) of an :class:`~verity.text.aliases.EntityMention`.
_ENTITY_AND_RAW = attrgetter("entity_id", "raw")


def text_mentions(text: str, graph: EvidenceGraph) -> Mentions:
    """The entity and number mentions of ``text``, read with the graph's matcher (numbers
    from the text with the entity mentions blanked out)."""
    found, masked = entity_scan(text, graph.matcher)
    return Mentions(
        tuple(map(_ENTITY_AND_RAW, found)),
        tuple([(m.group(0), value_of_match(m)) for m in NUMBER_RE.finditer(masked)]),
    )


def check_prose(claim: Claim, graph: EvidenceGraph) -> Iterator[Finding]:
    """Entities and numbers the text mentions are declared by the claim.

    Entity mentions are ids or aliases, whole words, case- and width-insensitive.
    Number mentions compare with the declared numbers by canonical value and unit.
    """
    yield from prose_findings(text_mentions(claim.text, graph), claim.entities, claim.numbers)


def prose_findings(
    mentions: Mentions, entities: Iterable[str], numbers: Iterable[str]
) -> Iterator[Finding]:
    """The prose rule on ``mentions``: every entity mentioned is one of ``entities`` and
    every number mentioned matches one of ``numbers`` by value and unit (the first
    mention of each entity, each distinct raw number, in text order)."""
    declared_entities = set(entities)
    undeclared: set[str] = set()
    for entity_id, raw in mentions.entities:  # the first mention of each, in text order
        if entity_id not in declared_entities and entity_id not in undeclared:
            undeclared.add(entity_id)
            yield _finding(
                "prose.undeclared_entity",
                sorted(declared_entities),
                entity_id,
                raw=raw,
                entity=entity_id,
            )
    if not mentions.numbers:
        return
    listed = list(numbers)
    declared: list[NumberValue] = [v for v in map(number_value, listed) if v is not None]
    reported: set[str] = set()
    for raw, value in mentions.numbers:
        if raw in reported or any(map(value.matches, declared)):
            continue
        reported.add(raw)
        yield _finding("prose.undeclared_number", listed, raw, raw=raw)


# --- strict: gate 5, text polarity -------------------------------------------------


def _sentences(text: str, graph: EvidenceGraph) -> list[str]:
    """The sentences of a claim's text (entity-aware segmenter; the whole text if none)."""
    return split_sentences(text, graph.matcher) or [text.strip()]


#: The text gate's codes by the reader issue (:func:`verity.text.reader.reader_issue`) and
#: by the sentence reason (:data:`verity.text.variation.Reason`) they report.
_REASON_CODES: dict[str, Code] = by_reason("polarity")
_READER_CODES: dict[str, Code] = {issue: _REASON_CODES[issue] for issue in get_args(ReaderIssue)}
_SENTENCE_CODES: dict[str, Code] = {
    reason: row for reason, row in _REASON_CODES.items() if reason not in _READER_CODES
}

#: The text gate's codes for a sentence no cited node declares as written (its sentence
#: reasons; the reader's codes for markup, invisible characters and the like are not
#: among them): what a declared variant, a repair's nearest sentence or a restatement can
#: answer.
TEXT_CODES: frozenset[str] = frozenset(row.code for row in _SENTENCE_CODES.values())


def _declared(cited: Sequence[str], graph: EvidenceGraph) -> list[tuple[str, Declared]]:
    return [(node_id, graph.declared(node_id)) for node_id in cited]


def sentence_support(
    sentence: str,
    node_ids: Sequence[str],
    graph: EvidenceGraph,
    allowed: frozenset[str] | None = None,
) -> SentenceVerdict:
    """Support of one sentence by the declared sentences of the nodes ``node_ids`` (v4):
    what strict's text gate applies to each claim sentence over its cited nodes.

    A reading resting on nodes whose type is ``allowed`` (None: any type) is preferred, so
    that a reading is chosen whose facts the claim type narrates.
    """
    if not node_ids:  # no cited node exists: nothing can support the sentence
        return SentenceVerdict((), "not_contained")
    type_of = graph.type_of
    wanted = None if allowed is None else [i for i in node_ids if type_of[i] in allowed]
    return support_sentence(
        sentence_key(sentence, graph.matcher), _declared(node_ids, graph), graph.matcher, wanted
    )


def read_sentences(
    sentences: Sequence[str],
    node_ids: Sequence[str],
    graph: EvidenceGraph,
    allowed: frozenset[str] | None = None,
) -> list[SentenceVerdict]:
    """The support of the sentences of one claim or answer, in order, by the nodes
    ``node_ids``: each sentence as :func:`sentence_support` finds it, then read as a
    reader reads the whole (a scope a sentence states governs its parts and the sentences
    after it: :func:`verity.text.variation.read_scopes`)."""
    found = [sentence_support(s, node_ids, graph, allowed) for s in sentences]
    keys = [sentence_key(s, graph.matcher) for s in sentences]
    return read_scopes(keys, found, _declared(node_ids, graph), graph.matcher)


def _narrated(
    claim: Claim, graph: EvidenceGraph
) -> tuple[frozenset[str] | None, frozenset[str] | None]:
    """(primary, allowed) node types for the claim's text; None means any type.

    Primary: the types the claim type narrates. Allowed: those plus the types of the
    rule's further requirements (companion statements). Cached per claim type of the
    graph's rules (so the cache is bounded by the graph).
    """
    if claim.type not in graph.rules:
        return None, None
    table: dict[str, tuple[frozenset[str] | None, frozenset[str] | None]]
    table = graph.cache.setdefault("narrated", {})
    found = table.get(claim.type)
    if found is None:
        found = table[claim.type] = _narrated_types(claim.type, graph)
    return found


def _narrated_types(
    claim_type: str, graph: EvidenceGraph
) -> tuple[frozenset[str] | None, frozenset[str] | None]:
    rule = graph.rules.get(claim_type)
    if rule is None:
        return None, None
    primary = rule.narrated_types()
    if primary is None:
        return None, None
    return primary, primary.union(*(req.any_of for req in rule.requires))


def _failure_finding(sentence: str, verdict: SentenceVerdict, graph: EvidenceGraph) -> Finding:
    if verdict.node_id is None:
        return _finding(
            "polarity.unsupported_sentence",
            None,
            sentence,
            variant="no_cited_node",
            sentence=one_line(sentence, 160),
        )
    statement = graph.nodes[verdict.node_id].statement
    detail = f" ({verdict.detail})" if verdict.detail else ""
    nearest = verdict.expected or statement
    closest = "nearest declared sentence" if verdict.expected else "closest cited statement"
    row = _SENTENCE_CODES[verdict.reason]
    return Finding(
        row.code,
        row.text(
            sentence=one_line(sentence, 160),
            detail=detail,
            closest=closest,
            node_id=verdict.node_id,
            nearest=nearest,
        ),
        nearest,
        sentence,
    )


def _reader_finding(text: str) -> Finding | None:
    """A finding when the text does not read as it is checked, else None."""
    issue = reader_issue(text)
    if issue is None:
        return None
    row = _READER_CODES[issue[0]]
    return Finding(row.code, row.text(found=issue[1]), "plain text", issue[1])


def _part_types(found: SentenceVerdict, graph: EvidenceGraph) -> list[frozenset[str]]:
    """The node types supporting each part of a sentence's reading."""
    type_of = graph.type_of.__getitem__
    return [frozenset(map(type_of, part)) for part in found.supporters]


def _binding(
    types: list[frozenset[str]], primary: frozenset[str] | None, allowed: frozenset[str] | None
) -> tuple[bool, bool]:
    """(every part rests on an allowed type, some part rests on a primary type) of one
    supported sentence; None sets allow any type."""
    bound = allowed is None or not any(map(allowed.isdisjoint, types))
    narrated = primary is None or not all(map(primary.isdisjoint, types))
    return bound, narrated


def check_polarity(claim: Claim, graph: EvidenceGraph) -> Iterator[Finding]:
    """Every sentence is a sentence a cited node declares (the v4 predicate), and the
    text rests on a node of a type the claim type narrates.

    The text is first read as a reader sees it: invisible or control characters, line
    breaks, misreadable digits and markup reject the claim. A type-binding failure is
    reported under the ``claim_type`` gate.
    """
    unreadable = _reader_finding(claim.text)
    if unreadable is not None:
        yield unreadable
        return
    cited = _cited_nodes(claim, graph)
    primary, allowed = _narrated(claim, graph)
    narrated = primary is None
    unbound: str | None = None
    failed = False
    sentences = _sentences(claim.text, graph)
    verdicts = read_sentences(sentences, cited, graph, allowed)
    for sentence, found in zip(sentences, verdicts, strict=True):
        if not found.supporters:
            failed = True
            yield _failure_finding(sentence, found, graph)
            continue
        bound, rests = _binding(_part_types(found, graph), primary, allowed)
        if not bound and unbound is None:
            unbound = sentence
        narrated = narrated or rests
    if unbound is not None:
        yield _type_finding(claim, unbound, primary, graph)
    elif not narrated and not failed:
        yield _type_finding(claim, None, primary, graph)


def _type_finding(
    claim: Claim, sentence: str | None, primary: frozenset[str] | None, graph: EvidenceGraph
) -> Finding:
    want = sorted(primary or ())
    row = code_of("claim_type.text_not_narrated")
    shown = {"claim_type": claim.type, "narrates": " or ".join(want)}
    if sentence is None:
        message = row.text("no_sentence", **shown)
    else:
        message = row.text(sentence=one_line(sentence, 160), **shown)
    return Finding(
        row.code,
        message,
        want,
        sorted({graph.nodes[i].type for i in _cited_nodes(claim, graph)}),
        gate=row.gate,
    )


def _checked_elsewhere(claim: Claim, graph: EvidenceGraph) -> Iterator[Finding]:
    """The schema and duplicate rows: verify runs them itself (parsing; across claims)."""
    return iter(())


_BOTH = frozenset(PROFILES)
_STRICT = frozenset({"strict"})

#: Every gate, in report order, with the codes it reports. ``gates_for`` takes the
#: ``claim`` stage rows of a profile; :data:`GATE_NAMES` and :data:`ERROR_CODES` are
#: derived from this table.
GATES: tuple[Gate, ...] = (
    Gate("schema", _checked_elsewhere, _BOTH, SCHEMA_CODES, stage="parse"),
    Gate("evidence", check_evidence, _BOTH, row_codes("evidence")),
    Gate("entity", check_entities, _BOTH, row_codes("entity")),
    Gate("number", check_number_binding, _BOTH, row_codes("number")),
    Gate("number", check_number_scope, _STRICT, row_codes("number_scope")),
    Gate("claim_type", check_claim_type, _BOTH, row_codes("claim_type")),
    Gate("prose", check_prose, _STRICT, row_codes("prose")),
    Gate("polarity", check_polarity, _STRICT, row_codes("polarity")),
    Gate("duplicate", _checked_elsewhere, _BOTH, row_codes("duplicate"), stage="narration"),
)

#: The code of a gate that failed (raised, or broke its contract): the claim is rejected.
INTERNAL_ERROR = "internal.error"
_INTERNAL = code_of(INTERNAL_ERROR)

#: Every gate name a report can carry, in table order.
GATE_NAMES: tuple[str, ...] = tuple(dict.fromkeys(g.name for g in GATES))


def _error_codes(gates: Iterable[Gate]) -> dict[str, str]:
    """Every code of ``gates`` grouped by the gate it is reported under (gates in table
    order, codes in declaration order), then ``internal.error``."""
    table = tuple(gates)
    codes: dict[str, str] = {}
    for name in dict.fromkeys(g.name for g in table):
        for gate in table:
            for code, meaning in gate.codes.items():
                if code.partition(".")[0] == name:
                    codes[code] = meaning
    codes[INTERNAL_ERROR] = _INTERNAL.meaning
    return codes


#: Every stable error code, with what it means (derived from :data:`GATES`, whose rows
#: take their codes from :data:`verity.core.codes.CATALOGUE`). Documented in docs/codes.md.
ERROR_CODES: dict[str, str] = _error_codes(GATES)


def gates_for(profile: str) -> tuple[Gate, ...]:
    """The gates of a profile, in order. An unknown profile is an input error."""
    if profile not in PROFILES:
        raise InputError(f"unknown profile {profile!r}; choose one of {', '.join(PROFILES)}")
    return _BY_PROFILE[profile]


_BY_PROFILE: dict[str, tuple[Gate, ...]] = {
    p: tuple(g for g in GATES if p in g.profiles and g.stage == "claim") for p in PROFILES
}

"""Learn a graph's declared language from use: variants proposed from refused sentences.

A claim whose gates 1-4 pass and whose text only the text gate refuses (``polarity.*``)
states a fact of its cited node in words the node's template does not declare. This
module proposes, per refused sentence, the template variant that would accept it: the
sentence with the node's slot values put back as ``{slot}`` (the sentence is aligned with
the node's slots token by token: an entity mention, a number or a word run that is a slot
value becomes that slot). A proposal is refused, with the reason, when it:

- leaves out a slot of the canonical pattern (a variant is a paraphrase, not a cut);
- cannot tell two slots apart (they hold the same value in the node);
- adds a number or an entity (one that is no slot value of the node);
- adds or drops a polarity or condition marker (:data:`verity.text.variation.MARKERS`);
- adds a quantifier, superlative, exclusivity or scope word its canonical lacks (the
  declarations check, :func:`verity.text.declarations.variant_problem`);
- fails the graph loader's declaration checks once added to a copy of the graph;
- does not make the refused sentence pass strict once added (the claim is verified again
  against the copy).

Everything here is a pure function of a graph's data and narrations; reading and
writing files, SQL specs and diffs are the command line's (``verity variants suggest``).
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from verity.core.gates import TEXT_CODES
from verity.core.graph import EvidenceGraph, load_graph
from verity.core.verify import verify
from verity.errors import InputError
from verity.text.declarations import variant_problem
from verity.text.patterns import PatternError, parse_pattern
from verity.text.scan import MARKERS, TokenSpan, sentence_key, token_spans

__all__ = [
    "Proposal",
    "Refused",
    "Suggestions",
    "add_variants",
    "propose_variant",
    "refused_sentences",
    "suggest_variants",
]


_SPECIAL = frozenset("\\{}()[]|")


@dataclass(frozen=True, slots=True)
class Refused:
    """A sentence strict refused by the text check alone: where it stands."""

    narration: int
    claim_id: str
    cited: tuple[str, ...]
    sentence: str


@dataclass(frozen=True, slots=True)
class Proposal:
    """A variant proposed for one refused sentence: accepted when ``problem`` is None."""

    refused: Refused
    #: The node the sentence was aligned with, and its template (None: no templated
    #: cited node).
    node_id: str | None
    template: str | None
    variant: str | None
    problem: str | None

    @property
    def accepted(self) -> bool:
        return self.problem is None


@dataclass(frozen=True, slots=True)
class Suggestions:
    """Every proposal, and the variants to add (template id -> new variants, in order)."""

    proposals: tuple[Proposal, ...]
    additions: Mapping[str, tuple[str, ...]]


def refused_sentences(
    graph: EvidenceGraph, narrations: Sequence[Mapping[str, Any]]
) -> list[Refused]:
    """The sentences strict refuses in claims every other gate passes, in order: each
    claim whose every error is a text error (:data:`TEXT_CODES`), each such error's
    sentence once."""
    out: list[Refused] = []
    for n, narration in enumerate(narrations):
        report = verify(graph, narration, "strict", on_fail="filter")
        raw = narration.get("claims", [])
        for verdict in report.claims:
            errors = verdict.errors
            if verdict.passed or not all(e.code in TEXT_CODES for e in errors):
                continue
            cited = _cited(raw, verdict.index)
            seen: set[str] = set()
            for error in errors:
                sentence = error.actual
                if isinstance(sentence, str) and sentence not in seen:
                    seen.add(sentence)
                    out.append(Refused(n, verdict.id, cited, sentence))
    return out


def _cited(raw: Any, index: int) -> tuple[str, ...]:
    claim = raw[index] if isinstance(raw, list) and 0 <= index < len(raw) else {}
    ids = claim.get("cited_evidence_ids", []) if isinstance(claim, dict) else []
    return tuple(i for i in ids if isinstance(i, str))


# --- aligning a sentence with a node's slots ------------------------------------------------


def _slot_runs(
    tokens: Sequence[TokenSpan], values: Mapping[str, tuple[str, ...]], order: Sequence[str]
) -> tuple[dict[int, tuple[str, int]], str | None]:
    """Token position -> (slot, run length) for every run of the sentence's tokens that is
    a slot's value, longest values first, each slot's first occurrence in the canonical's
    slot order; or a problem."""
    words = [t.token for t in tokens]
    taken = [False] * len(words)
    runs: dict[int, tuple[str, int]] = {}
    by_value: dict[tuple[str, ...], list[str]] = {}
    for name in order:
        if values.get(name):
            by_value.setdefault(values[name], []).append(name)
    for value in sorted(by_value, key=len, reverse=True):
        names = by_value[value]
        size = len(value)
        at = [
            i
            for i in range(len(words) - size + 1)
            if tuple(words[i : i + size]) == value and not any(taken[i : i + size])
        ]
        if len(names) > 1 and len(at) > 1:
            listed = ", ".join(repr(n) for n in names)
            return {}, (
                f"the slots {listed} hold the same value here, so the sentence does not say "
                "which is which (propose from a node where they differ)"
            )
        for i in at:
            runs[i] = (names[0], size)
            for j in range(i, i + size):
                taken[j] = True
    return runs, None


def _escape(text: str) -> str:
    return "".join("\\" + c if c in _SPECIAL else c for c in text)


def _pattern_text(
    sentence: str, prepared: str, tokens: Sequence[TokenSpan], runs: Mapping[int, tuple[str, int]]
) -> str | None:
    """The sentence with each slot run written ``{slot}`` and its other text escaped;
    None when a run cuts a contraction apart."""
    source = sentence if len(sentence) == len(prepared) else prepared
    out: list[str] = []
    pos = 0  # characters of the source written so far
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token.start < pos:  # the second word of a contraction already written
            i += 1
            continue
        out.append(" " if prepared[pos : token.start].strip() == "" and token.start > pos else "")
        if i in runs:
            name, size = runs[i]
            end = tokens[i + size - 1].end
            if i + size < len(tokens) and tokens[i + size].start < end:
                return None
            out.append("{" + name + "}")
            pos = end
            i += size
        else:
            out.append(_escape(source[token.start : token.end]))
            pos = token.end
            i += 1
    return "".join(out).strip()


def propose_variant(
    graph: EvidenceGraph, node_id: str, sentence: str
) -> tuple[str | None, str | None]:
    """(the variant of ``node_id``'s template that reads ``sentence``, None) or (the
    variant when there is one, the problem that refuses it), before the loader and the
    re-verification (:func:`suggest_variants` runs those)."""
    node = graph.nodes[node_id]
    if node.template is None:
        return None, f"node {node_id!r} names no template"
    canonical = graph.templates[node.template][0]
    order = [p for p in _slot_order(canonical.source) if p in node.slots]
    values = {name: sentence_key(value, graph.matcher) for name, value in node.slots.items()}
    prepared, tokens = token_spans(sentence, graph.matcher)
    runs, problem = _slot_runs(tokens, values, order)
    if problem is not None:
        return None, problem
    used = {name for name, _ in runs.values()}
    missing = [n for n in order if n not in used]
    if missing:
        return None, (
            f"leaves out the slot {missing[0]!r} ({node.slots[missing[0]]!r}): a variant "
            "restates the whole fact (a cut is the template author's optional part)"
        )
    text = _pattern_text(sentence, prepared, tokens, runs)
    if text is None:
        return None, "a slot value ends inside a contraction"
    covered = {j for i, (_, size) in runs.items() for j in range(i, i + size)}
    literal = [t for j, t in enumerate(tokens) if j not in covered]
    return text, _literal_problem(literal, prepared, canonical.literals(), graph) or _widening(
        canonical.source, text
    )


def _slot_order(source: str) -> list[str]:
    pattern = parse_pattern(source)
    found: list[str] = []
    for piece in source.split("{")[1:]:
        name = piece.split("}", 1)[0]
        if name in pattern.slots and name not in found:
            found.append(name)
    return found


def _literal_problem(
    literal: Sequence[TokenSpan], text: str, canonical: Iterable[str], graph: EvidenceGraph
) -> str | None:
    """A number or an entity among the words the variant adds, or a marker it adds or
    drops against the canonical's own words."""
    for token in literal:
        if token.kind == "number":
            number = text[token.start : token.end]
            return f"adds the number {number!r}, which is no slot value of the node"
        if token.kind == "entity":
            name = graph.entities[token.token[1:]].display_name
            return f"adds the entity {name!r}, which is no slot value of the node"
    had = Counter(t for text in canonical for t in sentence_key(text) if t in MARKERS)
    has = Counter(t.token for t in literal if t.token in MARKERS)
    added = sorted((has - had).elements())
    if added:
        return f"adds the marker {added[0]!r}, which the canonical pattern lacks"
    dropped = sorted((had - has).elements())
    if dropped:
        return f"drops the marker {dropped[0]!r} of the canonical pattern"
    return None


def _widening(canonical: str, variant: str) -> str | None:
    try:
        problem = variant_problem(parse_pattern(canonical), parse_pattern(variant))
    except PatternError as exc:  # pragma: no cover - the text is escaped
        return f"does not parse as a pattern: {exc}"
    return problem


# --- checking a proposal against a copy of the graph -----------------------------------------


def add_variants(data: Mapping[str, Any], additions: Mapping[str, Sequence[str]]) -> dict[str, Any]:
    """A copy of the graph data with ``additions`` (template id -> variants) appended to
    its templates' variants (each once)."""
    out = copy.deepcopy(dict(data))
    for template in out.get("templates", []):
        new = additions.get(template.get("id"), ())
        if new:
            have = template.setdefault("variants", [])
            have.extend(v for v in new if v not in have)
    return out


def _still_refused(graph: EvidenceGraph, narration: Mapping[str, Any], refused: Refused) -> bool:
    report = verify(graph, narration, "strict", on_fail="filter")
    return any(
        v.id == refused.claim_id and any(e.actual == refused.sentence for e in v.errors)
        for v in report.claims
    )


#: A check a caller adds (the SQL spec's own load, for ``--spec``): template id and
#: variant -> a problem, or None.
ExtraCheck = Callable[[str, str], "str | None"]


def _checked(
    graph: EvidenceGraph,
    narration: Mapping[str, Any],
    refused: Refused,
    node_id: str,
    extra: ExtraCheck | None,
) -> Proposal:
    template = graph.nodes[node_id].template
    variant, problem = propose_variant(graph, node_id, refused.sentence)
    if problem is None and variant is not None and template is not None:
        problem = extra(template, variant) if extra is not None else None
        if problem is None:
            try:
                copied = load_graph(add_variants(graph.to_dict(), {template: [variant]}))
            except InputError as exc:
                problem = f"the graph loader refuses it: {exc}"
            else:
                if _still_refused(copied, narration, refused):
                    problem = "added, it does not make the sentence pass strict"
    return Proposal(refused, node_id, template, variant, problem)


def suggest_variants(
    graph: EvidenceGraph,
    narrations: Sequence[Mapping[str, Any]],
    *,
    extra: ExtraCheck | None = None,
) -> Suggestions:
    """A proposal for every sentence strict refuses by the text check alone in
    ``narrations`` (:func:`refused_sentences`): the first templated cited node whose
    variant passes every check, else the refusal that got furthest. ``extra`` adds a check
    of each variant (the SQL spec's load)."""
    proposals: list[Proposal] = []
    additions: dict[str, list[str]] = {}
    for refused in refused_sentences(graph, narrations):
        narration = narrations[refused.narration]
        cited = [i for i in dict.fromkeys(refused.cited) if i in graph.nodes]
        templated = [i for i in cited if graph.nodes[i].template is not None]
        if not templated:
            proposals.append(Proposal(refused, None, None, None, "no cited node names a template"))
            continue
        tried = [_checked(graph, narration, refused, i, extra) for i in templated]
        chosen = next((p for p in tried if p.accepted), None) or max(tried, key=_progress)
        proposals.append(chosen)
        if chosen.accepted and chosen.template is not None and chosen.variant is not None:
            have = additions.setdefault(chosen.template, [])
            if chosen.variant not in have:
                have.append(chosen.variant)
    return Suggestions(tuple(proposals), {k: tuple(v) for k, v in additions.items()})


def _progress(proposal: Proposal) -> int:
    """How far a refused proposal got (the one reported among a sentence's nodes)."""
    problem = proposal.problem or ""
    if proposal.variant is None:
        return 0
    if problem.startswith(("adds the number", "adds the entity")):
        return 1
    return 2 if problem.startswith(("adds the marker", "drops the marker")) else 3

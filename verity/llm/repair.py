"""Narrate, verify, and repair once (or up to three times); the best-of policy.

:func:`narrate_and_verify` runs pass 0 (the variant's prompt, the narration verified
as it is), then up to ``repairs`` repair passes. A repair pass sends back, as JSON in a
REVIEW block, every claim that failed with its errors (gate, code, message, expected,
actual) and what the graph allows for it, plus the kept claims so they are not repeated;
the narrator answers with replacements. Passing claims are kept as they were; the
pass's report verifies kept + replacements together, so a replacement that repeats a
kept claim is caught as a duplicate. Replacement ids continue the numbering (``c7``...).
The review asks for at most one replacement per failed claim, in the order it lists them:
the j-th replacement stands for the j-th failed claim sent back, and each repair pass
records that pairing (``Pass.replaces``: replacement id -> the id it replaces).

An attempt that failed in transport (``api_error``) ends the loop: nothing about it is
sent to the model. An attempt whose output could not be read (``parse_error``) is
validation feedback and is sent back as ``output_error``. The loop also ends when every
claim of a pass verified (``stop_reason`` ``all_verified``) or when the only failures are
repeats of other claims (``only_duplicates_failed``); otherwise it ends after ``repairs``
passes (``repairs_exhausted``), or at once with ``repairs=0`` (``no_repairs``).

With a claim menu (the extractive variant) a repair pass offers only what is left of the
menu once every claim stated so far, kept or dropped, is removed: replacements state
other facts. When nothing is left the loop ends (``menu_exhausted``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from verity.core.gate_error import GateError
from verity.core.gates import TEXT_CODES, text_mentions
from verity.core.graph import EvidenceGraph, load_graph
from verity.core.profiles import OnFail, Profile, VerificationFailed, resolve_profile
from verity.core.report import ClaimVerdict, Report
from verity.core.verify import verify
from verity.errors import InputError
from verity.formats import MAX_REPAIRS, NARRATION_FORMAT
from verity.llm.claim_ids import best_index, renumber
from verity.llm.narrators.base import Attempt, Narrator, Usage
from verity.llm.pointing import (
    RESTATABLE_CODES,
    declared_sentences,
    keeps_meaning,
    likeness,
    nearest_declared,
    restatable_node_ids,
    suggested_nodes,
    words_not_read,
)
from verity.llm.prompts import (
    MAX_PROMPT_NODES,
    Prompt,
    build_prompt,
    build_repair_prompt,
    effective_requirements,
)
from verity.progress import OnEvent, PassEnded, PassStarted, silent
from verity.text.scan import sentence_key
from verity.text.segment import split_sentences

__all__ = [
    "MAX_REPAIRS",
    "MAX_RESTATE_TRIES",
    "MAX_REVIEW_CLAIMS",
    "SHIPPED_BY",
    "NarrationResult",
    "Pass",
    "Restatement",
    "StopReason",
    "best_of",
    "narrate_and_verify",
    "restate_pass",
    "review_of",
]

#: Most failing claims one repair prompt sends back.
MAX_REVIEW_CLAIMS = 6


class StopReason(StrEnum):
    """Why the narrate -> verify -> repair loop stopped (a member is its string)."""

    ALL_VERIFIED = "all_verified"
    ONLY_DUPLICATES_FAILED = "only_duplicates_failed"
    API_ERROR = "api_error"
    NO_REPAIRS = "no_repairs"
    REPAIRS_EXHAUSTED = "repairs_exhausted"
    MENU_EXHAUSTED = "menu_exhausted"


@dataclass(frozen=True)
class Pass:
    """One narrator call and the report on the claims it stands for.

    Pass 0's report covers its own claims; a repair pass's report covers the kept
    claims (``kept_ids``) followed by its replacements (``replacement_ids``).
    ``replaces`` maps a replacement's id to the id of the claim of the previous pass it
    stands for (by position in the review); a replacement beyond the claims sent back
    replaces nothing.
    """

    index: int
    prompt: Prompt
    attempt: Attempt
    report: Report
    claims: tuple[Any, ...]
    kept_ids: tuple[str, ...]
    replacement_ids: tuple[str, ...]
    replaces: Mapping[str, str] = field(default_factory=dict)

    def ended(self) -> PassEnded:
        """The event that reports this pass: its claims and how many verified."""
        a = self.attempt
        error = a.api_error or a.parse_error
        failure = None
        if error is not None and not a.claims:
            what = "request failed" if a.api_error is not None else "output unusable"
            failure = f"{what}: {error.code}"
        s = self.report.summary
        return PassEnded(self.index, s.claims, s.passed, a.latency_s, failure)

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "kept_ids": list(self.kept_ids),
            "replacement_ids": list(self.replacement_ids),
            "replaces": dict(self.replaces),
            "attempt": self.attempt.to_dict(),
            "report": self.report.to_dict(),
        }


@dataclass(frozen=True)
class Restatement:
    """A claim refused only by the text check, shipped as its cited node's nearest
    declared sentence (:func:`restate_pass`): the claim id, the node, the sentence that ships
    and the writer's text (``restated_from``)."""

    id: str
    node_id: str
    text: str
    restated_from: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "node_id": self.node_id,
            "text": self.text,
            "restated_from": self.restated_from,
        }


#: The ways a shipped claim got through, in report order.
SHIPPED_BY = ("as_written", "after_repair", "restated")


@dataclass(frozen=True)
class NarrationResult:
    """All passes of one narration, what ships, usage and timing.

    With ``restate``, ``restated`` lists the claims of the last pass that ship restated
    and ``restated_report`` is the last pass's report with them restated (what ships)."""

    graph_id: str
    variant: str
    profile: str
    narrator: str
    passes: tuple[Pass, ...]
    stop_reason: StopReason
    elapsed_s: float
    restate: bool = False
    restated: tuple[Restatement, ...] = ()
    restated_report: Report | None = None

    @property
    def final(self) -> Report:
        """The report on what ships: the last pass's, or with ``restate`` that of the last
        pass the model answered with its claims restated (:func:`restate_pass`)."""
        if self.restated_report is not None:
            return self.restated_report
        return self.passes[-1].report

    @property
    def final_claims(self) -> list[Any]:
        """The claims of the final narration: those of the pass :attr:`final` reports on
        (the last pass, or with ``restate`` the last one the model answered), restated
        ones restated."""
        texts = {r.id: r.text for r in self.restated}
        source = _answered(self.passes) if self.restated_report is not None else self.passes[-1]
        return [
            {**c, "text": texts[c["id"]]} if isinstance(c, dict) and c.get("id") in texts else c
            for c in source.claims
        ]

    def shipped_by(self) -> dict[str, int]:
        """How many shipped claims ship as written (pass 0), after a repair, restated."""
        restated = {r.id for r in self.restated}
        first = set(self.passes[0].replacement_ids)
        counts = dict.fromkeys(SHIPPED_BY, 0)
        for c in self.final.shipped:
            way = "restated" if c.id in restated else "as_written" if c.id in first else None
            counts[way or "after_repair"] += 1
        return counts

    @property
    def shipped(self) -> list[dict[str, Any]]:
        return [c.model_dump(mode="json") for c in self.final.shipped]

    @property
    def usage(self) -> Usage:
        total = Usage()
        for p in self.passes:
            total = total + p.attempt.usage
        return total

    @property
    def model_s(self) -> float:
        """Seconds spent inside narrator calls (model or endpoint)."""
        return sum(p.attempt.latency_s for p in self.passes)

    @property
    def simulated(self) -> bool:
        return any(p.attempt.simulated for p in self.passes)

    def dropped(self) -> list[tuple[int, ClaimVerdict, Any]]:
        """Every failing claim of every pass: (pass index, verdict, the claim as written)."""
        out: list[tuple[int, ClaimVerdict, Any]] = []
        for p in self.passes:
            claims = _pass_claims(p)
            out.extend(
                (p.index, v, claims[v.index] if v.index < len(claims) else None)
                for v in p.report.claims
                if not v.passed
            )
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "graph_id": self.graph_id,
            "variant": self.variant,
            "profile": self.profile,
            "narrator": self.narrator,
            "simulated": self.simulated,
            "passes": [p.to_dict() for p in self.passes],
            "shipped": self.shipped,
            "answer": self.final.answer,
            "refused": self.final.refused,
            "best_pass": best_of(self.passes).index,
            "stop_reason": self.stop_reason,
            "restate": self.restate,
            "restated": [r.to_dict() for r in self.restated],
            "shipped_by": self.shipped_by(),
            "usage": self.usage.to_dict(),
            "elapsed_s": round(self.elapsed_s, 6),
            "model_s": round(self.model_s, 6),
        }


def _pass_claims(p: Pass) -> list[Any]:
    return list(p.claims)


def best_of(passes: Sequence[Pass]) -> Pass:
    """The pass with the most verified claims; the earliest on a tie."""
    if not passes:
        raise InputError("best_of needs at least one pass")
    return passes[best_index([len(p.report.shipped) for p in passes])]


def _narration(graph_id: str, claims: Sequence[Any]) -> dict[str, Any]:
    return {"format": NARRATION_FORMAT, "graph_id": graph_id, "claims": list(claims)}


def _allowed(graph: EvidenceGraph, claim: Any, listed: Sequence[str]) -> dict[str, Any]:
    """What the graph allows a claim like this one: citations by rule, cited statements."""
    claim_type = claim.get("type") if isinstance(claim, dict) else None
    rule = graph.rules.get(claim_type) if isinstance(claim_type, str) else None
    allowed: dict[str, Any] = {}
    if rule is None:
        allowed["claim_types"] = sorted(graph.rules)
    else:
        reqs = effective_requirements(rule, graph.node_types) or []
        allowed["cite_one_of_each"] = (
            [[i for i in listed if graph.nodes[i].type in req] for req in reqs]
            if reqs
            else "any node id"
        )
    cited = claim.get("cited_evidence_ids") if isinstance(claim, dict) else None
    known = (
        [i for i in cited if isinstance(i, str) and i in graph.nodes]
        if isinstance(cited, list)
        else []
    )
    if known:
        allowed["statements_of_cited_nodes"] = {
            i: graph.nodes[i].statement for i in dict.fromkeys(known)
        }
    return allowed


def _pointers(
    graph: EvidenceGraph, claim: Any, errors: Sequence[GateError], allowed: dict[str, Any]
) -> dict[str, Any]:
    """``allowed`` with what the errors point at, as data.

    A text refusal: per refused sentence the words not read and the nearest declared
    sentence (``text_refusals``), and per cited node the few declared sentences nearest
    the refused ones (``nearest_declared_sentences``, in place of the bare statements, so
    the writer is not shown one sentence to copy). An unknown citation, or one stating
    none of the claim's numbers: the suggested nodes with their statements, those that
    state the claim's numbers and entities first (``suggested_nodes``).
    """
    if not isinstance(claim, dict):
        return allowed
    out = dict(allowed)
    refused = [e for e in errors if e.code in TEXT_CODES and isinstance(e.actual, str)]
    cited = list(out.get("statements_of_cited_nodes", {}))
    if refused and cited:
        sentences = list(dict.fromkeys(e.actual for e in refused))
        nearest = {i: nearest_declared(graph, i, sentences) for i in cited}
        del out["statements_of_cited_nodes"]
        out["nearest_declared_sentences"] = nearest
        out["text_refusals"] = [_refusal(graph, s, nearest) for s in sentences]
    unknown = [e for e in errors if e.code == "evidence.unknown_id"]
    wrong = [str(e.actual) for e in unknown]
    near = [i for e in unknown if isinstance(e.expected, list) for i in e.expected]
    if any(e.code == "number.out_of_scope" for e in errors):
        wrong.extend(cited)
    if refused and cited and not restatable_node_ids(graph, claim):
        wrong.extend(cited)  # no cited node states what the claim states: a wrong id
    if wrong:
        out["suggested_nodes"] = suggested_nodes(graph, claim, wrong, near)
    return out


def _refusal(
    graph: EvidenceGraph, sentence: str, nearest: Mapping[str, list[str]]
) -> dict[str, Any]:
    """One refused sentence: the declared sentence of the cited nodes most like it, and
    the words of each that the other does not hold."""
    key = sentence_key(sentence, graph.matcher)
    best = max(
        (text for texts in nearest.values() for text in texts),
        key=lambda text: likeness(key, sentence_key(text, graph.matcher)),
    )
    return {"sentence": sentence, "nearest_declared": best, **words_not_read(graph, sentence, best)}


def _for_review(claim: Any) -> Any:
    return {k: v for k, v in claim.items() if k != "id"} if isinstance(claim, dict) else claim


def _worth_repairing(verdict: ClaimVerdict) -> bool:
    """A claim whose only fault is repeating an earlier one needs no replacement."""
    return any(e.code != "duplicate.repeated" for e in verdict.errors)


def review_of(graph: EvidenceGraph, prompt: Prompt, p: Pass) -> dict[str, Any] | None:
    """The REVIEW content for a repair after pass ``p``; None when there is nothing to repair.

    Failing claims are sent once each (exact repeats collapsed, pure duplicates left
    out), at most :data:`MAX_REVIEW_CLAIMS` of them.
    """
    found = _review(graph, prompt, p)
    return None if found is None else found[0]


def _review(
    graph: EvidenceGraph, prompt: Prompt, p: Pass
) -> tuple[dict[str, Any], tuple[str, ...]] | None:
    """:func:`review_of`'s content and the ids of the failing claims it sends back, in order."""
    if p.attempt.api_error is not None:
        return None
    claims = _pass_claims(p)
    seen: set[str] = set()
    items: list[dict[str, Any]] = []
    ids: list[str] = []
    for v in p.report.claims:
        if v.passed or v.index >= len(claims) or not _worth_repairing(v):
            continue
        shown = _for_review(claims[v.index])
        key = json.dumps(shown, sort_keys=True, default=str)
        if key in seen or len(items) >= MAX_REVIEW_CLAIMS:
            continue
        seen.add(key)
        ids.append(v.id)
        items.append(
            {
                "claim": shown,
                "errors": [e.model_dump(mode="json") for e in v.errors],
                "allowed": _pointers(
                    graph,
                    claims[v.index],
                    v.errors,
                    _allowed(graph, claims[v.index], prompt.listed_node_ids),
                ),
            }
        )
    review: dict[str, Any] = {
        "kept_claims": [{"type": c.type, "text": c.text} for c in p.report.shipped],
        "failing_claims": items,
    }
    if p.attempt.parse_error is not None:
        review["output_error"] = p.attempt.parse_error.to_dict()
    elif not items:
        return None
    return review, tuple(ids)


def _settled(p: Pass) -> StopReason:
    """Why a pass needs no repair: every claim verified, or only repeats failed."""
    if p.report.summary.all_claims_verified:
        return StopReason.ALL_VERIFIED
    return StopReason.ONLY_DUPLICATES_FAILED


def _first_pass(g: EvidenceGraph, narrator: Narrator, base: Prompt, profile: str | Profile) -> Pass:
    """Pass 0: the variant's prompt, its narration verified as it is."""
    attempt = narrator.narrate(base)
    claims = attempt.claims
    ids = tuple(c["id"] if isinstance(c, dict) else f"#{i}" for i, c in enumerate(claims))
    report = verify(g, _narration(g.graph_id, claims), profile, on_fail="filter")
    return Pass(0, base, attempt, report, tuple(claims), (), ids)


def _stop_or_review(
    g: EvidenceGraph, base: Prompt, last: Pass, repairs: int
) -> StopReason | tuple[dict[str, Any], tuple[str, ...]]:
    """After pass ``last``: why the loop stops, or the review the next repair sends and
    the ids of the failing claims it sends back."""
    if last.attempt.api_error is not None:
        return StopReason.API_ERROR
    if not repairs:
        return StopReason.NO_REPAIRS
    review = _review(g, base, last)
    if review is None:
        return _settled(last)
    if last.index >= repairs:
        return StopReason.REPAIRS_EXHAUSTED
    return review


def _repair_prompt(base: Prompt, review: dict[str, Any], passes: Sequence[Pass]) -> Prompt:
    last = passes[-1]
    return build_repair_prompt(
        base,
        review,
        previous_output=last.attempt.raw_text,
        pass_index=last.index + 1,
        max_claims=len(review["failing_claims"]) or base.max_claims,
        stated=[c for p in passes for c in p.claims],
    )


def _repair_pass(
    g: EvidenceGraph,
    narrator: Narrator,
    prompt: Prompt,
    passes: Sequence[Pass],
    profile: str | Profile,
    failing_ids: Sequence[str],
) -> Pass:
    """A repair pass: the last pass's shipped claims kept, the replacements numbered on,
    each paired with the failing claim at its position in the review (``failing_ids``)."""
    last = passes[-1]
    attempt = narrator.narrate(prompt)
    kept = [c.model_dump(mode="json") for c in last.report.shipped]
    next_id = 1 + sum(len(p.replacement_ids) for p in passes)
    new = renumber(attempt.claims, next_id)
    new_ids = tuple(f"c{next_id + j}" for j in range(len(new)))
    report = verify(g, _narration(g.graph_id, kept + new), profile, on_fail="filter")
    kept_ids = tuple(c["id"] for c in kept)
    replaces = dict(zip(new_ids, failing_ids, strict=False))
    return Pass(last.index + 1, prompt, attempt, report, (*kept, *new), kept_ids, new_ids, replaces)


#: Most declared sentences tried for one claim's restatement.
MAX_RESTATE_TRIES = 12


def _covers(graph: EvidenceGraph, text: str, written: str) -> bool:
    """True when ``text`` mentions every entity and every number (by value and unit)
    that ``written`` mentions."""
    ours, theirs = text_mentions(text, graph), text_mentions(written, graph)
    entities = {e for e, _ in ours.entities}
    values = [v for _, v in ours.numbers]
    return all(e in entities for e, _ in theirs.entities) and all(
        any(map(v.matches, values)) for _, v in theirs.numbers
    )


def _restatements(graph: EvidenceGraph, claim: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(node id, declared sentence) a claim may be restated as, the nearest first: the
    sentences of the cited nodes that state all it states, that keep its meaning words
    (:func:`verity.llm.pointing.keeps_meaning`) and mention every entity and number its
    text does."""
    written = claim["text"]
    sentences = split_sentences(written, graph.matcher) or [written]
    keys = [sentence_key(x, graph.matcher) for x in sentences]
    found: list[tuple[float, int, str, str]] = []
    for node_id in restatable_node_ids(graph, claim):
        for key, text in declared_sentences(graph, node_id):
            score = max(likeness(k, key) for k in keys)
            found.append((-score, len(found), node_id, text))
    found.sort()
    return [
        (node_id, text)
        for _, _, node_id, text in found
        if keeps_meaning(graph, written, text) and _covers(graph, text, written)
    ][:MAX_RESTATE_TRIES]


def _restatable(verdict: ClaimVerdict, claim: Any) -> bool:
    """A claim refused only by the text check's reading of its sentences."""
    return (
        not verdict.passed
        and bool(verdict.errors)
        and all(e.code in RESTATABLE_CODES for e in verdict.errors)
        and isinstance(claim, dict)
        and isinstance(claim.get("text"), str)
    )


def restate_pass(
    graph: EvidenceGraph, p: Pass, profile: str | Profile = "strict"
) -> tuple[Report, tuple[Restatement, ...]]:
    """The report of pass ``p`` with every claim refused only by the text check restated,
    where it can be, and the restatements.

    A claim is restated only when every error it got is one of
    :data:`verity.llm.pointing.RESTATABLE_CODES` (every other gate passed), and then only
    from a cited node that states every entity and number it declares and mentions; it
    ships as that node's nearest declared sentence (same citations, type, entities and
    numbers) that holds the writer's polarity markers, mentions everything the writer's
    text mentions, and verifies under ``profile`` with every claim that passed before still
    passing. Otherwise it stays refused (fail closed).
    """
    claims = list(p.claims)
    report = p.report
    done: list[Restatement] = []
    for v in p.report.claims:
        claim = claims[v.index] if v.index < len(claims) else None
        if not _restatable(v, claim):
            continue
        assert isinstance(claim, dict)
        for node_id, text in _restatements(graph, claim):
            trial = [*claims[: v.index], {**claim, "text": text}, *claims[v.index + 1 :]]
            checked = verify(graph, _narration(graph.graph_id, trial), profile, on_fail="filter")
            before = {w.index for w in report.claims if w.passed}
            after = {w.index for w in checked.claims if w.passed}
            if v.index in after and before <= after:
                claims, report = trial, checked
                done.append(Restatement(v.id, node_id, text, claim["text"]))
                break
    return report, tuple(done)


def _answered(passes: Sequence[Pass]) -> Pass:
    """The last pass the model answered: a repair whose request failed in transport
    holds only the claims kept before it, so the pass before it holds the refused claims
    a restatement may still ship."""
    last = passes[-1]
    if last.attempt.api_error is not None and len(passes) > 1:
        return passes[-2]
    return last


def narrate_and_verify(
    graph: EvidenceGraph | Mapping[str, Any] | str | Path,
    narrator: Narrator,
    variant: str,
    profile: str | Profile = "strict",
    repairs: int = 1,
    *,
    max_nodes: int = MAX_PROMPT_NODES,
    on_event: OnEvent | None = None,
    restate: bool = False,
) -> NarrationResult:
    """Narrate ``graph``, verify under ``profile``, repair up to ``repairs`` times.

    With ``restate`` (off by default), a claim of the last pass refused only by the text
    check ships as its cited node's nearest declared sentence, without a model call
    (:func:`restate_pass`; when the repair request failed in transport, of the pass before
    it). The passes always filter; under a profile whose on-fail policy is
    ``raise``, a final report with a failing claim raises
    :class:`verity.VerificationFailed`. ``on_event`` gets a
    :class:`verity.progress.PassStarted` and a :class:`verity.progress.PassEnded` for
    each pass.
    """
    report = on_event if on_event is not None else silent
    if isinstance(repairs, bool) or not isinstance(repairs, int) or not 0 <= repairs <= MAX_REPAIRS:
        raise InputError(f"repairs must be a whole number from 0 to {MAX_REPAIRS}, not {repairs!r}")
    profile_name, _, policy = resolve_profile(profile)
    started = time.perf_counter()
    g = load_graph(graph)
    base = build_prompt(g, variant, max_nodes=max_nodes)
    report(PassStarted(0, narrator.name))
    passes = [_first_pass(g, narrator, base, profile)]
    report(passes[-1].ended())
    while True:
        step = _stop_or_review(g, base, passes[-1], repairs)
        if isinstance(step, StopReason):
            stop = step
            break
        review, failing_ids = step
        prompt = _repair_prompt(base, review, passes)
        if base.menu and not prompt.menu:
            stop = StopReason.MENU_EXHAUSTED
            break
        report(PassStarted(len(passes), narrator.name))
        passes.append(_repair_pass(g, narrator, prompt, passes, profile, failing_ids))
        report(passes[-1].ended())
    restated: tuple[Restatement, ...] = ()
    final: Report | None = None
    if restate:
        final, restated = restate_pass(g, _answered(passes), profile)
    if policy == OnFail.RAISE and (final or passes[-1].report).summary.removed:
        raise VerificationFailed(final or passes[-1].report)
    return NarrationResult(
        g.graph_id,
        variant,
        profile_name,
        narrator.name,
        tuple(passes),
        stop,
        time.perf_counter() - started,
        restate,
        restated,
        final,
    )

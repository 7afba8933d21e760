"""The per-claim loop of verify(): the gates of a plan over every claim, and the report.

:mod:`verity.core.verify` holds the public functions, which resolve the profile and read
the input, then call :func:`build_report`. This module is one of those the wheel compiles
with mypyc (``setup.py``); the public ones stay Python, with their docstrings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, NamedTuple

from verity.answer import join_sentences
from verity.core import shortcuts
from verity.core.claims import Claim, ParsedClaim, ParsedNarration
from verity.core.gate_error import GateError
from verity.core.gates import INTERNAL_ERROR, SCREEN_BITS, Gate, dirty, screen_plan
from verity.core.graph import EvidenceGraph
from verity.core.profiles import VerificationFailed
from verity.core.report import REPORT_FORMAT, ClaimVerdict, Report, Summary
from verity.core.trusted import trusted_maker
from verity.errors import InputError
from verity.formats import REFUSAL
from verity.text.normalize import normalize

__all__ = ["DUPLICATE_REPEATED", "build_report"]

_WORD = re.compile(r"\w+")
#: The code of the ``duplicate`` gate (declared in :data:`verity.core.gates.GATES`).
DUPLICATE_REPEATED = "duplicate.repeated"


_new_error = trusted_maker(GateError)
_new_verdict = trusted_maker(ClaimVerdict)
_new_summary = trusted_maker(Summary)
_new_report = trusted_maker(Report)


def _error(gate: str, code: str, message: str, expected: Any, actual: Any) -> GateError:
    return _new_error(
        {"gate": gate, "code": code, "message": message, "expected": expected, "actual": actual}
    )


def _run(gate: Gate, claim: Claim, graph: EvidenceGraph, errors: list[GateError]) -> None:
    try:
        for f in gate.check(claim, graph):
            errors.append(_error(f.gate or gate.name, f.code, f.message, f.expected, f.actual))
    except Exception as exc:  # fail closed: a broken gate rejects, it never passes
        errors.append(
            _error(
                gate.name,
                INTERNAL_ERROR,
                f"the {gate.name} gate failed: {type(exc).__name__}: {exc}"[:500],
                None,
                type(exc).__name__,
            )
        )


@dataclass(frozen=True, slots=True)
class _Plan:
    """The gates of a profile: the leading ones :func:`dirty` covers, with their bits,
    and the rest, which run on every claim."""

    gates: tuple[Gate, ...]
    screened: tuple[tuple[int, Gate], ...]
    checks: int
    rest: tuple[Gate, ...]
    #: The gate names of a report's ``failing_by_gate``, in order.
    names: tuple[str, ...]


_PLANS: dict[int, _Plan] = {}


def _plan(gates: tuple[Gate, ...]) -> _Plan:
    """The plan of a gates tuple, remembered by identity (profiles keep their tuple).

    With the shortcuts off (:func:`verity.core.shortcuts.disabled`) nothing is
    screened: every gate runs on every claim.
    """
    if not shortcuts.enabled():
        return _Plan(gates, (), 0, gates, _names(gates))
    plan = _PLANS.get(id(gates))
    if plan is None or plan.gates is not gates:
        count, checks = screen_plan(gates)
        screened = tuple((SCREEN_BITS[g.check], g) for g in gates[:count])
        plan = _Plan(gates, screened, checks, gates[count:], _names(gates))
        if len(_PLANS) >= 64:
            _PLANS.clear()
        _PLANS[id(gates)] = plan
    return plan


def _names(gates: tuple[Gate, ...]) -> tuple[str, ...]:
    return ("schema", *dict.fromkeys(g.name for g in gates), "duplicate")


def _run_gates(claim: Claim, graph: EvidenceGraph, plan: _Plan) -> list[GateError]:
    """The errors of every gate of the plan, in gate order.

    The screened gates that :func:`dirty` shows clean are skipped (they would find
    nothing); if it fails, every one runs, and fails closed.
    """
    errors: list[GateError] = []
    if plan.screened:
        mask = _mask(claim, graph, plan.checks)
        if mask:
            errors = _run_dirty(claim, graph, plan, mask)
    for gate in plan.rest:
        _run(gate, claim, graph, errors)
    return errors


def _mask(claim: Claim, graph: EvidenceGraph, checks: int) -> int:
    """:func:`dirty`, or -1 when it fails: then every screened gate runs, and fails closed."""
    try:
        return dirty(claim, graph, checks)
    except Exception:  # the gates themselves decide
        return -1


def _run_dirty(claim: Claim, graph: EvidenceGraph, plan: _Plan, mask: int) -> list[GateError]:
    """The errors of the screened gates whose bit ``mask`` sets (-1: every one)."""
    errors: list[GateError] = []
    for bit, gate in plan.screened:
        if mask & bit:
            _run(gate, claim, graph, errors)
    return errors


def _words(claim: Claim) -> tuple[str, ...]:
    return tuple(_WORD.findall(normalize(claim.text)))


@dataclass(slots=True)
class _Seen:
    """An earlier claim of one (type, citations) bucket; its words are computed on demand."""

    id: str
    claim: Claim
    words: tuple[str, ...] | None = None


#: Per (type, cited set): the first claim (id, claim), or once a second one came, the list.
_Buckets = dict[tuple[str, frozenset[str]], "tuple[str, Claim] | list[_Seen]"]


def _repeats(claim: Claim, claim_id: str, seen: _Buckets) -> str | None:
    """The id of the first earlier claim with the same type, citations and words, or None.

    Claims are bucketed by type and cited set; words (normalized text) are only
    computed for claims that share a bucket, which is rare outside real repeats.
    """
    key = (claim.type, frozenset(claim.cited_evidence_ids))
    bucket = seen.get(key)
    if bucket is None:
        seen[key] = (claim_id, claim)
        return None
    if isinstance(bucket, tuple):
        bucket = seen[key] = [_Seen(*bucket)]
    text = claim.text
    words: tuple[str, ...] | None = None
    for earlier in bucket:
        if earlier.claim.text == text:  # the same text: the same words
            return earlier.id
        if words is None:
            words = _words(claim)
        if earlier.words is None:
            earlier.words = _words(earlier.claim)
        if earlier.words == words:
            return earlier.id
    bucket.append(_Seen(claim_id, claim, words))
    return None


def _repeat_error(first: str) -> GateError:
    return _error(
        "duplicate",
        DUPLICATE_REPEATED,
        f"the claim repeats claim {first!r} (same type, citations and text)",
        None,
        first,
    )


class _Outcome(NamedTuple):
    """The verdicts of a narration, the claims that ship and the summary's counts."""

    verdicts: list[ClaimVerdict]
    shipped: list[Claim]
    passed: int
    failing: dict[str, int]


def _verdicts(parsed: tuple[ParsedClaim, ...], graph: EvidenceGraph, plan: _Plan) -> _Outcome:
    """Every claim's verdict, in order, counted as the summary counts them."""
    verdicts: list[ClaimVerdict] = []
    shipped: list[Claim] = []
    failing = dict.fromkeys(plan.names, 0)
    passed = 0
    seen: _Buckets = {}
    screened = bool(plan.screened) and not plan.rest
    checks = plan.checks
    add_verdict, ship = verdicts.append, shipped.append
    for index, claim_id, claim_type, text, claim, parse_errors in parsed:
        if claim is None:
            errors = list(parse_errors)
        else:
            if screened:  # the common plan: one screen, a gate only where it is dirty
                mask = _mask(claim, graph, checks)
                errors = _run_dirty(claim, graph, plan, mask) if mask else []
            else:
                errors = _run_gates(claim, graph, plan)
            first = _repeats(claim, claim_id, seen)
            if first is not None:
                errors.append(_repeat_error(first))
        add_verdict(
            _new_verdict(
                {
                    "index": index,
                    "id": claim_id,
                    "type": claim_type,
                    "text": text,
                    "passed": not errors,
                    "errors": errors,
                },
            )
        )
        if errors:
            for gate in {e.gate for e in errors}:
                failing[gate] = failing.get(gate, 0) + 1
        else:
            passed += 1
            if claim is not None:
                ship(claim)
    return _Outcome(verdicts, shipped, passed, failing)


def _summary(outcome: _Outcome) -> Summary:
    claims = len(outcome.verdicts)
    return _new_summary(
        {
            "claims": claims,
            "passed": outcome.passed,
            "removed": claims - outcome.passed,
            "all_claims_verified": bool(claims) and outcome.passed == claims,
            "failing_by_gate": outcome.failing,
        },
    )


def build_report(
    g: EvidenceGraph, parsed: ParsedNarration, name: str, gates: tuple[Gate, ...], policy: str
) -> Report:
    """The report of a narration read from any input, under resolved gates and policy."""
    if parsed.graph_id is not None and parsed.graph_id != g.graph_id:
        raise InputError(f"the narration is for graph {parsed.graph_id[:80]!r}, not {g.graph_id!r}")
    outcome = _verdicts(parsed.claims, g, _plan(gates))
    shipped = outcome.shipped
    report = _new_report(
        {
            "format": REPORT_FORMAT,
            "graph_id": g.graph_id,
            "profile": name,
            "claims": outcome.verdicts,
            "summary": _summary(outcome),
            "shipped": shipped,
            "answer": join_sentences([c.text for c in shipped]) if shipped else REFUSAL,
            "refused": not shipped,
        },
    )
    if policy == "raise" and report.summary.removed:
        raise VerificationFailed(report)
    return report

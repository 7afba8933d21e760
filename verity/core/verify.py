"""verify(): run the gates of a profile over every claim of a narration.

Each well-formed claim goes through every gate of the profile in order; an exception
inside a gate rejects the claim with ``internal.error`` (fail closed). Claims that
repeat an earlier claim's type, citations and words fail the ``duplicate`` gate. The
report lists every verdict, ships the passing claims in reading order
(:func:`reading_order`) and answers with their texts joined, or with
:data:`verity.REFUSAL` when none passes.

Reading order is the one rule for the order of what ships: when the graph marks a node
``headline`` or gives nodes a ``salience``, the claims that narrate a headline node come
first, then the rest by the salience of the node they narrate (highest first, absent
counts as 0), then in the narration's order; a claim narrates its first cited id. A graph
without either mark ships the passing claims in the narration's order.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from verity.core.claims import Claim, Narration, ParsedClaim, ParsedNarration, parse_narration
from verity.core.codes import code_of
from verity.core.gate_error import GateError
from verity.core.gates import INTERNAL_ERROR, Gate
from verity.core.graph import EvidenceGraph, load_graph
from verity.core.models import reading_key
from verity.core.profiles import OnFail, Profile, VerificationFailed, resolve_profile
from verity.core.report import REPORT_FORMAT, ClaimVerdict, Report, Summary
from verity.errors import InputError
from verity.formats import REFUSAL
from verity.jsonio import loads
from verity.text.normalize import normalize
from verity.text.reader import plain_text
from verity.text.segment import join_sentences

__all__ = ["DUPLICATE_REPEATED", "reading_order", "verify", "verify_json", "verify_parsed"]

_WORD = re.compile(r"\w+")
#: The code of the ``duplicate`` gate (declared in :data:`verity.core.gates.GATES`).
DUPLICATE_REPEATED = "duplicate.repeated"
_REPEATED = code_of(DUPLICATE_REPEATED)
_INTERNAL = code_of(INTERNAL_ERROR)


def _run(gate: Gate, claim: Claim, graph: EvidenceGraph) -> list[GateError]:
    """The errors one gate finds in a claim, stamped with its name; an exception inside
    the gate adds an ``internal.error`` after what it found so far (fail closed: a broken
    gate rejects, it never passes)."""
    errors: list[GateError] = []
    try:
        for f in gate.check(claim, graph):
            errors.append(
                GateError(
                    gate=f.gate or gate.name,
                    code=f.code,
                    message=f.message,
                    expected=f.expected,
                    actual=f.actual,
                )
            )
    except Exception as exc:
        errors.append(
            GateError(
                gate=gate.name,
                code=INTERNAL_ERROR,
                message=_INTERNAL.text(gate=gate.name, error=type(exc).__name__, exc=exc)[:500],
                expected=None,
                actual=type(exc).__name__,
            )
        )
    return errors


def _words(claim: Claim) -> tuple[str, ...]:
    return tuple(_WORD.findall(normalize(claim.text)))


#: Per (type, cited set, words) of a claim: the id of the first claim with them.
_Seen = dict[tuple[str, frozenset[str], tuple[str, ...]], str]


def _repeats(claim: Claim, claim_id: str, seen: _Seen) -> str | None:
    """The id of the first earlier claim with the same type, citations and words, else
    None (and this claim is remembered)."""
    key = (claim.type, frozenset(claim.cited_evidence_ids), _words(claim))
    first = seen.get(key)
    if first is None:
        seen[key] = claim_id
    return first


def _repeat_error(first: str) -> GateError:
    return GateError(
        gate="duplicate",
        code=DUPLICATE_REPEATED,
        message=_REPEATED.text(first=first),
        expected=None,
        actual=first,
    )


def _as_read(claim: Claim | None) -> Claim | None:
    """The claim with its text as a reader sees it (:func:`verity.text.reader.plain_text`):
    every gate, and the duplicate rule, reads that one text; the verdict and the shipped
    claim keep the text as written."""
    if claim is None:
        return None
    plain = plain_text(claim.text)
    return claim if plain == claim.text else claim.model_copy(update={"text": plain})


def _verdict(
    parsed: ParsedClaim,
    graph: EvidenceGraph,
    gates: tuple[Gate, ...],
    seen: _Seen,
) -> ClaimVerdict:
    claim = _as_read(parsed.claim)
    errors = list(parsed.errors)
    if claim is not None:
        for gate in gates:
            errors.extend(_run(gate, claim, graph))
        first = _repeats(claim, parsed.id, seen)
        if first is not None:
            errors.append(_repeat_error(first))
    return ClaimVerdict(
        index=parsed.index,
        id=parsed.id,
        type=parsed.type,
        text=parsed.text,
        passed=not errors,
        errors=errors,
    )


def _gate_names(gates: tuple[Gate, ...]) -> tuple[str, ...]:
    """The gate names of a report's ``failing_by_gate``, in order."""
    return ("schema", *dict.fromkeys(g.name for g in gates), "duplicate")


def _summary(verdicts: list[ClaimVerdict], gates: tuple[Gate, ...]) -> Summary:
    failing = dict.fromkeys(_gate_names(gates), 0)
    for verdict in verdicts:
        for gate in {e.gate for e in verdict.errors}:
            failing[gate] = failing.get(gate, 0) + 1
    passed = sum(v.passed for v in verdicts)
    return Summary(
        claims=len(verdicts),
        passed=passed,
        removed=len(verdicts) - passed,
        all_claims_verified=bool(verdicts) and passed == len(verdicts),
        failing_by_gate=failing,
    )


def reading_order(graph: EvidenceGraph, claims: Sequence[Claim]) -> list[Claim]:
    """``claims`` in the order a person reads them: headline claims first, then by the
    salience of the narrated node (highest first), then as given; unchanged when the
    graph marks neither headline nor salience. A stable sort: ties keep their order."""
    if not graph.marked:
        return list(claims)

    def key(claim: Claim) -> tuple[int, float]:
        node = graph.nodes.get(claim.cited_evidence_ids[0]) if claim.cited_evidence_ids else None
        return (1, 0.0) if node is None else reading_key(node)

    return sorted(claims, key=key)


def _report(
    graph: EvidenceGraph, parsed: ParsedNarration, profile: str | Profile, on_fail: str | None
) -> Report:
    """The report of a narration read from any input, under a profile and policy."""
    name, gates, policy = resolve_profile(profile, on_fail)
    if parsed.graph_id is not None and parsed.graph_id != graph.graph_id:
        raise InputError(
            f"the narration is for graph {parsed.graph_id[:80]!r}, not {graph.graph_id!r}"
        )
    seen: _Seen = {}
    verdicts = [_verdict(p, graph, gates, seen) for p in parsed.claims]
    shipped = reading_order(
        graph,
        [p.claim for p, v in zip(parsed.claims, verdicts, strict=True) if v.passed and p.claim],
    )
    report = Report(
        format=REPORT_FORMAT,
        graph_id=graph.graph_id,
        profile=name,
        claims=verdicts,
        summary=_summary(verdicts, gates),
        shipped=shipped,
        answer=join_sentences([c.text for c in shipped]) if shipped else REFUSAL,
        refused=not shipped,
    )
    if policy == OnFail.RAISE and report.summary.removed:
        raise VerificationFailed(report)
    return report


def verify(
    graph: EvidenceGraph | Mapping[str, Any] | str | Path,
    narration: Narration | Mapping[str, Any],
    profile: str | Profile = "strict",
    *,
    on_fail: str | None = None,
) -> Report:
    """Check every claim of ``narration`` against ``graph`` under ``profile``.

    Failing claims are dropped, not fatal: the report lists every verdict with its
    errors, ships the passing claims in reading order (:func:`reading_order`) and
    answers with their texts, or with :data:`verity.REFUSAL` when none passes. Raises
    :class:`verity.errors.InputError` only for input that cannot be used at all (a graph
    that fails to load, a narration that is not an object with a claims array, an
    unknown profile, a narration for another graph).

    ``profile`` is ``"strict"``, ``"paper"`` or a :class:`verity.Profile` made with
    :func:`verity.extend`. ``on_fail`` overrides the profile's policy: ``"filter"``
    returns the report, ``"raise"`` raises :class:`verity.VerificationFailed` (carrying
    the report) when any claim fails.
    """
    return _report(load_graph(graph), parse_narration(narration), profile, on_fail)


def verify_json(
    graph: EvidenceGraph | Mapping[str, Any] | str | Path,
    narration: str | bytes,
    profile: str | Profile = "strict",
    *,
    on_fail: str | None = None,
) -> Report:
    """:func:`verify` of a narration given as JSON text (``str`` or UTF-8 ``bytes``).

    Text that is not UTF-8 or not JSON is an :class:`verity.errors.InputError`, as a
    file that is not JSON is.
    """
    if isinstance(narration, bytes):
        try:
            narration = narration.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(f"the narration is not valid UTF-8 (byte {exc.start})") from None
    data = loads(narration, "the narration")
    return _report(load_graph(graph), parse_narration(data), profile, on_fail)


def verify_parsed(
    graph: EvidenceGraph,
    parsed: ParsedNarration,
    profile: str | Profile = "strict",
    *,
    on_fail: str | None = None,
) -> Report:
    """:func:`verify` of a loaded graph and a narration already read (verify-stream)."""
    return _report(graph, parsed, profile, on_fail)

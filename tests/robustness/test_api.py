"""Hostile input through the library API: only InputError escapes, and the verdicts
keep their invariants (a failing gate never passes a claim, strict only rejects more,
v2 only rejects more than v1, the same input always gives the same report)."""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import verity
from tests.helpers import card_small_claim
from tests.robustness.strategies import (
    CARD_SMALL,
    ROBUST,
    claims_for,
    graph_dicts,
    hostile_text,
    json_values,
    narrations,
    well_typed_claims,
)
from verity import (
    ERROR_CODES,
    REFUSAL,
    EvidenceGraph,
    Finding,
    GraphError,
    InputError,
    check_answer,
    load_graph,
    verify,
)
from verity.core.report import Report
from verity.stream import verify_lines
from verity.text.align import is_supported_v1, is_supported_v2
from verity.text.segment import join_sentences

GRAPH = load_graph(CARD_SMALL)


def _report_invariants(report: Report, items: int, codes: Mapping[str, str] = ERROR_CODES) -> None:
    """What every report must satisfy, whatever went into it (``codes``: the codes its
    profile may report)."""
    assert report.summary.claims == items == len(report.claims)
    shipped_ids = [c.id for c in report.shipped]
    passing = [v for v in report.claims if v.passed]
    assert shipped_ids == [v.id for v in passing]
    for verdict in report.claims:
        assert verdict.passed == (not verdict.errors)
        for error in verdict.errors:
            assert error.code in codes, error.code
            assert error.code.split(".")[0] in (error.gate, "internal")
    assert report.refused == (not report.shipped)
    if report.refused:
        assert report.answer == REFUSAL
    else:
        assert report.answer == join_sentences([c.text for c in report.shipped])
    assert report.summary.passed == len(passing)
    assert report.summary.all_claims_verified == (
        bool(report.claims) and not report.summary.removed
    )
    json.dumps(report.to_dict())  # always serializable


@ROBUST
@given(json_values)
def test_anything_as_a_narration_raises_only_input_errors(value: Any) -> None:
    for profile in ("paper", "strict"):
        try:
            report = verify(GRAPH, value, profile)
        except InputError as exc:
            assert "\n" not in str(exc)
            continue
        _report_invariants(report, len(value["claims"]))


@ROBUST
@given(narrations)
def test_hostile_narrations_keep_report_invariants(narration: dict[str, Any]) -> None:
    for profile in ("paper", "strict"):
        _report_invariants(verify(GRAPH, narration, profile), len(narration["claims"]))


@ROBUST
@given(st.one_of(json_values, graph_dicts()))
def test_anything_as_a_graph_raises_only_graph_or_input_errors(value: Any) -> None:
    try:
        load_graph(value)
    except GraphError as exc:
        assert "\n" not in str(exc)
    except InputError as exc:  # not a graph at all (a list, a number...)
        assert "\n" not in str(exc)


def _loaded(data: dict[str, Any]) -> EvidenceGraph:
    try:
        return load_graph(data)
    except GraphError:
        assume(False)
        raise  # pragma: no cover - assume() does not return


@ROBUST
@given(st.data())
def test_random_graphs_strict_accepts_nothing_paper_rejects(data: st.DataObject) -> None:
    graph_data = data.draw(graph_dicts())
    graph = _loaded(graph_data)
    batch = data.draw(st.lists(claims_for(graph_data), min_size=1, max_size=4))
    paper = verify(graph, {"claims": batch}, "paper")
    strict = verify(graph, {"claims": batch}, "strict")
    _report_invariants(paper, len(batch))
    _report_invariants(strict, len(batch))
    for p, s in zip(paper.claims, strict.claims, strict=True):
        assert not s.passed or p.passed
        assert {e.code for e in p.errors} <= {e.code for e in s.errors}


@ROBUST
@given(st.lists(well_typed_claims, min_size=1, max_size=4))
def test_strict_accepts_nothing_paper_rejects_on_hostile_text(batch: list[dict[str, Any]]) -> None:
    paper = verify(GRAPH, {"claims": batch}, "paper")
    strict = verify(GRAPH, {"claims": batch}, "strict")
    for p, s in zip(paper.claims, strict.claims, strict=True):
        assert not s.passed or p.passed
        assert {e.code for e in p.errors} <= {e.code for e in s.errors}


class _Boom(Exception):
    pass


def _raising(exc: BaseException | None) -> verity.CustomGate:
    """A custom gate that raises ``exc`` at once, or (None) yields a finding first and
    then raises."""

    def check(claim: Any, graph: Any) -> Any:
        if exc is not None:
            raise exc
        yield Finding("boom.found", "a finding before the failure")
        raise ValueError("late")

    return verity.CustomGate("boom", check, {"boom.found": "found before the failure"})


@ROBUST
@given(
    st.lists(well_typed_claims, min_size=1, max_size=4),
    st.sampled_from(["paper", "strict"]),
    st.sampled_from([_Boom("x"), ZeroDivisionError(), RecursionError(), KeyError("k"), None]),
)
def test_a_failing_gate_never_passes_a_claim(
    batch: list[dict[str, Any]], profile: str, exc: BaseException | None
) -> None:
    derived = verity.extend(profile, [_raising(exc)])
    report = verify(GRAPH, {"claims": batch}, derived)
    _report_invariants(report, len(batch), derived.error_codes)
    assert report.refused and not report.shipped
    for verdict in report.claims:
        assert not verdict.passed
        codes = {e.code for e in verdict.errors}
        # A claim that fails its schema never reaches the gates; every other one
        # carries the failure.
        assert "internal.error" in codes or all(c.startswith("schema.") for c in codes)


def _clear_caches(graph: EvidenceGraph) -> None:
    from verity.text.normalize import _normalize_cached
    from verity.text.numbers import _value_of_groups, number_value
    from verity.text.suggest import _remembered
    from verity.text.tokens import _number_token

    graph.cache.clear()
    for cached in (_normalize_cached, _value_of_groups, number_value, _number_token, _remembered):
        cached.cache_clear()


@ROBUST
@given(narrations, st.sampled_from(["paper", "strict"]))
def test_results_are_identical_across_runs_and_caches(
    narration: dict[str, Any], profile: str
) -> None:
    first = verify(GRAPH, copy.deepcopy(narration), profile).to_dict()
    again = verify(GRAPH, copy.deepcopy(narration), profile).to_dict()
    fresh = load_graph(CARD_SMALL)
    cold = verify(fresh, copy.deepcopy(narration), profile).to_dict()
    _clear_caches(fresh)
    cleared = verify(fresh, copy.deepcopy(narration), profile).to_dict()
    assert first == again == cold == cleared


@ROBUST
@given(hostile_text, hostile_text)
def test_v2_accepts_nothing_v1_rejects(claim: str, passage: str) -> None:
    if is_supported_v2(claim, passage):
        assert is_supported_v1(claim, passage)


@ROBUST
@given(st.sampled_from([n["statement"] for n in CARD_SMALL["nodes"]]), hostile_text)
def test_v2_accepts_nothing_v1_rejects_near_real_passages(passage: str, noise: str) -> None:
    words = passage.split()
    claim = " ".join(words[: len(words) // 2]) + " " + noise
    assert not is_supported_v2(claim, passage) or is_supported_v1(claim, passage)


@ROBUST
@given(hostile_text, st.data())
def test_v2_accepts_nothing_v1_rejects_on_subsequences(passage: str, data: st.DataObject) -> None:
    words = passage.split()
    keep = data.draw(st.lists(st.booleans(), min_size=len(words), max_size=len(words)))
    claim = " ".join(w for w, k in zip(words, keep, strict=True) if k)
    if data.draw(st.booleans()):
        claim = claim.upper()
    assert not is_supported_v2(claim, passage) or is_supported_v1(claim, passage)


passages = st.lists(
    st.one_of(
        st.fixed_dictionaries({"id": st.text(min_size=1, max_size=5), "text": hostile_text}),
        json_values,
    ),
    max_size=4,
)


@ROBUST
@given(st.one_of(hostile_text, json_values), st.one_of(passages, json_values))
def test_check_answer_raises_only_input_errors(answer: Any, items: Any) -> None:
    try:
        result = check_answer(answer, items)
    except InputError as exc:
        assert "\n" not in str(exc)
        return
    kept = [c.text for c in result.claims if c.supported]
    assert result.refused == (not kept)
    assert result.answer == (join_sentences(kept) if kept else REFUSAL)
    assert result.unsupported_claims_removed == len(result.claims) - len(kept)
    json.dumps(result.to_dict())


lines = st.one_of(
    st.binary(max_size=80),
    json_values.map(lambda v: json.dumps(v).encode()),
    narrations.map(lambda n: json.dumps({**n, "graph_id": "card-small"}).encode()),
    st.sampled_from(
        [b"", b"   ", b"\xef\xbb\xbf{}", b"\xff\xfe", b"[" * 50_000, b"NaN", b'{"graph_id": 5}']
    ),
    st.just(b'{"graph_id": "card-small", "claims": [{"id": "\\ud800"}]}'),
)


@ROBUST
@given(st.lists(lines, max_size=6), st.sampled_from(["paper", "strict"]))
def test_a_stream_line_never_stops_the_stream(raw: list[bytes], profile: str) -> None:
    out = verify_lines(list(enumerate(raw, start=1)), {GRAPH.graph_id: GRAPH}, profile)
    assert len(out) == len(raw)
    for number, line in enumerate(out, start=1):
        assert "\n" not in line
        line.encode("utf-8")  # printable: no lone surrogates
        body = json.loads(line)
        assert body["line"] == number
        assert ("report" in body) != ("error" in body)


@pytest.mark.parametrize("profile", ["paper", "strict"])
def test_a_lone_surrogate_in_a_python_narration_is_verified_not_raised(profile: str) -> None:
    claim = {**CARD_SMALL_CLAIM, "text": "gold_dining wins \ud800 dining at 4x."}
    report = verify(GRAPH, {"claims": [claim]}, profile)
    _report_invariants(report, 1)


CARD_SMALL_CLAIM = card_small_claim("win_dining_vs_flat_two")

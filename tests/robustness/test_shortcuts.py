"""verify()'s shortcuts never change a report.

Every report is computed twice: with the shortcuts (the screen, the per-node answers
for verbatim statements, typed decoding of JSON text) and the plain way, inside
:func:`verity.core.shortcuts.disabled`, from ``json.loads`` of the same text. The
two must serialize to the same bytes, on the golden suites, the adversarial suite,
seeded workload narrations, and fuzzed graphs, claims and hostile JSON text.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Mapping
from functools import cache
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.core.test_gates import _expand
from tests.helpers import GOLDEN, ROOT, graph_dict, load_json
from tests.robustness.strategies import (
    CARD_SMALL,
    ROBUST,
    claims_for,
    graph_dicts,
    hostile_files,
    json_values,
)
from verity import EvidenceGraph, GraphError, InputError, load_graph, verify, verify_json
from verity.core import shortcuts
from verity.core.wire import decode_narration
from verity.stream import verify_lines

PROFILES = ("paper", "strict")


def _module(path: str, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _outcome(fn: Any, *args: Any) -> str:
    """The JSON of the report ``fn(*args)``, or the input error's message: what a caller
    can observe."""
    try:
        return str(fn(*args).model_dump_json())
    except InputError as exc:
        return f"{type(exc).__name__}: {exc}"


def _plain(graph: EvidenceGraph, narration: Mapping[str, Any], profile: str) -> str:
    with shortcuts.disabled():
        return _outcome(verify, graph, narration, profile)


def assert_same(graph: EvidenceGraph, narration: Mapping[str, Any]) -> None:
    """Fast verify and verify_json equal the plain path under both profiles."""
    text = json.dumps(narration, ensure_ascii=False)
    for profile in PROFILES:
        plain = _plain(graph, narration, profile)
        assert _outcome(verify, graph, narration, profile) == plain
        assert _outcome(verify_json, graph, text, profile) == plain
        assert _outcome(verify_json, graph, text.encode(), profile) == plain


def test_disabled_turns_the_shortcuts_off_and_back_on() -> None:
    assert shortcuts.enabled()
    with shortcuts.disabled():
        assert not shortcuts.enabled()
        with shortcuts.disabled():
            assert not shortcuts.enabled()
        assert not shortcuts.enabled()
    assert shortcuts.enabled()


# --- the golden suites --------------------------------------------------------------------


@pytest.mark.parametrize("path", sorted((GOLDEN / "narrations").glob("*.json")), ids=str)
def test_golden_narrations(path: Any) -> None:
    doc = load_json(path)
    assert_same(load_graph(graph_dict(doc["graph"])), doc["narration"])


@pytest.mark.parametrize("path", sorted((GOLDEN / "gates").glob("*.json")), ids=lambda p: p.stem)
def test_golden_gate_cases(path: Any) -> None:
    doc = load_json(path)
    graph = load_graph(graph_dict(doc["graph"]))
    claims = [_expand(case["claim"]) for case in doc["cases"]]
    for claim in claims:
        assert_same(graph, {"claims": [claim]})
    assert_same(graph, {"claims": claims})  # all in one narration: repeats across cases


# --- the adversarial suite ----------------------------------------------------------------


@cache
def _harness() -> ModuleType:
    return _module("benchmarks/adversarial/harness.py", "adversarial_harness_shortcuts")


def _adversarial_cases() -> list[Any]:
    harness = _harness()
    return [
        pytest.param(case, id=case["id"])
        for name in ("structured_attacks.json", "structured_controls.json")
        for case in harness.load(name)["cases"]
    ]


@pytest.mark.parametrize("case", _adversarial_cases())
def test_adversarial_cases(case: dict[str, Any]) -> None:
    graph, narration = _harness().narration(case, str(ROOT))
    assert_same(graph, narration)


# --- seeded workload narrations -------------------------------------------------------------


def test_workload_narrations() -> None:
    """600 narrations of 8 claims over the card-rewards graphs, about half of the claims
    carrying one error each (``benchmarks/perf/identity_core.py --plain`` runs 6,000)."""
    workload = _module("benchmarks/perf/workload.py", "perf_workload_shortcuts")
    pools = workload.load_pools(workload.graph_paths())
    graphs = {p.graph.graph_id: p.graph for p in pools}
    for narration, _ in workload.narrations(pools, 600, 8, 3):
        assert_same(graphs[narration["graph_id"]], narration)


# --- fuzzing --------------------------------------------------------------------------------

CARD = load_graph(CARD_SMALL)
VALID = json.dumps(
    {
        "graph_id": CARD.graph_id,
        "claims": [
            {"id": "c0", **load_json(GOLDEN / "gates" / "card_small.json")["cases"][0]["claim"]}
        ],
    }
).encode()


@ROBUST
@given(st.data())
def test_fuzzed_graphs_and_claims(data: st.DataObject) -> None:
    doc = data.draw(graph_dicts())
    try:
        graph = load_graph(doc)
    except GraphError:
        return
    claims = data.draw(st.lists(claims_for(doc), max_size=4))
    if claims and data.draw(st.booleans()):
        claims.append(dict(claims[0]))  # a repeat
    assert_same(graph, {"claims": [{"id": f"c{i}", **c} for i, c in enumerate(claims)]})


def _plain_text(graph: EvidenceGraph, text: bytes, profile: str) -> str:
    """The plain path from text: the strict JSON reader, then verify."""
    with shortcuts.disabled():
        return _outcome(verify_json, graph, text, profile)


@ROBUST
@given(hostile_files(VALID))
def test_hostile_json_text(text: bytes) -> None:
    for profile in PROFILES:
        plain = _plain_text(CARD, text, profile)
        assert _outcome(verify_json, CARD, text, profile) == plain
        try:
            as_str = text.decode("utf-8")
        except UnicodeDecodeError:
            continue
        assert _outcome(verify_json, CARD, as_str, profile) == plain


_FIELDS = st.sampled_from(["id", "type", "text", "cited_evidence_ids", "entities", "numbers"])
_ODD_STRINGS = st.sampled_from(
    ["", " ", "\t", "\u3000", "\u00a0", "x" * 257, "é" * 256, "😀" * 257, "\ud800", "a\u0000b"]
)


@ROBUST
@given(st.data())
def test_claims_at_the_edges_of_the_field_rules(data: st.DataObject) -> None:
    """Blank, overlong (in characters, not bytes), mistyped, missing and extra fields,
    duplicate keys, and top-level keys: decoded and plain agree."""
    claim: dict[str, Any] = dict(json.loads(VALID)["claims"][0])
    for _ in range(data.draw(st.integers(0, 3))):
        field = data.draw(_FIELDS)
        choice = data.draw(st.integers(0, 4))
        if choice == 0:
            claim[field] = data.draw(_ODD_STRINGS)
        elif choice == 1:
            claim[field] = [data.draw(_ODD_STRINGS)]
        elif choice == 2:
            claim[field] = data.draw(json_values)
        elif choice == 3:
            claim.pop(field, None)
        else:
            claim[data.draw(st.sampled_from(["extra", "Text", "id "]))] = 1
    top: dict[str, Any] = {"claims": [claim]}
    for key, value in data.draw(
        st.dictionaries(
            st.sampled_from(["format", "graph_id", "extra"]),
            st.one_of(st.just("verity.narration/1"), st.just(CARD.graph_id), json_values),
            max_size=2,
        )
    ).items():
        top[key] = value
    text = json.dumps(top, ensure_ascii=False)
    if data.draw(st.booleans()):  # a duplicate key: the last one counts, for both readers
        text = text.replace('{"id": ', '{"id": "first", "id": ', 1)
    for profile in PROFILES:
        plain = _plain_text(CARD, text.encode("utf-8", "surrogatepass"), profile)
        encoded = text.encode("utf-8", "surrogatepass")
        assert _outcome(verify_json, CARD, encoded, profile) == plain


def test_decoding_refuses_what_the_checks_report() -> None:
    """Cases where the decoder must give way to the plain reader (it returns None)."""
    claim = json.loads(VALID)["claims"][0]
    for changed in ({"text": "   "}, {"id": "\u3000"}, {"numbers": [" "]}, {"extra": 1}):
        text = json.dumps({"claims": [{**claim, **changed}]})
        assert decode_narration(text) is None, changed
    assert decode_narration(b'{"claims": [], "format": "verity.narration/2"}') is None
    assert decode_narration(b'\xef\xbb\xbf{"claims": []}') is None
    assert decode_narration('{"claims": [{"id": "\\ud800"}]}') is None
    assert decode_narration(json.dumps({"claims": [claim]})) is not None


# --- verify-stream --------------------------------------------------------------------------


@ROBUST
@given(st.lists(hostile_files(VALID), min_size=1, max_size=4))
def test_stream_lines_decoded_or_plain_agree(lines: list[bytes]) -> None:
    graphs = {CARD.graph_id: CARD}
    numbered = [(i + 1, line.replace(b"\n", b" ")) for i, line in enumerate(lines)]
    for profile in PROFILES:
        with shortcuts.disabled():
            plain = verify_lines(numbered, graphs, profile)
        assert verify_lines(numbered, graphs, profile) == plain

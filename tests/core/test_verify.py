"""verify(): input kinds, fail-closed gates, report shape."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import verity
from tests.helpers import GRAPHS, card_small_claim, graph_dict
from verity import Claim, Narration, load_graph, verify
from verity.core.gates import Finding
from verity.core.graph import EvidenceGraph

GOOD = card_small_claim("win_dining")


def test_accepts_graph_as_dict_path_or_object_and_narration_as_model() -> None:
    narration = Narration(claims=[Claim(**GOOD)])
    for graph in (
        graph_dict("card_small.json"),
        GRAPHS / "card_small.json",
        str(GRAPHS / "card_small.json"),
        load_graph(GRAPHS / "card_small.json"),
    ):
        report = verify(graph, narration)
        assert report.summary.all_claims_verified
        assert report.shipped[0].text == GOOD["text"]


@verity.custom_gate("boom", codes={"boom.found": "a finding before the gate breaks"})
def _fake_exploding_gate(claim: Claim, graph: EvidenceGraph) -> Iterator[Finding]:
    raise RuntimeError("boom")
    yield  # pragma: no cover


@verity.custom_gate("boom", codes={"boom.found": "a finding before the gate breaks"})
def _fake_gate_that_finds_then_explodes(claim: Claim, graph: EvidenceGraph) -> Iterator[Finding]:
    yield Finding("boom.found", "first finding", None, None)
    raise KeyError("late")


@pytest.mark.parametrize("fake", [_fake_exploding_gate, _fake_gate_that_finds_then_explodes])
@pytest.mark.parametrize("profile", ["paper", "strict"])
def test_a_gate_that_raises_rejects_the_claim(fake: verity.CustomGate, profile: str) -> None:
    # The public seam adds a gate to a profile: verity.extend (no patching of the table).
    derived = verity.extend(profile, [fake])
    assert [g.name for g in derived.gates][-1] == "boom"
    report = verify(graph_dict("card_small.json"), {"claims": [GOOD]}, profile=derived)
    (verdict,) = report.claims
    assert not verdict.passed
    internal = [e for e in verdict.errors if e.code == "internal.error"]
    assert [(e.gate, e.actual) for e in internal] == [
        ("boom", "RuntimeError" if fake is _fake_exploding_gate else "KeyError")
    ]
    assert report.summary.failing_by_gate["boom"] == 1
    assert report.refused


def test_the_screen_never_hides_a_finding_of_the_gates_it_covers() -> None:
    from verity.core.claims import parse_narration
    from verity.core.gates import SCREEN_BITS, SET_BITS, dirty, gates_for, screen, screen_plan

    graph = load_graph(GRAPHS / "card_small.json")
    assert screen_plan(gates_for("paper")) == (4, 1 | 2 | 4 | 16)
    assert screen_plan(gates_for("strict")) == (7, 127)
    bad = [
        {**GOOD, "cited_evidence_ids": []},
        {**GOOD, "cited_evidence_ids": [*GOOD["cited_evidence_ids"], "nope"]},
        {**GOOD, "entities": ["amex"]},
        {**GOOD, "numbers": ["4.0x"]},
        {**GOOD, "type": "NO_SUCH_TYPE"},
        {**GOOD, "cited_evidence_ids": ["nope"], "entities": ["amex"], "type": "NO_SUCH_TYPE"},
    ]
    for raw in [GOOD, *bad]:
        (item,) = parse_narration({"claims": [raw]}).claims
        assert item.claim is not None
        for profile in ("paper", "strict"):
            count, checks = screen_plan(gates_for(profile))
            covered = gates_for(profile)[:count]
            found = [f for g in covered for f in g.check(item.claim, graph)]
            if screen(item.claim, graph, checks):
                assert not found
            set_gates = [g for g in covered if SCREEN_BITS[g.check] & SET_BITS]
            found = [f for g in set_gates for f in g.check(item.claim, graph)]
            assert screen(item.claim, graph, checks & SET_BITS) is (not found)
            assert (raw is GOOD) is (not found)
            # a set gate's bit is set exactly when that gate finds something; a text
            # gate's bit is clear only when it finds nothing
            mask = dirty(item.claim, graph, checks)
            for gate in covered:
                finds = bool(list(gate.check(item.claim, graph)))
                bit = SCREEN_BITS[gate.check]
                if bit & SET_BITS:
                    assert bool(mask & bit) is finds, (raw, gate.name)
                elif finds:
                    assert mask & bit, (raw, gate.name)


def test_unknown_profile_is_an_input_error() -> None:
    from verity import InputError

    with pytest.raises(InputError, match="unknown profile 'lenient'"):
        verify(graph_dict("card_small.json"), {"claims": [GOOD]}, profile="lenient")


def test_report_serializes_to_its_schema() -> None:
    import json

    from jsonschema import Draft202012Validator

    from tests.helpers import ROOT

    schema = json.loads((ROOT / "schemas" / "report.schema.json").read_text("utf-8"))
    bad = {**GOOD, "id": "c2", "entities": ["amex"]}
    report = verify(graph_dict("card_small.json"), {"claims": [GOOD, bad, 3]})
    data = report.to_dict()
    Draft202012Validator(schema).validate(data)
    assert data["format"] == "verity.report/1"
    err = data["claims"][1]["errors"][0]
    assert set(err) == {"gate", "code", "message", "expected", "actual"}
    assert err["actual"] == "amex"


@pytest.mark.pure_only
def test_a_failing_screen_runs_every_gate(monkeypatch: pytest.MonkeyPatch) -> None:
    """When the screen itself raises, every screened gate runs (and says what it finds):
    the report is the one the plain path gives, never a silent pass."""
    import verity.core.engine as verify_module
    from verity.core import shortcuts

    bad = {**GOOD, "id": "c2", "entities": ["amex"], "numbers": ["4.0x"]}
    narration = {"claims": [GOOD, bad]}
    graph = load_graph(GRAPHS / "card_small.json")
    with shortcuts.disabled():
        plain = {p: verify(graph, narration, p).model_dump_json() for p in ("paper", "strict")}

    def broken(*args: object) -> int:
        raise RuntimeError("screen broke")

    monkeypatch.setattr(verify_module, "dirty", broken)
    for profile in ("paper", "strict"):
        report = verify(graph, narration, profile)
        assert report.model_dump_json() == plain[profile]
        assert not report.claims[1].passed

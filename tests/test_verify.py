"""verify(): input kinds, fail-closed gates, report shape."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.helpers import GRAPHS, card_small_claim, graph_dict
from verity import Claim, Narration, load_graph, verify
from verity.core import gates as gates_module
from verity.core.gates import Finding, Gate
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


def _fake_exploding_gate(claim: Claim, graph: EvidenceGraph) -> Iterator[Finding]:
    raise RuntimeError("boom")
    yield  # pragma: no cover


def _fake_gate_that_finds_then_explodes(claim: Claim, graph: EvidenceGraph) -> Iterator[Finding]:
    yield Finding("entity.not_allowed", "first finding", None, None)
    raise KeyError("late")


@pytest.mark.parametrize("fake", [_fake_exploding_gate, _fake_gate_that_finds_then_explodes])
@pytest.mark.parametrize("profile", ["paper", "strict"])
def test_a_gate_that_raises_rejects_the_claim(
    monkeypatch: pytest.MonkeyPatch, fake: object, profile: str
) -> None:
    broken = (*gates_module._BY_PROFILE[profile], Gate("entity", fake, frozenset({profile})))  # type: ignore[arg-type]
    monkeypatch.setitem(gates_module._BY_PROFILE, profile, broken)
    report = verify(graph_dict("card_small.json"), {"claims": [GOOD]}, profile=profile)
    (verdict,) = report.claims
    assert not verdict.passed
    assert "internal.error" in [e.code for e in verdict.errors]
    internal = next(e for e in verdict.errors if e.code == "internal.error")
    assert internal.gate == "entity"
    assert report.refused


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

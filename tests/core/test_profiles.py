"""Custom gates: a derived profile runs domain gates after a built-in profile's, errors stay
data, a broken gate fails closed, and the on-fail policy is filter or raise."""

from __future__ import annotations

import json
import pickle
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import verity
from tests.helpers import EXAMPLES, ROOT
from verity import EvidenceGraph
from verity.cli.main import main
from verity.core.claims import Claim
from verity.core.profiles import load_gates
from verity.data.examples.fee_gates import fee_amount, fees
from verity.llm.narrators import narrator_from_spec
from verity.llm.repair import narrate_and_verify
from verity.stream import verify_stream

GRAPH = EXAMPLES / "graph.json"
NO_FEE = {
    "id": "c6",
    "type": "FEE_JUSTIFICATION",
    "text": "gold_dining pays for itself once dining spend reaches $6,250.00.",
    "cited_evidence_ids": ["fee-gold_dining"],
    "entities": ["gold_dining", "dining"],
    "numbers": ["$6,250.00"],
}


def _narration(*extra: dict[str, Any]) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((EXAMPLES / "narration.json").read_text("utf-8"))
    data["claims"].extend(extra)
    return data


def _one(claim: dict[str, Any]) -> dict[str, Any]:
    return {"claims": [claim]}


def _codes(report: verity.Report) -> dict[str, list[str]]:
    return {v.id or "": [e.code for e in v.errors] for v in report.claims}


@pytest.fixture(scope="module")
def graph() -> EvidenceGraph:
    return verity.load_graph(GRAPH)


def test_the_fee_gate_rejects_a_fee_claim_without_its_fee(graph: EvidenceGraph) -> None:
    report = verity.verify(graph, _narration(NO_FEE), profile=fees)
    codes = _codes(report)
    assert codes["c2"] == [] and codes["c1"] == []
    assert codes["c6"] == ["fee.amount_missing"]
    err = report.claims[-1].errors[0]
    assert (err.gate, err.expected, err.actual) == ("fee", "$250.00", ["$6,250.00"])
    assert report.profile == "paper+fee" and report.summary.failing_by_gate["fee"] == 2
    json.dumps(report.to_dict())  # errors stay data
    assert verity.verify(graph, _one(NO_FEE), profile="paper").claims[0].passed


def test_a_derived_profile_never_accepts_what_its_base_rejects(graph: EvidenceGraph) -> None:
    narration = _narration(NO_FEE)
    for base in verity.PROFILES:
        plain = verity.verify(graph, narration, profile=base)
        derived = verity.verify(graph, narration, profile=verity.extend(base, [fee_amount]))
        assert derived.profile == f"{base}+fee"
        for before, after in zip(plain.claims, derived.claims, strict=True):
            assert before.passed or not after.passed
            assert [e.code for e in before.errors] == [
                e.code for e in after.errors if e.gate != "fee"
            ]


def _gate(name: str, body: Any, codes: tuple[str, ...] = ("bad",)) -> verity.CustomGate:
    return verity.CustomGate(name, body, {f"{name}.{c}": "test code" for c in codes})


def _raises(claim: Claim, graph: EvidenceGraph) -> Iterator[verity.Finding]:
    raise RuntimeError("boom")
    yield  # pragma: no cover


def _undeclared(claim: Claim, graph: EvidenceGraph) -> Iterator[verity.Finding]:
    yield verity.Finding("other.code", "not declared")


def _not_a_finding(claim: Claim, graph: EvidenceGraph) -> Iterator[Any]:
    yield "a string"


def _not_json(claim: Claim, graph: EvidenceGraph) -> Iterator[verity.Finding]:
    yield verity.Finding("odd.bad", "a set is not JSON", expected={1, 2})


def _other_gate(claim: Claim, graph: EvidenceGraph) -> Iterator[verity.Finding]:
    yield verity.Finding("odd.bad", "reported under evidence", gate="evidence")


def _not_a_generator(claim: Claim, graph: EvidenceGraph) -> None:
    return None


@pytest.mark.parametrize(
    ("body", "why"),
    [
        (_raises, "RuntimeError: boom"),
        (_undeclared, "undeclared code 'other.code'"),
        (_not_a_finding, "yielded a str"),
        (_not_json, "non-JSON data"),
        (_other_gate, "another gate"),
        (_not_a_generator, "TypeError"),
    ],
)
def test_a_broken_custom_gate_fails_closed(graph: EvidenceGraph, body: Any, why: str) -> None:
    profile = verity.extend("strict", [_gate("odd", body)])
    report = verity.verify(graph, _narration(), profile=profile)
    assert not any(v.passed for v in report.claims)
    assert report.answer == verity.REFUSAL and report.refused
    for verdict in report.claims:
        internal = [e for e in verdict.errors if e.code == "internal.error"]
        assert len(internal) == 1 and internal[0].gate == "odd", verdict.errors
        assert why in internal[0].message
    json.dumps(report.to_dict())


@pytest.mark.parametrize(
    ("name", "codes", "message"),
    [
        ("Fee", {"Fee.x": "m"}, "lower-case"),
        ("polarity", {"polarity.x": "m"}, "built-in gate"),
        ("internal", {"internal.x": "m"}, "built-in gate"),
        ("fee", {}, "declares no error codes"),
        ("fee", {"amount_missing": "m"}, "must be 'fee.<lower_case_suffix>'"),
        ("fee", {"other.amount": "m"}, "must be 'fee.<lower_case_suffix>'"),
        ("fee", {"fee.amount": " "}, "has no meaning"),
    ],
)
def test_a_gate_declaration_is_checked(name: str, codes: dict[str, str], message: str) -> None:
    with pytest.raises(verity.InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        verity.CustomGate(name, _undeclared, codes)


def test_extend_checks_its_arguments_and_chains() -> None:
    with pytest.raises(verity.InputError, match="unknown profile"):
        verity.extend("loose", [fee_amount])
    with pytest.raises(verity.InputError, match="not a custom gate"):
        verity.extend("strict", [_undeclared])  # type: ignore[list-item]
    with pytest.raises(verity.InputError, match="two custom gates of one name"):
        verity.extend(fees, [fee_amount])
    with pytest.raises(verity.InputError, match="cannot be called 'strict'"):
        verity.extend("strict", [fee_amount], name="strict")
    with pytest.raises(verity.InputError, match="unknown on_fail"):
        verity.extend("strict", [fee_amount], on_fail="ignore")
    odd = _gate("odd", _undeclared)
    chained = verity.extend(fees, [odd], on_fail="raise")
    assert chained.name == "paper+fee+odd" and chained.base == "paper"
    assert [g.name for g in chained.gates][-2:] == ["fee", "odd"]
    assert chained.error_codes["fee.amount_missing"] and chained.error_codes["odd.bad"]
    assert set(verity.ERROR_CODES) < set(chained.error_codes)
    assert "fee.amount_missing" not in verity.ERROR_CODES


def test_on_fail_raise_carries_the_report(graph: EvidenceGraph) -> None:
    raising = verity.extend(fees, name="fees-raise", on_fail="raise")
    with pytest.raises(verity.VerificationFailed, match="4 of 6 claims failed") as caught:
        verity.verify(graph, _narration(NO_FEE), profile=raising)
    report = caught.value.report
    assert report.profile == "fees-raise" and [c.id for c in report.shipped] == ["c1", "c2"]
    with pytest.raises(verity.VerificationFailed) as refused:
        verity.verify(graph, _one(NO_FEE), profile=raising)
    assert (
        refused.value.report.answer
        == verity.REFUSAL
        == ("I can't answer that from the available evidence.")
    )
    passing = _one(_narration()["claims"][1])
    assert verity.verify(graph, passing, profile=raising).summary.all_claims_verified
    with pytest.raises(verity.VerificationFailed):
        verity.verify(graph, _one(NO_FEE), profile="strict", on_fail="raise")
    assert not verity.verify(graph, _one(NO_FEE), raising, on_fail="filter").shipped
    with pytest.raises(verity.InputError, match="unknown on_fail"):
        verity.verify(graph, passing, on_fail="warn")
    assert not issubclass(verity.VerificationFailed, verity.VerityError)


def test_the_repair_loop_runs_the_profile_and_raises_only_at_the_end(graph: EvidenceGraph) -> None:
    narrator = narrator_from_spec("scripted:sloppy", seed=3)
    result = narrate_and_verify(graph, narrator, "grounded", fees, repairs=1)
    assert result.profile == "paper+fee"
    assert all("fee" in p.report.summary.failing_by_gate for p in result.passes)
    odd = verity.extend("strict", [_gate("odd", _raises)], on_fail="raise")
    with pytest.raises(verity.VerificationFailed) as caught:
        narrate_and_verify(graph, narrator_from_spec("scripted:clean"), "grounded", odd, 1)
    assert caught.value.report.refused


def test_a_decorated_gate_pickles_by_reference() -> None:
    assert pickle.loads(pickle.dumps(fee_amount)) is fee_amount
    copy = pickle.loads(pickle.dumps(fees))
    assert copy.name == fees.name and copy.custom == (fee_amount,)
    undecorated = _gate("odd", _undeclared)
    assert pickle.loads(pickle.dumps(undecorated)).check is _undeclared


def test_load_gates_accepts_a_profile_a_gate_or_a_list() -> None:
    assert load_gates("verity.data.examples.fee_gates:fees", "paper") is fees
    assert load_gates("verity.data.examples.fee_gates:fee_amount").name == "strict+fee"
    with pytest.raises(verity.InputError, match="pass --profile paper"):
        load_gates("verity.data.examples.fee_gates:fees", "strict")
    with pytest.raises(verity.InputError, match="expected MODULE:ATTR"):
        load_gates("examples.fee_gates")
    with pytest.raises(verity.InputError, match="cannot import 'no_such_gates'"):
        load_gates("no_such_gates:x")
    with pytest.raises(verity.InputError, match="has no attribute 'nope'"):
        load_gates("verity.data.examples.fee_gates:nope")
    with pytest.raises(verity.InputError, match="is not a Profile"):
        load_gates("verity.data.examples.fee_gates:FEE")


def test_the_cli_takes_gates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(ROOT)
    path = tmp_path / "narration.json"
    path.write_text(json.dumps(_narration(NO_FEE)), "utf-8")
    argv = ["verify", str(GRAPH), str(path), "--profile", "paper", "--json"]
    assert main([*argv, "--gates", "verity.data.examples.fee_gates:fees"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["profile"] == "paper+fee"
    assert report["claims"][-1]["errors"][0]["code"] == "fee.amount_missing"
    assert main(argv[:-1] + ["--gates", "verity.data.examples.fee_gates:fee_amount"]) == 1
    assert "fee.amount_missing: a fee justification must state" in capsys.readouterr().out
    assert main([*argv, "--gates", "verity.data.examples.fee_gates:nope"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "has no attribute 'nope'" in err
    stream_argv = ["verify-stream", str(EXAMPLES), str(tmp_path / "n.jsonl")]
    (tmp_path / "n.jsonl").write_text(json.dumps(_narration(NO_FEE)) + "\n", "utf-8")
    assert (
        main([*stream_argv, "--profile", "paper", "--gates", "verity.data.examples.fee_gates:fees"])
        == 0
    )
    line = json.loads(capsys.readouterr().out)
    assert line["report"]["profile"] == "paper+fee"


def test_spawned_stream_workers_run_the_custom_gates() -> None:
    raw = json.dumps(_narration(NO_FEE)).encode()
    lines = [raw] * 3
    one = list(verify_stream(lines, EXAMPLES, fees))
    two = list(verify_stream(lines, EXAMPLES, fees, 2, start_method="spawn"))
    assert one == two and '"fee.amount_missing"' in one[0]

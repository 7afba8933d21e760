"""Golden gate cases: one-claim narrations with the error codes each profile must give."""

from __future__ import annotations

from typing import Any

import pytest

from tests.helpers import GOLDEN, SharedGraphs, expected_codes, load_json
from verity import MAX_CLAIM_TEXT, verify

CASE_FILES = sorted((GOLDEN / "gates").glob("*.json"))


def _cases() -> list[Any]:
    out = []
    for path in CASE_FILES:
        doc = load_json(path)
        for case in doc["cases"]:
            for profile in ("paper", "strict"):
                out.append(
                    pytest.param(
                        doc["graph"], case, profile, id=f"{path.stem}:{case['name']}:{profile}"
                    )
                )
    return out


def _expand(claim: Any) -> Any:
    if isinstance(claim, dict) and claim.get("text") == "@LONG_TEXT@":
        claim = {**claim, "text": "gold_dining wins dining " * (MAX_CLAIM_TEXT // 24 + 1)}
    if isinstance(claim, dict):
        claim = {"id": "c1", **claim}
    return claim


@pytest.mark.parametrize(("graph_name", "case", "profile"), _cases())
def test_golden_gate_case(
    graph_name: str, case: dict[str, Any], profile: str, graphs: SharedGraphs
) -> None:
    claims = {"claims": [_expand(case["claim"])]}
    report = verify(graphs.fixture(graph_name), claims, profile=profile)
    (verdict,) = report.claims
    codes = sorted(e.code for e in verdict.errors)
    assert codes == sorted(case[profile]), [e.message for e in verdict.errors]
    assert verdict.passed is (not case[profile])
    assert report.refused is (not verdict.passed)
    for err in verdict.errors:
        assert err.code.startswith(err.gate + ".") or err.code.startswith("number.")
        assert err.message


def test_every_error_code_is_exercised_by_a_golden_case() -> None:
    from verity import ERROR_CODES

    seen = set()
    for path in CASE_FILES:
        for case in load_json(path)["cases"]:
            seen.update(case["paper"])
            seen.update(case["strict"])
    for path in (GOLDEN / "narrations").glob("*.json"):
        for profile in load_json(path)["expected"].values():
            for _, codes in expected_codes(profile):
                seen.update(codes)
    untested = set(ERROR_CODES) - seen - {"internal.error"}  # internal.error: test_verify.py
    assert not untested, f"error codes without a golden case: {sorted(untested)}"
    assert seen <= set(ERROR_CODES), (
        f"undocumented codes in golden files: {sorted(seen - set(ERROR_CODES))}"
    )

"""The gate table is the source of truth: names and error codes are derived from it."""

from __future__ import annotations

import re

import pytest

from tests.helpers import FIXTURES, ROOT, load_json
from verity import ERROR_CODES
from verity.core import gates as G
from verity.core.claims import SCHEMA_CODES
from verity.core.gates import GATE_NAMES, GATES, Gate, gates_for
from verity.stream import LINE_ERROR_CODES

PINNED = load_json(FIXTURES / "error_codes.json")


def test_error_codes_and_gate_names_keep_their_published_value_and_order() -> None:
    assert list(ERROR_CODES.items()) == list(PINNED["error_codes"].items())
    assert list(GATE_NAMES) == PINNED["gate_names"]


def test_error_codes_are_the_codes_the_table_declares() -> None:
    declared = {code for gate in GATES for code in gate.codes}
    assert set(ERROR_CODES) == declared | {G.INTERNAL_ERROR}
    for gate in GATES:
        for code in gate.codes:
            assert code.partition(".")[0] in GATE_NAMES, code


def test_the_table_holds_every_gate_of_a_report() -> None:
    assert [g.name for g in GATES if g.stage != "claim"] == ["schema", "duplicate"]
    assert GATES[0].codes == SCHEMA_CODES
    for profile in ("paper", "strict"):
        assert all(g.stage == "claim" and profile in g.profiles for g in gates_for(profile))


def test_a_row_added_to_the_table_adds_its_codes() -> None:
    extra = Gate("fee", G._checked_elsewhere, frozenset({"strict"}), {"fee.missing": "m"})
    derived = G._error_codes((*GATES, extra))
    assert list(derived)[-2:] == ["fee.missing", G.INTERNAL_ERROR]
    assert G._error_codes(GATES) == ERROR_CODES


def test_the_polarity_gate_declares_every_code_it_can_report() -> None:
    polarity = next(g for g in GATES if g.name == "polarity")
    emitted = {code for code, _ in G._READER_CODES.values()} | set(G._FAILURE_CODES.values())
    assert emitted | {"claim_type.text_not_narrated"} == set(polarity.codes)


@pytest.mark.parametrize("code", sorted(ERROR_CODES))
def test_every_code_is_documented_in_the_gates_page(code: str) -> None:
    page = (ROOT / "docs" / "gates.md").read_text("utf-8")
    assert f"| `{code}` |" in page


def test_stream_line_codes_are_data() -> None:
    source = (ROOT / "verity" / "stream.py").read_text("utf-8")
    inline = set(re.findall(r'_error_line\(number, "([a-z_.]+)"', source))
    assert inline == set()
    assert set(LINE_ERROR_CODES) == {
        "input.invalid_utf8",
        "input.empty_line",
        "input.unknown_graph",
        "input.unusable",
        "internal.error",
    }

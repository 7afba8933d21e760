"""The gate table is the source of truth: names and error codes are derived from it."""

from __future__ import annotations

import re
from typing import get_args

from tests.helpers import FIXTURES, ROOT, load_json
from verity import ERROR_CODES
from verity.core import gates as G
from verity.core.claims import SCHEMA_CODES
from verity.core.codes import CATALOGUE, render_doc
from verity.core.gates import GATE_NAMES, GATES, Gate, gates_for
from verity.stream import LINE_ERROR_CODES
from verity.text.reader import ReaderIssue
from verity.text.variation import Reason

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
    emitted = {row.code for row in (*G._READER_CODES.values(), *G._SENTENCE_CODES.values())}
    assert emitted | {"claim_type.text_not_narrated"} == set(polarity.codes)


def test_the_catalogue_names_every_reader_issue_and_sentence_reason() -> None:
    assert set(G._READER_CODES) == set(get_args(ReaderIssue))
    assert set(G._SENTENCE_CODES) == set(get_args(Reason)) - {"supported"}


def test_the_catalogue_is_the_error_codes_in_order() -> None:
    assert [row.code for row in CATALOGUE] == list(ERROR_CODES)
    assert {row.code: row.meaning for row in CATALOGUE} == ERROR_CODES
    assert all(row.gate in GATE_NAMES or row.code == G.INTERNAL_ERROR for row in CATALOGUE)


_RAISED = re.compile(r'(?:_finding|code_of|_schema_error)\(\s*f?"([a-z_.]+)"')


def test_every_code_the_core_raises_by_name_is_in_the_catalogue() -> None:
    raised: set[str] = set()
    for name in ("gates.py", "claims.py", "verify.py"):
        source = (ROOT / "verity" / "core" / name).read_text("utf-8")
        raised |= {c if "." in c else f"schema.{c}" for c in _RAISED.findall(source)}
    assert raised and raised <= set(ERROR_CODES)


def test_the_codes_page_is_generated_from_the_catalogue() -> None:
    page = (ROOT / "docs" / "codes.md").read_text("utf-8")
    assert page == render_doc(), "docs/codes.md is stale: run python scripts/gen_codes_doc.py"
    for row in CATALOGUE:
        assert f"| `{row.code}` |" in page


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

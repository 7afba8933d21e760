"""The stored Unicode tables are what their predicates give, and are used only under the
Unicode version they were computed with."""

from __future__ import annotations

import itertools
import re
import unicodedata
from pathlib import Path

import pytest

from verity.text import _chartables_data, chartables
from verity.text.chartables import TABLES, class_body, compute, ranges, render_data
from verity.text.tokens import WORD_PATTERN, char_class

SAME_UNICODE = unicodedata.unidata_version == _chartables_data.UNIDATA_VERSION


@pytest.mark.skipif(not SAME_UNICODE, reason="tables stored for another Unicode version")
def test_the_stored_file_is_what_write_would_write() -> None:
    assert chartables.DATA_PATH.read_text("utf-8") == render_data()
    assert chartables.main(["--check"]) == 0


@pytest.mark.parametrize("name", sorted(TABLES))
def test_each_table_is_its_predicate(name: str) -> None:
    predicate, limit = TABLES[name]
    assert ranges(name) == compute(predicate, limit)


def test_another_unicode_version_computes_the_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_chartables_data, "UNIDATA_VERSION", "0.0.0")
    monkeypatch.setattr(_chartables_data, "TABLES", {})  # would raise if it were read
    ranges.cache_clear()
    try:
        assert ranges("mark") == compute(*TABLES["mark"])
    finally:
        ranges.cache_clear()


def test_check_reports_a_stale_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    stale = tmp_path / "data.py"
    stale.write_text("UNIDATA_VERSION = '0'\n", "utf-8")
    monkeypatch.setattr(chartables, "DATA_PATH", stale)
    assert chartables.main(["--check"]) == 1
    assert chartables.main(["--write"]) == 0 and stale.read_text("utf-8") == render_data()


def test_ranges_are_sorted_and_disjoint() -> None:
    for name in TABLES:
        table = ranges(name)
        assert all(lo <= hi for lo, hi in table)
        assert all(a[1] + 1 < b[0] for a, b in itertools.pairwise(table))


def test_the_word_class_is_the_one_char_class_builds() -> None:
    def is_word(char: str) -> bool:
        return (char.isalnum() or unicodedata.category(char)[0] == "M") and char != "_"

    word = "[" + char_class(is_word, [(0x10000, 0x1F0FF), (0x20000, 0x3FFFF)]) + "]"
    assert word + "+(?:['’-]" + word + "+)*" == WORD_PATTERN
    assert re.fullmatch("[" + class_body(((0x61, 0x63),)) + "]+", "abc")

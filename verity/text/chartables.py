"""The Unicode character tables of the text layer, built once instead of at every import.

Each table is the set of code points meeting a predicate, as sorted ranges ``(lo, hi)``:

- ``format``: every code point of category ``Cf`` (invisible format characters), which
  :func:`verity.text.normalize.normalize` removes;
- ``word``: the characters of a word (:data:`verity.text.tokens.WORD_PATTERN`): letters,
  digits and combining marks of the Basic Multilingual Plane, not ``_``;
- ``mark``: the combining marks ``Mn`` and ``Mc`` of the BMP (initials in the segmenter).

Computing a table walks every code point of its range (about 0.3 s for the three). The
tables of the Unicode version this interpreter's :mod:`unicodedata` holds are stored in
:mod:`verity.text._chartables_data`, written by ``python -m verity.text.chartables
--write`` (a test holds the file equal to what that writes); under another Unicode
version the tables are computed from the predicates, once, on first use. Either way a
table is exactly what its predicate gives.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from functools import cache
from pathlib import Path

__all__ = ["TABLES", "class_body", "compute", "ranges", "render_data"]

Ranges = tuple[tuple[int, int], ...]


def _is_format(char: str) -> bool:
    return unicodedata.category(char) == "Cf"


def _is_word_char(char: str) -> bool:
    return (char.isalnum() or unicodedata.category(char)[0] == "M") and char != "_"


def _is_mark(char: str) -> bool:
    return unicodedata.category(char) in ("Mn", "Mc")


#: Table name -> (predicate, first code point past the range it is computed over).
TABLES: dict[str, tuple[Callable[[str], bool], int]] = {
    "format": (_is_format, 0x110000),
    "word": (_is_word_char, 0x10000),
    "mark": (_is_mark, 0x10000),
}


def compute(predicate: Callable[[str], bool], limit: int = 0x10000) -> Ranges:
    """The code points below ``limit`` meeting ``predicate``, as sorted ranges."""
    out: list[tuple[int, int]] = []
    for cp in range(limit):
        if predicate(chr(cp)):
            if out and out[-1][1] == cp - 1:
                out[-1] = (out[-1][0], cp)
            else:
                out.append((cp, cp))
    return tuple(out)


@cache
def ranges(name: str) -> Ranges:
    """The table ``name`` of :data:`TABLES`: stored when the Unicode versions agree."""
    predicate, limit = TABLES[name]
    from verity.text import _chartables_data as data

    if unicodedata.unidata_version == data.UNIDATA_VERSION:
        return data.TABLES[name]
    return compute(predicate, limit)


def class_body(table: Iterable[tuple[int, int]]) -> str:
    """The body of a regex character class holding the ranges (escaped, ``lo-hi``)."""
    return "".join(
        re.escape(chr(lo)) if lo == hi else re.escape(chr(lo)) + "-" + re.escape(chr(hi))
        for lo, hi in table
    )


def render_data() -> str:
    """The source of :mod:`verity.text._chartables_data` for this interpreter."""
    lines = [
        '"""Stored Unicode tables of verity.text.chartables (written by `python -m',
        "verity.text.chartables --write`; do not edit).",
        '"""',
        "",
        f'UNIDATA_VERSION = "{unicodedata.unidata_version}"',
        "",
        "TABLES: dict[str, tuple[tuple[int, int], ...]] = {",
    ]
    for name, (predicate, limit) in TABLES.items():
        lines.append(f'    "{name}": (')
        lines.extend(f"        (0x{lo:X}, 0x{hi:X})," for lo, hi in compute(predicate, limit))
        lines.append("    ),")
    lines.append("}")
    return "\n".join(lines) + "\n"


DATA_PATH = Path(__file__).with_name("_chartables_data.py")


def main(argv: Sequence[str]) -> int:
    """``--write`` rewrites the stored tables; ``--check`` exits 1 when they are stale."""
    text = render_data()
    current = DATA_PATH.read_text("utf-8") if DATA_PATH.exists() else None
    if "--write" in argv:
        if current != text:
            DATA_PATH.write_text(text, "utf-8")
            print(f"wrote: {DATA_PATH}")
        return 0
    if current != text:
        print(f"stale: {DATA_PATH} (run python -m verity.text.chartables --write)")
        return 1
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))

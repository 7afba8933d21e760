"""verity.formats spells every format id once; the modules that use one import it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import verity.formats as formats
from verity.answer import ANSWER_RESULT_FORMAT
from verity.backends.card_rewards import graph_json
from verity.core.report import REPORT_FORMAT
from verity.jsonio import dumps

ROOT = Path(__file__).resolve().parent.parent
FORMAT_ID = re.compile(r"""["'](verity\.[a-z_]+/\d+)["']""")
# A pydantic field's Literal[...] type must spell its value; so may a docstring.
SPELLED = re.compile(r"""(?<!Literal\[)["'](verity\.[a-z_]+/\d+)["']""")


def test_format_ids_are_distinct() -> None:
    ids = [getattr(formats, n) for n in formats.__all__ if n.endswith("_FORMAT")]
    assert len(ids) == len(set(ids)) and all(FORMAT_ID.fullmatch(f'"{i}"') for i in ids)


def test_no_module_outside_formats_spells_a_format_id() -> None:
    # core/report.py spells its id once more in the Literal type pydantic reads for the
    # report schema's const; its value comes from formats (test below).
    allowed = {"formats.py", "core/report.py"}
    offenders = []
    for path in sorted((ROOT / "verity").rglob("*.py")):
        rel = path.relative_to(ROOT / "verity").as_posix()
        for line in path.read_text("utf-8").splitlines():
            if rel not in allowed and "``" not in line:
                offenders.extend((rel, found) for found in SPELLED.findall(line))
    assert offenders == []


def test_core_constants_agree_with_formats() -> None:
    assert REPORT_FORMAT == formats.REPORT_FORMAT
    assert ANSWER_RESULT_FORMAT == formats.ANSWER_RESULT_FORMAT


def test_graph_json_is_the_canonical_dumps() -> None:
    graph = {"b": "é", "a": [1, {"z": None}]}
    expected = json.dumps(graph, indent=2, ensure_ascii=False) + "\n"
    assert graph_json(graph) == dumps(graph) == expected
    assert dumps(graph, sort_keys=True).index('"a"') < dumps(graph, sort_keys=True).index('"b"')

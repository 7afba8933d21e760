"""What a command loads before it answers: `verity --version` and a one-sentence
`verity check-answer` load only what they use, and no Unicode table is computed.

Start-up time itself is measured by benchmarks/perf/startup.py (ratios to `python -c
pass`, which a shared machine makes too noisy for a test); these checks fail
deterministically when a heavy import or an import-time table comes back.
"""

from __future__ import annotations

import json
import subprocess
import sys
import unicodedata
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import EXAMPLES, ROOT
from verity.text import _chartables_data

#: Third-party packages no start-up path below may load unless it says so.
HEAVY = (
    "jsonschema", "pydantic", "networkx", "openai", "pulp", "llama_cpp", "numpy",
    "matplotlib", "starlette", "uvicorn", "msgspec", "psycopg", "dask", "httpx", "attrs",
)  # fmt: skip
GRAPH = ROOT / "evidence_graphs" / "card_rewards" / "p05-max_value.json"

_PROBE = """
import contextlib, io, json, sys
computed = []
SETUP
from verity.cli.main import main
out = io.StringIO()
try:
    with contextlib.redirect_stdout(out):
        status = main(ARGV)
except SystemExit as exc:
    status = exc.code
print(json.dumps({
    "status": status,
    "verity": sorted(m for m in sys.modules if m.split(".")[0] == "verity"),
    "heavy": sorted({m.split(".")[0] for m in sys.modules} & set(HEAVY)),
    "computed": len(computed),
}))
"""


#: Counts the tables computed (``computed``); it imports the tables module itself, so the
#: module lists are taken without it.
_COUNT_TABLES = """
import verity.text.chartables as tables
_compute = tables.compute
def compute(*args, **kwargs):
    computed.append(1)
    return _compute(*args, **kwargs)
tables.compute = compute
"""
#: Makes the stored tables look like another Unicode version's (so they are computed).
_STALE = "import verity.text._chartables_data as data; data.UNIDATA_VERSION = '0'\n"


def _probe(argv: list[str], setup: str = "") -> dict[str, Any]:
    code = _PROBE.replace("ARGV", repr(argv)).replace("HEAVY", repr(HEAVY))
    code = code.replace("SETUP", setup)
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str, str]:
    tmp = tmp_path_factory.mktemp("startup")
    passages, answer, graph_answer = tmp / "p.json", tmp / "a.txt", tmp / "g.txt"
    passages.write_text(json.dumps([{"id": "p", "text": "The tenant shall not sublet."}]))
    answer.write_text("The tenant shall not sublet.\n")
    graph_answer.write_text("rotating_bonus wins gas at 5%.\n")
    return str(passages), str(answer), str(graph_answer)


def _same_unicode() -> bool:
    return unicodedata.unidata_version == _chartables_data.UNIDATA_VERSION


def test_version_loads_the_parser_and_nothing_else() -> None:
    found = _probe(["--version"])
    assert found["status"] == 0 and found["heavy"] == []
    assert found["verity"] == [
        "verity", "verity.cli", "verity.cli.commands", "verity.cli.commands._output",
        "verity.cli.main", "verity.errors", "verity.extras", "verity.files",
        "verity.interrupts", "verity.jsonio", "verity.text", "verity.text.display",
    ]  # fmt: skip
    assert _probe(["--version"], _COUNT_TABLES)["computed"] == 0


def test_check_answer_over_passages_loads_the_text_layer_only(files: tuple[str, ...]) -> None:
    found = _probe(["check-answer", files[0], files[1]])
    assert found["status"] == 0 and found["heavy"] == []
    parts = {m.split(".")[1] for m in found["verity"] if "." in m}
    assert parts == {
        "answer", "cli", "errors", "extras", "files", "formats", "interrupts", "jsonio", "text",
    }  # fmt: skip
    if _same_unicode():  # the stored tables, not a walk over every code point
        assert _probe(["check-answer", files[0], files[1]], _COUNT_TABLES)["computed"] == 0


def test_check_answer_against_a_graph_adds_the_graph_loader(files: tuple[str, ...]) -> None:
    found = _probe(["check-answer", "--graph", str(GRAPH), files[2]])
    assert found["status"] == 0
    assert found["heavy"] == ["pydantic"]  # no JSON Schema validator: the model validates
    core = sorted(m for m in found["verity"] if m.startswith("verity.core."))
    assert core == [
        "verity.core.claims", "verity.core.codes", "verity.core.gate_error",
        "verity.core.gates", "verity.core.graph", "verity.core.models",
        "verity.core.paraphrase", "verity.core.report",
    ]  # fmt: skip
    if _same_unicode():
        argv = ["check-answer", "--graph", str(GRAPH), files[2]]
        assert _probe(argv, _COUNT_TABLES)["computed"] == 0


def test_import_verity_loads_no_submodule() -> None:
    code = "import sys, verity; print(sorted(m for m in sys.modules if m.startswith('verity')))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "['verity']"


def test_the_probe_sees_what_it_is_looking_for(files: tuple[str, ...]) -> None:
    """A probe that cannot see pydantic or a computed table would pass vacuously."""
    found = _probe(["verify", str(EXAMPLES / "graph.json"), str(Path(files[0]))])
    assert "pydantic" in found["heavy"]
    stale = _probe(["check-answer", files[0], files[1]], _COUNT_TABLES + _STALE)
    assert stale["status"] == 0 and stale["computed"] >= 1

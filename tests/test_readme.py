"""The README's Python blocks run as pasted (from the checkout's root); its commands are
the real ones."""

from __future__ import annotations

import contextlib
import io
import json
import re
import shlex
from pathlib import Path
from typing import Any

import pytest

from tests.endpoint import serve
from tests.helpers import ROOT, needs
from verity import load_graph
from verity.cli.main import main

README = (ROOT / "README.md").read_text("utf-8")
BLOCKS = re.findall(r"```python\n(.*?)```", README, flags=re.DOTALL)
SECTIONS = dict(re.findall(r"^## (.+?)\n(.*?)(?=^## |\Z)", README, flags=re.DOTALL | re.MULTILINE))


def _python(section: str, index: int = 0) -> str:
    """The ``index``-th Python block of a README section."""
    found: list[str] = re.findall(r"```python\n(.*?)```", SECTIONS[section], flags=re.DOTALL)
    return found[index]


def _bash(section: str) -> list[list[str]]:
    """The ``verity ...`` commands of a section's bash blocks, as argument lists."""
    commands: list[list[str]] = []
    for block in re.findall(r"```bash\n(.*?)```", SECTIONS[section], flags=re.DOTALL):
        for word in shlex.split(block.replace("\\\n", " "), comments=True):
            if word == "verity":
                commands.append([])
            elif commands:
                commands[-1].append(word)
    return commands


EXAMPLE_URL = "http://127.0.0.1:8000/v1"
CLAIMS = '{"claims": [{"type": "COMPARISON", "text": "x", "cited_evidence_ids": ["win-dining"]}]}'


def _run(code: str) -> tuple[dict[str, Any], str]:
    namespace: dict[str, Any] = {"__name__": "readme"}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), namespace)
    return namespace, out.getvalue()


def test_readme_has_its_python_blocks() -> None:
    assert len(BLOCKS) == 7
    assert sum(len(re.findall("```python", body)) for body in SECTIONS.values()) == 7


def test_free_text_against_a_graph_block(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    (block,) = [b for b in BLOCKS if "check_answer(answer, graph=graph)" in b]
    namespace, printed = _run(block)
    lines = [line.rstrip() for line in printed.splitlines()]
    shown = [line[2:] for line in block.splitlines() if line.startswith("# ")]
    assert lines[:3] == shown[:3]
    assert lines[3] == shown[3] + " " + shown[4].strip()  # the comment wraps one line
    kept = [c.text for c in namespace["result"].claims if c.supported]
    assert lines[4] == namespace["result"].answer == " ".join(kept) and len(kept) == 2


def test_python_api_block(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    namespace, printed = _run(_python("Python API"))
    assert namespace["report"].summary.claims == 5 and namespace["report"].summary.removed == 3
    assert "number.not_allowed" in printed
    assert namespace["result"].stop_reason == "all_verified"


def test_client_and_async_block(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    block = _python("Python API", 1)
    with serve("ok", CLAIMS) as endpoint:
        namespace, printed = _run(block.replace(EXAMPLE_URL, endpoint.url))
    assert EXAMPLE_URL in block
    assert namespace["attempt"].ok and printed.startswith("True None 1")
    assert [a.ok for a in namespace["attempts"]] == [True, True]
    assert len(endpoint.requests) == 3


def test_readme_commands_are_the_scripts() -> None:
    assert "bash scripts/run.sh" in README and "bash scripts/test.sh" in README
    assert (ROOT / "scripts" / "run.sh").is_file() and (ROOT / "scripts" / "test.sh").is_file()
    assert "bash scripts/test.sh" in (ROOT / ".ci" / "run").read_text("utf-8")


def test_custom_gates_block(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    block = _python("Custom gates")
    namespace, printed = _run(block)
    assert "c6 False ['fee.amount_missing']" in printed and "c2 True []" in printed
    assert namespace["report"].summary.failing_by_gate["fee"] == 2
    assert "4 of 6 claims failed verification under profile 'paper+fee-raise' ->" in printed
    gate = block.split("@verity.custom_gate", 1)[1].split("\n\n\n", 1)[0]
    assert gate in (ROOT / "examples" / "fee_gates.py").read_text("utf-8")


def test_dask_block(monkeypatch: pytest.MonkeyPatch) -> None:
    needs("dask", "distributed")
    monkeypatch.chdir(ROOT)
    _, printed = _run(_python("Verifying on a Dask cluster"))
    assert printed == "True 3\n"


def test_bring_your_own_backend_block(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    block = _python("Bring your own backend")
    assert len(block.strip().splitlines()) <= 30
    namespace, printed = _run(block)
    assert printed == "At the Reno warehouse, stock of bolts is 1,200 boxes.\nTrue\n"
    assert namespace["graph"].backend == "your own backend"


def test_your_own_optimization_model_block(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    _, printed = _run(_python("Your own optimization model"))
    assert "RESULT | The optimal daily profit is $115.00." in printed
    assert (
        "SHADOW_PRICE | At the margin, each unit added to the limit of oven time raises daily "
        "profit by $2.50." in printed
    )
    assert printed.endswith(
        "The optimal profit is $3,556.00. a linear program solved with CBC (pulp)\n"
    )


def _linked_examples(tmp_path: Path) -> None:
    (tmp_path / "examples").symlink_to(ROOT / "examples")


def test_the_new_sections_commands_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _linked_examples(tmp_path)
    monkeypatch.chdir(tmp_path)
    sql = _bash("SQL query specs")
    lp = [c for c in _bash("Your own optimization model") if c[0] == "graph-from-lp"]
    assert [c[0] for c in sql] == ["graph-from-sql", "graph-from-sql"] and len(lp) == 1
    for command in [*sql, *lp]:
        assert main(command) == 0, command
    capsys.readouterr()
    spec = json.loads((tmp_path / "my.spec.json").read_text("utf-8"))
    assert main(["graph-from-sql", "--spec", "my.spec.json", "--out", "my-graph.json"]) == 0
    first = json.loads((tmp_path / "my-graph.json").read_text("utf-8"))["nodes"][0]
    assert first["statement"] == "For Gulf Coast, quarter is Q1 and units is 1,097."
    assert spec["queries"][0]["statement_template"].startswith("For {region_name}")
    assert load_graph(tmp_path / "plan-graph.json").graph_id == "production-plan"

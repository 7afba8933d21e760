"""The README's Python blocks run as pasted (from the checkout's root); its commands are
the real ones."""

from __future__ import annotations

import contextlib
import io
import re
from typing import Any

import pytest

from tests.endpoint import serve
from tests.helpers import ROOT, needs

README = (ROOT / "README.md").read_text("utf-8")
BLOCKS = re.findall(r"```python\n(.*?)```", README, flags=re.DOTALL)
EXAMPLE_URL = "http://127.0.0.1:8000/v1"
CLAIMS = '{"claims": [{"type": "COMPARISON", "text": "x", "cited_evidence_ids": ["win-dining"]}]}'


def _run(code: str) -> tuple[dict[str, Any], str]:
    namespace: dict[str, Any] = {"__name__": "readme"}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), namespace)
    return namespace, out.getvalue()


def test_readme_has_its_python_blocks() -> None:
    assert len(BLOCKS) == 4


def test_python_api_block(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    namespace, printed = _run(BLOCKS[0])
    assert namespace["report"].summary.claims == 5 and namespace["report"].summary.removed == 3
    assert "number.not_allowed" in printed
    assert namespace["result"].stop_reason == "all_verified"


def test_client_and_async_block(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    with serve("ok", CLAIMS) as endpoint:
        namespace, printed = _run(BLOCKS[1].replace(EXAMPLE_URL, endpoint.url))
    assert EXAMPLE_URL in BLOCKS[1]
    assert namespace["attempt"].ok and printed.startswith("True None 1")
    assert [a.ok for a in namespace["attempts"]] == [True, True]
    assert len(endpoint.requests) == 3


def test_readme_commands_are_the_scripts() -> None:
    assert "bash scripts/run.sh" in README and "bash scripts/test.sh" in README
    assert (ROOT / "scripts" / "run.sh").is_file() and (ROOT / "scripts" / "test.sh").is_file()
    assert "bash scripts/test.sh" in (ROOT / ".ci" / "run").read_text("utf-8")


def test_custom_gates_block(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    namespace, printed = _run(BLOCKS[2])
    assert "c6 False ['fee.amount_missing']" in printed and "c2 True []" in printed
    assert namespace["report"].summary.failing_by_gate["fee"] == 2
    assert "4 of 6 claims failed verification under profile 'paper+fee-raise' ->" in printed
    gate = BLOCKS[2].split("@verity.custom_gate", 1)[1].split("\n\n\n", 1)[0]
    assert gate in (ROOT / "examples" / "fee_gates.py").read_text("utf-8")


def test_dask_block(monkeypatch: pytest.MonkeyPatch) -> None:
    needs("dask", "distributed")
    monkeypatch.chdir(ROOT)
    _, printed = _run(BLOCKS[3])
    assert printed == "True 3\n"

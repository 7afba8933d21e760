"""The runnable blocks of the README and of docs/*.md run as pasted, in an empty directory
(from the checkout, in process; ``tests/test_install.py`` runs them from the installed
wheel); their commands are the real ones. The blocks are read by ``tests/readme.py``."""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.endpoint import serve
from tests.helpers import EXAMPLES, ROOT, needs
from tests.readme import (
    CLAIMS,
    EXAMPLE_URL,
    PAGES,
    README,
    Block,
    bash,
    blocks,
    every_block,
    python,
    runnable,
    verity_commands,
)
from verity import load_graph
from verity.cli.main import main


def _run(code: str) -> tuple[dict[str, Any], str]:
    namespace: dict[str, Any] = {"__name__": "__main__"}  # as a script runs
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), namespace)
    return namespace, out.getvalue()


def test_the_pages_have_their_python_blocks_and_each_is_runnable() -> None:
    found = [b for b in every_block() if b.language == "python"]
    assert len(found) >= 7 and all(b.runnable for b in found)
    assert sum(text.count("```python") for text in PAGES.values()) == len(found)


def test_the_readme_is_a_product_page_and_the_index_lists_every_page() -> None:
    assert len(README.splitlines()) <= 300
    assert {"docs/gates.md", "docs/cli.md", "docs/backends.md"} <= set(PAGES)
    index = PAGES["docs/README.md"]
    for source in PAGES:
        if source.startswith("docs/") and source != "docs/README.md":
            assert f"]({source.removeprefix('docs/')})" in index, source
    for kind in ("verify", "narrate", "check-answer --graph"):
        assert any(kind in b.code for b in blocks() if b.language in ("bash", "python")), kind


def test_the_verify_example_prints_what_the_readme_shows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    section = [b for b in blocks() if b.section == "Verify a narration"]
    command, shown = section[0], section[1]
    assert command.runnable and shown.language == "text"
    _run_bash(command)
    printed = capsys.readouterr().out
    assert printed.endswith(shown.code)  # after what `verity examples .` wrote


def test_every_block_that_uses_the_example_files_copies_them_first() -> None:
    for block in every_block():
        if block.language == "bash" and "examples/" in block.code:
            assert block.code.startswith("verity examples .\n"), block.code
        if block.language == "python":  # no path into a checkout, or to copied files
            assert not re.search(r"[\"'](examples|evidence_graphs)/", block.code), block.code
        assert "evidence_graphs/" not in block.code, block.code


def test_free_text_against_a_graph_block(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (block,) = [b.code for b in every_block() if "check_answer(answer, graph=graph)" in b.code]
    namespace, printed = _run(block)
    lines = [line.rstrip() for line in printed.splitlines()]
    shown = [line[2:] for line in block.splitlines() if line.startswith("# ")]
    assert lines[:3] == shown[:3]
    assert lines[3] == shown[3] + " " + shown[4].strip()  # the comment wraps one line
    kept = [c.text for c in namespace["result"].claims if c.supported]
    assert lines[4] == namespace["result"].answer == " ".join(kept) and len(kept) == 2
    checked_in = ROOT / "evidence_graphs" / "card_rewards" / "p05-max_value.json"
    assert namespace["graph"].to_dict() == load_graph(checked_in).to_dict()  # as the comment says


def test_python_api_block(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    namespace, printed = _run(python("Verify, check and narrate"))
    assert namespace["report"].summary.claims == 5 and namespace["report"].summary.removed == 3
    assert "number.not_allowed" in printed
    assert namespace["result"].stop_reason == "all_verified"


def test_client_and_async_block(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    block = python("Clients and async")
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


def test_custom_gates_block(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    block = python("Custom gates")
    namespace, printed = _run(block)
    assert "c6 False ['fee.amount_missing']" in printed and "c2 True []" in printed
    assert namespace["report"].summary.failing_by_gate["fee"] == 2
    assert "4 of 6 claims failed verification under profile 'paper+fee-raise' ->" in printed
    gate = block.split("@verity.custom_gate", 1)[1].split("\n\n\n", 1)[0]
    assert gate in (EXAMPLES / "fee_gates.py").read_text("utf-8")


def test_dask_block(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    needs("dask", "distributed")
    monkeypatch.chdir(tmp_path)
    _, printed = _run(python("Verifying on a Dask cluster"))
    assert printed == "True 3\n"


def test_bring_your_own_backend_block(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    block = python("Bring your own backend")
    assert len(block.strip().splitlines()) <= 30
    namespace, printed = _run(block)
    assert printed == "At the Reno warehouse, stock of bolts is 1,200 boxes.\nTrue\n"
    assert namespace["graph"].backend == "your own backend"


def test_your_own_optimization_model_block(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    _, printed = _run(python("Your own optimization model"))
    assert "RESULT | The optimal daily profit is $115.00, with 2 decisions in the plan." in printed
    assert (
        "SHADOW_PRICE | At the margin, each unit added to the limit of oven time raises daily "
        "profit by $2.50." in printed
    )
    assert printed.endswith(
        "The optimal profit is $3,556.00, with 5 decisions in the plan. a linear program "
        "solved with CBC (pulp)\n"
    )


def _run_bash(block: Block) -> None:
    """A bash block's ``verity`` commands, in process: each exits 0 but the last, which
    exits as the block's mark says."""
    commands = verity_commands(block.code)
    for command in commands[:-1]:
        assert main(command) == 0, command
    assert main(commands[-1]) == block.exit, commands[-1]


def _needs(block: Block) -> None:
    for extra in block.needs:
        needs(extra, {"dask": "distributed", "local": "llama_cpp", "serve": "uvicorn"}[extra])


def _param(block: Block) -> Any:
    """A block as a test case; one that runs the local model is marked as such."""
    marks = [pytest.mark.llm, pytest.mark.slow] if "local" in block.needs else []
    return pytest.param(block, marks=marks, id=f"{block.source}:{block.section}")


@pytest.mark.parametrize("block", [_param(b) for b in runnable() if b.language == "bash"])
def test_runnable_bash_blocks_run_in_an_empty_directory(
    block: Block,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _needs(block)
    monkeypatch.chdir(tmp_path)
    _run_bash(block)
    assert "wrote" in capsys.readouterr().out.splitlines()[0]


def test_the_new_sections_commands_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    sql = bash("Your own model or query", 1)
    lp = [c for c in bash("Your own model or query", 0) if c[0] != "narrate"]
    assert [c[0] for c in sql] == ["examples", "graph-from-sql", "graph-from-sql"]
    assert [c[0] for c in lp] == ["examples", "graph-from-lp"]
    for command in [*sql, *lp]:
        assert main(command) == 0, command
    capsys.readouterr()
    spec = json.loads((tmp_path / "my.spec.json").read_text("utf-8"))
    assert main(["graph-from-sql", "--spec", "my.spec.json", "--out", "my-graph.json"]) == 0
    first = json.loads((tmp_path / "my-graph.json").read_text("utf-8"))["nodes"][0]
    assert first["statement"] == "For Gulf Coast, quarter is Q1 and units is 1,097."
    assert spec["queries"][0]["statement_template"].startswith("For {region_name}")
    assert load_graph(tmp_path / "plan-graph.json").graph_id == "production-plan"

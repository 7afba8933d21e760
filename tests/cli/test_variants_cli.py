"""`verity variants suggest`: the diff on stdout, a line per proposal on stderr, --write,
--spec, exit statuses and one-line errors. Claims come from the proposal fixtures."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import FIXTURES, ROOT, load_json
from verity import load_graph, verify
from verity.cli.main import main

CASES: dict[str, dict[str, Any]] = {
    c["name"]: c for c in load_json(FIXTURES / "variants" / "suggest.json")["cases"]
}
CARD = ROOT / "evidence_graphs" / "card_rewards" / "p05-max_value.json"
SPEC = ROOT / "verity" / "data" / "sql" / "sample_sales.spec.json"
WINNER = "card: a winner in the writer's words, with display names"
BEST = "card: adds 'best'"
QUARTER = "sql: a verb paraphrase of a quarter's total"
ONLY = "sql: adds 'only'"


def write_narration(path: Path, graph_id: str, names: list[str]) -> Path:
    claims = [{"id": f"c{i}", **CASES[n]["claim"]} for i, n in enumerate(names, 1)]
    path.write_text(json.dumps({"graph_id": graph_id, "claims": claims}), "utf-8")
    return path


@pytest.fixture
def card(tmp_path: Path) -> tuple[Path, Path]:
    graph = tmp_path / "graph.json"
    graph.write_text(CARD.read_text("utf-8"), "utf-8")
    gid = load_graph(graph).graph_id
    return graph, write_narration(tmp_path / "n.json", gid, [WINNER, BEST])


def test_diff_of_the_graph(card: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    graph, narration = card
    before = graph.read_text("utf-8")
    assert main(["variants", "suggest", str(graph), str(narration)]) == 1  # one of two
    out, err = capsys.readouterr()
    assert out.startswith(f"--- a/{graph}\n+++ b/{graph}\n@@ ")
    added = [line for line in out.splitlines() if line.startswith("+ ")]
    removed = [line for line in out.splitlines() if line.startswith("- ")]
    assert added[-1] == (
        '+        "{card} pays {rate} on {category}, ahead of {runner} at {runner_rate}."'
    )
    assert [line[1:] for line in added[:-1]] == [line[1:] + "," for line in removed]
    lines = err.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("verity variants suggest: proposed for template 'winner_ahead'")
    assert lines[1].startswith("verity variants suggest: refused (node 'winner:dining')")
    assert "adds the superlative word 'best'" in lines[1]
    assert graph.read_text("utf-8") == before  # nothing written without --write


def test_write(card: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    graph, narration = card
    assert main(["variants", "suggest", str(graph), str(narration), "--write"]) == 1
    assert "wrote 1 variant to" in capsys.readouterr().err
    report = verify(load_graph(graph), load_json(narration), "strict")
    assert [c.passed for c in report.claims] == [True, False]
    # run again: the winner now passes; 'best' is still refused, nothing more to write
    assert main(["variants", "suggest", str(graph), str(narration), "--write"]) == 3
    out, err = capsys.readouterr()
    assert out == ""
    assert "wrote" not in err


def test_spec(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from verity.backends.sql.query import graph_from_sample
    from verity.backends.sql.spec import load_spec

    graph = tmp_path / "sample.json"
    graph.write_text(graph_from_sample().dumps(), "utf-8")
    spec = tmp_path / "spec.json"
    spec.write_text(SPEC.read_text("utf-8"), "utf-8")
    narration = write_narration(tmp_path / "n.json", "sample_sales", [QUARTER, ONLY])
    args = ["variants", "suggest", str(graph), str(narration), "--spec", str(spec)]
    assert main(args) == 1
    out, err = capsys.readouterr()
    assert out.startswith(f"--- a/{spec}\n")
    assert '+        "Total revenue for {quarter} reached {revenue}."' in out.splitlines()
    assert "adds the marker 'only'" in err
    assert main([*args, "--write"]) == 1
    query = next(q for q in load_spec(spec).queries if q.name == "quarter_totals")
    assert query.statement_variants[-1] == "Total revenue for {quarter} reached {revenue}."


def test_nothing_to_propose(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gid = load_graph(CARD).graph_id
    narration = tmp_path / "n.json"
    statement = "travel_select wins dining at 4.5%, ahead of dine_out_rewards at 3%."
    claim = dict(CASES[WINNER]["claim"], text=statement)
    narration.write_text(json.dumps({"graph_id": gid, "claims": [{"id": "c1", **claim}]}))
    assert main(["variants", "suggest", str(CARD), str(narration)]) == 0
    out, err = capsys.readouterr()
    assert out == ""
    assert "nothing to propose" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-", "N", "--write"], "--write needs GRAPH to be a file"),
        (["G", "missing.json"], "narration file missing.json does not exist"),
        (["G", "N", "--spec", "SPEC"], "--spec builds the graph 'sample_sales'"),
        ([], "the following arguments are required: GRAPH, NARRATION"),
    ],
)
def test_one_line_errors(
    args: list[str], message: str, card: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    graph, narration = card
    names = {"G": str(graph), "N": str(narration), "SPEC": str(SPEC)}
    try:
        status = main(["variants", "suggest", *[names.get(a, a) for a in args]])
    except SystemExit as stop:  # argparse's own errors exit from the parser
        status = int(str(stop.code))
    assert status == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("verity: error: ")
    assert message in err


def test_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["variants", "suggest", "--help"])
    assert stop.value.code == 0
    out = capsys.readouterr().out
    assert "--spec SPEC" in out
    assert "--write" in out
    assert "exit status" in out


def test_only_the_changed_entries_gain_variants() -> None:
    from verity.cli.commands.variants import add_spec_variants
    from verity.core.variants import add_variants

    spec = {"queries": [{"name": "a"}, {"name": "b"}]}
    assert add_spec_variants(spec, {"a": ["x", "x"]}) == {
        "queries": [{"name": "a", "statement_variants": ["x"]}, {"name": "b"}]
    }
    graph = {"templates": [{"id": "a", "variants": ["x"]}, {"id": "b"}]}
    assert add_variants(graph, {"a": ["x", "y"]}) == {
        "templates": [{"id": "a", "variants": ["x", "y"]}, {"id": "b"}]
    }
    assert spec == {"queries": [{"name": "a"}, {"name": "b"}]}  # copies, not edits

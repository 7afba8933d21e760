"""Variants declared in an optimization graph's labels, and learned from use with
`verity variants suggest --labels`: production_plan solved with CBC, claims and hand-written
variants from tests/fixtures/lp/labels_variants.json."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import FIXTURES, ROOT, load_json
from verity import load_graph, verify
from verity.backends.pulp import LpBackendError, graph_from_file, load_labels
from verity.cli.main import main
from verity.errors import InputError

DATA = load_json(FIXTURES / "lp" / "labels_variants.json")
CLAIMS: list[dict[str, Any]] = DATA["claims"]
DECLARED: list[dict[str, Any]] = DATA["declared"]
MODEL = ROOT / "verity" / "data" / "examples" / "production_plan.lp"
LABELS = ROOT / "verity" / "data" / "examples" / "production_plan.labels.json"
ACCEPTED = [c for c in CLAIMS if "variant" in c["expect"]]
ERRORS = {"LpBackendError": LpBackendError, "InputError": InputError}


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path, Path]:
    """The graph built with the example labels (CBC), a copy of the labels, and a
    narration of every fixture claim."""
    labels = tmp_path / "labels.json"
    labels.write_text(LABELS.read_text("utf-8"), "utf-8")
    graph = tmp_path / "graph.json"
    assert main(["graph-from-lp", str(MODEL), "--labels", str(labels), "--out", str(graph)]) == 0
    claims = [{"id": f"c{i}", **c["claim"]} for i, c in enumerate(CLAIMS, 1)]
    narration = tmp_path / "narration.json"
    gid = load_graph(graph).graph_id
    narration.write_text(json.dumps({"graph_id": gid, "claims": claims}), "utf-8")
    return graph, labels, narration


def _suggest(graph: Path, labels: Path, narration: Path, *more: str) -> int:
    return main(["variants", "suggest", str(graph), str(narration), "--labels", str(labels), *more])


def test_the_claims_are_refused_by_the_text_check_alone(files: tuple[Path, Path, Path]) -> None:
    graph, _, narration = files
    report = verify(load_graph(graph), load_json(narration), "strict", on_fail="filter")
    assert [c.passed for c in report.claims] == [False] * len(CLAIMS)
    assert all(e.code.startswith("polarity.") for c in report.claims for e in c.errors)


def test_proposals_as_a_diff_of_the_labels(
    files: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    graph, labels, narration = files
    before = labels.read_text("utf-8")
    assert _suggest(graph, labels, narration) == 1  # some proposed, some refused
    out, err = capsys.readouterr()
    assert out.startswith(f"--- a/{labels}\n+++ b/{labels}\n@@ ")
    added = [line[1:].strip().rstrip(",") for line in out.splitlines() if line.startswith("+ ")]
    variants = list(dict.fromkeys(c["expect"]["variant"] for c in ACCEPTED))
    assert [json.loads(a) for a in added if a.startswith('"The')] == variants  # each once
    lines = err.splitlines()
    assert len(lines) == len(CLAIMS)
    for case, line in zip(CLAIMS, lines, strict=True):
        expect = case["expect"]
        if "variant" in expect:
            assert line.startswith(f"verity variants suggest: proposed for template "
                                   f"{expect['template']!r}"), case["name"]  # fmt: skip
            assert line.endswith(repr(expect["variant"])), case["name"]
        else:
            assert "refused" in line, case["name"]
            for words in expect["refused"]:
                assert words in line, case["name"]
    assert labels.read_text("utf-8") == before  # nothing written without --write


def test_write_then_rebuild_ships_the_sentences(
    files: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    graph, labels, narration = files
    assert _suggest(graph, labels, narration, "--write") == 1
    assert "wrote 2 variants to" in capsys.readouterr().err
    table = load_labels(labels).variants
    expected: dict[str, list[str]] = {}
    for case in ACCEPTED:
        have = expected.setdefault(case["expect"]["template"], [])
        if case["expect"]["variant"] not in have:
            have.append(case["expect"]["variant"])
    assert table == expected
    rebuilt = graph.with_name("rebuilt.json")
    assert main(["graph-from-lp", str(MODEL), "--labels", str(labels), "--out", str(rebuilt)]) == 0
    report = verify(load_graph(rebuilt), load_json(narration), "strict", on_fail="filter")
    assert [c.passed for c in report.claims] == ["variant" in c["expect"] for c in CLAIMS]
    # again, against the rebuilt graph: only the refused remain, nothing more to write
    assert _suggest(rebuilt, labels, narration, "--write") == 3
    out, err = capsys.readouterr()
    assert out == ""
    assert "wrote" not in err


@pytest.mark.parametrize("case", DECLARED, ids=[c["name"] for c in DECLARED])
def test_declared_variants_at_build(case: dict[str, Any]) -> None:
    labels = {**load_json(LABELS), "variants": case["variants"]}
    if case.get("builds"):
        graph = graph_from_file(MODEL, labels)
        for template, variants in case["variants"].items():
            sources = [p.source for p in graph.templates[template]]
            assert sources[-len(variants) :] == variants
        return
    error = case["error"]
    with pytest.raises(ERRORS[error["class"]]) as raised:
        graph_from_file(MODEL, labels)
    assert type(raised.value) is ERRORS[error["class"]]
    message = str(raised.value)
    assert "\n" not in message
    for words in error["words"]:
        assert words in message


@pytest.mark.parametrize(
    "case", [c for c in DECLARED if "error" in c], ids=[c["name"] for c in DECLARED if "error" in c]
)
def test_graph_from_lp_refuses_in_one_line(
    case: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    labels = tmp_path / "labels.json"
    labels.write_text(json.dumps({**load_json(LABELS), "variants": case["variants"]}), "utf-8")
    assert main(["graph-from-lp", str(MODEL), "--labels", str(labels)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("verity: error: ")
    assert err.count("\n") == 1
    for words in case["error"]["words"]:
        assert words in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--labels", "BAD"], "'decison' is no template of the optimization graphs"),
        (["--labels", "OTHER"], "--labels name the graph 'another-plan'"),
        (["--labels", "L", "--spec", "L"], "not allowed with argument"),
        (["--labels", "missing.json"], "labels file missing.json does not exist"),
    ],
)
def test_suggest_one_line_errors(
    args: list[str],
    message: str,
    files: tuple[Path, Path, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    graph, labels, narration = files
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**load_json(LABELS), "variants": {"decison": ["x"]}}), "utf-8")
    other = tmp_path / "other.json"
    other.write_text(json.dumps({**load_json(LABELS), "graph_id": "another-plan"}), "utf-8")
    names = {"L": str(labels), "BAD": str(bad), "OTHER": str(other)}
    try:
        status = main(["variants", "suggest", str(graph), str(narration),
                       *[names.get(a, a) for a in args]])  # fmt: skip
    except SystemExit as stop:  # argparse's own errors exit from the parser
        status = int(str(stop.code))
    assert status == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert message in err


def test_a_template_the_labels_cannot_extend(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A graph whose templates are no optimization template (a card-rewards graph, here
    with labels naming no graph): every proposal is refused, nothing is written."""
    card = ROOT / "evidence_graphs" / "card_rewards" / "p05-max_value.json"
    cases = load_json(FIXTURES / "variants" / "suggest.json")["cases"]
    case = next(c for c in cases if c["name"].startswith("card: a winner"))
    narration = tmp_path / "n.json"
    gid = load_graph(card).graph_id
    narration.write_text(json.dumps({"graph_id": gid, "claims": [{"id": "c1", **case["claim"]}]}))
    labels = tmp_path / "labels.json"
    labels.write_text("{}", "utf-8")
    assert main(["variants", "suggest", str(card), str(narration), "--labels", str(labels),
                 "--write"]) == 3  # fmt: skip
    out, err = capsys.readouterr()
    assert out == ""
    assert "is no template of the optimization graphs the labels can extend" in err
    assert labels.read_text("utf-8") == "{}"


def test_label_variants_are_added_once_to_a_copy() -> None:
    from verity.cli.commands.variants import add_label_variants

    labels: dict[str, Any] = {"variants": {"decision": ["x"]}}
    assert add_label_variants(labels, {"decision": ["x", "y", "y"], "binding_upper": ["z"]}) == {
        "variants": {"decision": ["x", "y"], "binding_upper": ["z"]}
    }
    assert add_label_variants({}, {"decision": ["x"]}) == {"variants": {"decision": ["x"]}}
    assert labels == {"variants": {"decision": ["x"]}}  # a copy, not an edit

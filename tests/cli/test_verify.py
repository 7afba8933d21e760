"""`verity verify`: exit codes, readable and JSON output, one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import EXAMPLES, FIXTURES, GRAPHS, card_small_claim
from verity.cli.main import main


def _narration(tmp_path: Path, claims: list[object]) -> Path:
    path = tmp_path / "n.json"
    path.write_text(json.dumps({"claims": claims}), "utf-8")
    return path


GOOD = card_small_claim("win_dining")
BAD = {**GOOD, "id": "c2", "entities": ["amex_gold"]}


@pytest.mark.parametrize(
    ("claims", "code"),
    [([GOOD], 0), ([GOOD, BAD], 1), ([BAD], 3), ([], 3)],
    ids=["all-verified", "trimmed", "refused", "empty"],
)
def test_exit_codes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], claims: list[object], code: int
) -> None:
    path = _narration(tmp_path, claims)
    assert main(["verify", str(GRAPHS / "card_small.json"), str(path)]) == code
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("graph card-small | profile strict")
    if code == 3:
        assert out.rstrip().endswith("I can't answer that from the available evidence.")


def test_json_output_is_the_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _narration(tmp_path, [GOOD, BAD])
    assert (
        main(["verify", str(GRAPHS / "card_small.json"), str(path), "--json", "--profile", "paper"])
        == 1
    )
    report = json.loads(capsys.readouterr().out)
    assert report["profile"] == "paper"
    assert report["summary"]["removed"] == 1
    assert report["claims"][1]["errors"][0]["code"] == "entity.not_allowed"


def test_checked_in_example(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["verify", str(EXAMPLES / "graph.json"), str(EXAMPLES / "narration.json")])
    out = capsys.readouterr().out
    assert code == 1
    assert "PASS c1" in out and "FAIL c4" in out and "entity.not_allowed" in out


@pytest.mark.parametrize(
    ("graph", "narration", "message"),
    [
        ("missing.json", "narration.json", "does not exist"),
        ("graph.json", "missing.json", "does not exist"),
        ("graph.json", "bad.json", "not valid JSON"),
        ("bad_schema.json", "narration.json", "fails its schema"),
        ("graph.json", "array.json", "must be a JSON object"),
        ("graph.json", ".", "is a directory"),
    ],
)
def test_unusable_input_exits_2_with_one_line(
    tmp_path: Path, graph: str, narration: str, message: str
) -> None:
    (tmp_path / "graph.json").write_bytes((GRAPHS / "card_small.json").read_bytes())
    (tmp_path / "narration.json").write_text(json.dumps({"claims": [GOOD]}), "utf-8")
    (tmp_path / "bad.json").write_text("{not json", "utf-8")
    (tmp_path / "bad_schema.json").write_text('{"format": "x"}', "utf-8")
    (tmp_path / "array.json").write_text("[]", "utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "verity", "verify", graph, narration],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("verity: error:") and message in lines[0]
    assert "Traceback" not in proc.stderr


def test_bad_option_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["verify", "a", "b", "--profile", "lenient"])
    assert info.value.code == 2
    assert capsys.readouterr().err.count("\n") == 1


def _verify(cwd: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "verity", "verify", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize("narration_format", [True, False], ids=["format", "no-format"])
def test_swapped_files_get_a_one_line_hint(tmp_path: Path, narration_format: bool) -> None:
    (tmp_path / "graph.json").write_bytes((EXAMPLES / "graph.json").read_bytes())
    narration = json.loads((EXAMPLES / "narration.json").read_text("utf-8"))
    if not narration_format:
        del narration["format"]
    (tmp_path / "narration.json").write_text(json.dumps(narration), "utf-8")
    hint = (
        "verity: error: the files look swapped: narration.json is a narration and graph.json "
        "an evidence graph; the graph comes first: verity verify graph.json narration.json\n"
    )
    proc = _verify(tmp_path, "narration.json", "graph.json")
    assert (proc.returncode, proc.stdout, proc.stderr) == (2, "", hint)
    piped = _verify(tmp_path, "-", "graph.json", stdin=json.dumps(narration))
    assert (piped.returncode, piped.stderr) == (2, hint.replace("narration.json", "-"))
    assert _verify(tmp_path, "graph.json", "narration.json").returncode == 1  # the right way


def test_a_graph_that_is_not_a_narration_keeps_its_own_error(tmp_path: Path) -> None:
    (tmp_path / "graph.json").write_bytes((EXAMPLES / "graph.json").read_bytes())
    (tmp_path / "other.json").write_text('{"format": "verity.report/1"}', "utf-8")
    proc = _verify(tmp_path, "other.json", "graph.json")
    assert proc.returncode == 2 and "fails its schema" in proc.stderr
    assert "swapped" not in proc.stderr and proc.stderr.count("\n") == 1


def test_duplicate_claim_ids_are_a_schema_error_naming_both(
    capsys: pytest.CaptureFixture[str],
) -> None:
    narration = FIXTURES / "claims" / "duplicate_ids.narration.json"
    argv = ["verify", str(EXAMPLES / "graph.json"), str(narration)]
    assert main([*argv, "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert [c["id"] for c in report["claims"]] == ["c1", "c2", "c1"]
    assert report["claims"][0]["passed"] and report["claims"][0]["errors"] == []
    assert report["claims"][2]["errors"] == [
        {
            "gate": "schema",
            "code": "schema.duplicate_id",
            "message": "claims[2].id: 'c1' is already the id of claims[0]; "
            "each claim needs its own id",
            "expected": "an id no other claim has",
            "actual": ["claims[0]", "claims[2]"],
        }
    ]
    assert report["summary"]["failing_by_gate"]["schema"] == 1
    assert main(argv) == 1
    assert "schema.duplicate_id: claims[2].id: 'c1' is already the id of claims[0]" in (
        capsys.readouterr().out
    )


def test_two_narrations_are_no_swap(tmp_path: Path) -> None:
    (tmp_path / "narration.json").write_bytes((EXAMPLES / "narration.json").read_bytes())
    proc = _verify(tmp_path, "narration.json", "narration.json")
    assert proc.returncode == 2 and "swapped" not in proc.stderr and "schema" in proc.stderr

"""What a new user runs into on the command line: every mistake is one line and exit 2,
every command says what it will do, and the exit statuses agree with each other."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import EXAMPLES, ROOT
from verity.cli.main import EXIT_INPUT, main
from verity.progress import Progress

GRAPH = EXAMPLES / "graph.json"
NARRATION = EXAMPLES / "narration.json"


def _status(argv: list[str]) -> Any:
    try:
        return main(argv)
    except SystemExit as exc:  # argparse's own exit (--help, --version)
        return exc.code


def _one_error_line(err: str) -> bool:
    return err.startswith("verity: error:") and err.count("\n") == 1


def test_record_into_a_directory_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Issue 13.5: IsADirectoryError traceback.
    code = _status(["narrate", str(GRAPH), "--narrator", "scripted", "--record", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == EXIT_INPUT and _one_error_line(err)
    assert "is a directory" in err and "attempts.jsonl" in err


@pytest.mark.parametrize("profile", ["clean", "sloppy", "paper-like"])
def test_demo_exits_as_its_recheck(
    profile: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Issue 13.9: demo exited 0 while the re-check it prints exited 3.
    out = tmp_path / "demo"
    code = main(
        ["demo", "--out-dir", str(out), "--narrator", f"scripted:{profile}", "--repairs", "0"]
    )
    printed = capsys.readouterr().out
    assert f"re-check: verity verify {out / 'graph.json'} {out / 'narration.json'}" in printed
    recheck = main(["verify", str(out / "graph.json"), str(out / "narration.json")])
    capsys.readouterr()
    assert code == recheck


def test_demo_that_ships_the_refusal_exits_3(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "demo"
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    code = main(["demo", "--out-dir", str(out), "--narrator", f"replay:{empty}"])
    printed = capsys.readouterr().out
    assert "I can't answer that from the available evidence." in printed
    assert code == 3 == main(["verify", str(out / "graph.json"), str(out / "narration.json")])


def test_sql_sample_twice_is_one_line(tmp_path: Path) -> None:
    # Issue 13.10: FileExistsError traceback on the second run.
    db = tmp_path / "sample.db"
    argv = [sys.executable, "-m", "verity.backends.sql.sample", "--sqlite", str(db)]
    first = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    assert first.returncode == 0 and db.stat().st_size > 0, first.stderr
    second = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    assert second.returncode == 2
    assert "Traceback" not in second.stderr and second.stderr.count("\n") == 1
    assert "already exists" in second.stderr and str(db) in second.stderr


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    import verity

    assert _status(["--version"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"verity {verity.__version__}") and "verity-evidence" in out


def test_verify_stream_takes_the_examples_folder(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The examples folder holds a narration beside the graph; it is not a graph.
    line = NARRATION.read_text("utf-8").replace("\n", " ") + "\n"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(line.encode("utf-8"))))
    assert main(["verify-stream", str(EXAMPLES), "-"]) == 0
    out = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert len(out) == 1 and out[0]["line"] == 1
    assert out[0]["report"]["graph_id"] == "example-household-max_value"


@pytest.mark.parametrize("which", ["narration", "graph"])
def test_verify_reads_stdin(
    which: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    expected = main(["verify", str(GRAPH), str(NARRATION), "--json"])
    want = capsys.readouterr().out
    source = NARRATION if which == "narration" else GRAPH
    stdin = io.TextIOWrapper(io.BytesIO(source.read_bytes()))
    monkeypatch.setattr(sys, "stdin", stdin)
    argv = [str(GRAPH), "-"] if which == "narration" else ["-", str(NARRATION)]
    assert main(["verify", *argv, "--json"]) == expected
    assert capsys.readouterr().out == want


def test_verify_stdin_twice_and_bad_stdin_are_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["verify", "-", "-"]) == EXIT_INPUT
    assert _one_error_line(capsys.readouterr().err)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"{not json")))
    assert main(["verify", str(GRAPH), "-"]) == EXIT_INPUT
    err = capsys.readouterr().err
    assert _one_error_line(err) and "standard input" in err


def test_bare_bench_says_how_long_and_asks_for_yes_or_limit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A bare `verity bench` planned 450 local-model runs without a word.
    code = _status(["bench", "--out", str(tmp_path / "b")])
    err = capsys.readouterr().err
    assert code == EXIT_INPUT and _one_error_line(err)
    assert "750 instances" in err and "--yes" in err and "--limit" in err
    assert not (tmp_path / "b").exists()  # nothing ran, nothing was written


def _one_scripted_instance(out: Path, *options: str) -> list[str]:
    """``bench`` argv for one quick scripted instance (one graph, one variant) into ``out``."""
    return [
        "bench",
        "--narrators",
        "scripted:clean",
        "--limit",
        "1",
        "--variants",
        "grounded",
        "--out",
        str(out),
        "--resamples",
        "20",
        "--no-figures",
        *options,
    ]


def test_scripted_bench_needs_no_yes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(_one_scripted_instance(tmp_path / "b"))
    err = capsys.readouterr().err
    assert code == 0
    assert "bench: 1 graphs x 1 variants x 1 narrator(s) = 1 instances" in err
    assert "0/1" in err  # the bar shows before the first instance ends


def test_progress_bar_shows_at_the_start() -> None:
    stream = io.StringIO()
    bar = Progress(450, label="bench", stream=stream, clock=lambda: 0.0)
    bar.start()
    assert "0/450" in stream.getvalue()


def test_resume_says_what_it_dropped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "b"
    argv = _one_scripted_instance(out, "--quiet")
    assert main(argv) == 0
    results = out / "results.jsonl"
    with results.open("ab") as fh:
        fh.write(b'{"graph_id": "torn')
    capsys.readouterr()
    assert main([*argv, "--resume"]) == 0
    err = capsys.readouterr().err
    assert "--resume dropped a partial last line (18 bytes" in err and str(results) in err
    assert results.read_bytes().endswith(b"\n")


def test_help_texts_list_the_choices(capsys: pytest.CaptureFixture[str]) -> None:
    for command, wanted in (
        ("bench", ["json_object", "clean", "sloppy", "paper-like", "--yes", "--timeout"]),
        ("demo", ["max_value", "no_fee", "two_cards", "--base-url", "paper-like"]),
        ("narrate", ["clean", "sloppy", "json_schema", "--timeout", "--retries", "0 to 3"]),
    ):
        assert _status([command, "--help"]) == 0
        text = " ".join(capsys.readouterr().out.split())
        for word in wanted:
            assert word in text, (command, word)
    assert _status(["--help"]) == 0
    assert "4 the narrator could not be reached" in " ".join(capsys.readouterr().out.split())


def test_text_report_shows_did_you_mean(capsys: pytest.CaptureFixture[str]) -> None:
    # Suggestions were only in --json (`expected`).
    assert main(["verify", str(GRAPH), str(NARRATION)]) == 1
    out = capsys.readouterr().out
    assert "number '$6,250' is not an allowed number string (did you mean '$6,250.00'?)" in out


def test_sql_spec_example_follows_its_schema_and_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from jsonschema import Draft202012Validator

    schema = json.loads((ROOT / "schemas" / "sql_spec.schema.json").read_text("utf-8"))
    for spec in (EXAMPLES / "sales.spec.json", ROOT / "verity/data/sql/sample_sales.spec.json"):
        Draft202012Validator(schema).validate(json.loads(spec.read_text("utf-8")))
    out = tmp_path / "sales.json"
    assert (
        main(["graph-from-sql", "--spec", str(EXAMPLES / "sales.spec.json"), "--out", str(out)])
        == 0
    )
    graph = json.loads(out.read_text("utf-8"))
    types = [n["type"] for n in graph["nodes"]]  # the top region's ranking counts its cut
    assert graph["graph_id"] == "example-sales" and types.count("ROWS_LEFT_OUT") == 1
    assert len(types) == 6


def test_default_output_folders_are_ignored() -> None:
    ignored = (ROOT / ".gitignore").read_text("utf-8").split()
    assert "bench_results/" in ignored and "verity-demo/" in ignored

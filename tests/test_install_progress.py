"""The install script's progress: pip's whole output goes to the log, its steps and the
compile count to stderr (live on a terminal, one line per step elsewhere)."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

from tests.helpers import FIXTURES, ROOT

PIP_OUTPUT = FIXTURES / "install" / "pip_verbose.txt"  # the shape of `pip install -v`
SCRIPT = ROOT / "scripts" / "_install_progress.py"


def _run(log: Path, stderr: int) -> int:
    with PIP_OUTPUT.open("rb") as given:
        return subprocess.run(
            [sys.executable, str(SCRIPT), str(log)], stdin=given, stderr=stderr, timeout=60
        ).returncode


def test_the_log_gets_everything_and_stderr_one_line_per_step(tmp_path: Path) -> None:
    log = tmp_path / "install.log"
    log.write_text("before\n", encoding="utf-8")
    err = tmp_path / "err.txt"
    with err.open("wb") as out:
        assert _run(log, out.fileno()) == 0
    assert log.read_bytes() == b"before\n" + PIP_OUTPUT.read_bytes()  # appended, all of it
    shown = [line.split("] ", 1)[1] for line in err.read_text("utf-8").splitlines()]
    assert shown[:4] == [
        "Obtaining file:///repo",
        "Collecting llama-cpp-python>=0.3 (from verity-evidence==0.1.0)",
        "Downloading llama_cpp_python-0.3.16.tar.gz (50.7 MB)",
        "Building wheel for llama-cpp-python (pyproject.toml): started",
    ]
    compiled = [s for s in shown if s.startswith("building llama-cpp-python from source: ")]
    assert compiled[0].endswith(" 1/40 compile steps") and compiled[-1].endswith(
        " 40/40 compile steps"
    )
    assert len(compiled) == 11  # every tenth of the way, not every one of the 40
    done = "Building wheel for llama-cpp-python (pyproject.toml): finished with status 'done'"
    assert done in shown
    assert shown[-1] == "Successfully installed llama-cpp-python-0.3.16 verity-evidence-0.1.0"
    assert not any("Running command" in s or "Linking" in s for s in shown)


def test_the_compile_count_names_the_package_pip_indents(tmp_path: Path) -> None:
    # pip -v writes "  Building wheel for NAME (pyproject.toml): started", indented.
    assert any(
        line.startswith("  Building wheel for llama-cpp-python")
        for line in PIP_OUTPUT.read_text("utf-8").splitlines()
    )
    err = tmp_path / "err.txt"
    with err.open("wb") as out:
        assert _run(tmp_path / "install.log", out.fileno()) == 0
    counts = [line for line in err.read_text("utf-8").splitlines() if "compile steps" in line]
    assert counts and all("building llama-cpp-python from source: " in line for line in counts)


def test_on_a_terminal_the_line_is_redrawn(tmp_path: Path) -> None:
    master, slave = pty.openpty()
    with PIP_OUTPUT.open("rb") as given:
        proc = subprocess.Popen(
            [sys.executable, str(SCRIPT), str(tmp_path / "install.log")], stdin=given, stderr=slave
        )
    os.close(slave)
    chunks = []
    try:
        while data := os.read(master, 65536):  # read while it writes: a pty's buffer is small
            chunks.append(data)
    except OSError:  # EIO: the writer is gone and everything it wrote was read
        pass
    os.close(master)
    text = b"".join(chunks).decode()
    assert proc.wait(timeout=60) == 0
    assert "\rinstall [0:00] building llama-cpp-python from source: 23/40 compile steps" in text
    assert "\n" not in text and text.endswith("\r\x1b[K")


def test_the_big_install_is_verbose_and_logged() -> None:
    script = (ROOT / "scripts" / "_venv.sh").read_text("utf-8")
    big = next(line for line in script.splitlines() if '-e ".[all,dev]"' in line)
    assert "pip install -v" in big and "--quiet" not in script
    assert '_install_progress.py "$log"' in script and "log=.venv/install.log" in script

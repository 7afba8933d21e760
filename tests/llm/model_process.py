"""Helpers of the tests that run ``verity demo`` on the embedded model in a subprocess and
signal it or its model process: the model processes of a command, and a demo folder's
files (the run it holds, whole or not)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.helpers import ROOT

#: The files of a complete demo run.
DEMO_FILES = frozenset({"graph.json", "attempts.jsonl", "narration.json", "report.json"})
#: The module the model process runs (its command line names it, then two pipes, its
#: parent's pid and whether it is bound to it).
WORKER_MODULE = "verity.llm.narrators._local_worker"


def model_processes(parent: int) -> list[int]:
    """The pids of the running model processes started by the process ``parent``."""
    found: list[int] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            words = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:  # it ended while being looked at
            continue
        words = [w.decode("utf-8", "replace") for w in words if w]
        if WORKER_MODULE in words and words[-2:-1] == [str(parent)]:
            found.append(int(entry.name))
    return found


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file of ``folder`` (names relative to it) with its bytes."""
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def is_complete_run(files: dict[str, bytes]) -> bool:
    """True when ``files`` (a :func:`snapshot`) are a whole demo run that shipped claims."""
    if set(files) != DEMO_FILES:
        return False
    report = json.loads(files["report.json"])
    return int(report["summary"]["passed"]) > 0


def demo_argv(out: Path) -> list[str]:
    """``python -m verity demo --quiet --out-dir OUT`` (the local narrator, one thread)."""
    demo = ["demo", "--quiet", "--threads", "1", "--out-dir", str(out)]
    return [sys.executable, "-m", "verity", *demo]


def demo_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT)
    return env


def make_demo_run(out: Path) -> dict[str, bytes]:
    """Run the demo into ``out`` to the end; its files (a complete run)."""
    done = subprocess.run(
        demo_argv(out), capture_output=True, text=True, env=demo_env(), timeout=600, check=False
    )
    assert done.returncode in (0, 1), done.stderr
    files = snapshot(out)
    assert is_complete_run(files), sorted(files)
    return files

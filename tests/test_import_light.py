"""Importing verity, its bench constants and the repair loop loads no heavy stack.

Each probe runs in a fresh interpreter and lists which heavy modules ended up in
``sys.modules``; the last test shows the probe does see them when they are loaded.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("openai", "numpy", "matplotlib", "llama_cpp", "pulp")


def _loaded_after(statement: str) -> list[str]:
    probe = (
        f"import json, sys\n{statement}\n"
        f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True
    )
    loaded: list[str] = json.loads(done.stdout.strip().splitlines()[-1])
    return loaded


@pytest.mark.parametrize(
    "statement",
    [
        "import verity",
        "import verity.bench",
        "from verity.bench import MAX_REPAIRS, RESULTS_FILE",
        "import verity.formats",
        "import verity.llm.repair",
        "import verity.llm.narrators",
        "from verity.llm.narrators import ScriptedNarrator, narrator_from_spec",
        "import verity.cli.main",
    ],
)
def test_import_loads_no_heavy_stack(statement: str) -> None:
    assert _loaded_after(statement) == []


def test_the_probe_sees_a_heavy_stack_once_it_is_used() -> None:
    assert "openai" in _loaded_after("from verity.llm.narrators import OpenAIChatNarrator")

"""The subcommand registry and the lazy import of command modules."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.helpers import EXAMPLES
from verity.cli.commands import COMMANDS
from verity.cli.main import build_parser, main

HEAVY = ("pulp", "openai", "matplotlib", "llama_cpp")


@pytest.mark.parametrize("entry", COMMANDS, ids=[c.name for c in COMMANDS])
def test_every_registered_command_loads_and_parses_help(
    entry: object, capsys: pytest.CaptureFixture[str]
) -> None:
    module = entry.load()  # type: ignore[attr-defined]
    assert callable(module.add_arguments) and callable(module.run)
    with pytest.raises(SystemExit) as stop:
        main([entry.name, "--help"])  # type: ignore[attr-defined]
    assert stop.value.code == 0
    assert entry.help.split()[0] in capsys.readouterr().out  # type: ignore[attr-defined]


def test_command_names_and_modules_are_unique() -> None:
    assert len({c.name for c in COMMANDS}) == len(COMMANDS)
    assert len({c.module for c in COMMANDS}) == len(COMMANDS)


def test_parser_without_a_command_lists_every_command() -> None:
    text = build_parser("").format_help()
    for entry in COMMANDS:
        assert entry.name in text


def test_verify_imports_no_optimizer_llm_client_or_plotting() -> None:
    probe = (
        "import sys\n"
        "from verity.cli.main import main\n"
        "code = main(['verify', sys.argv[1], sys.argv[2], '--json'])\n"
        f"print('LOADED', [m for m in {HEAVY!r} if m in sys.modules], code, file=sys.stderr)\n"
    )
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            probe,
            str(EXAMPLES / "graph.json"),
            str(EXAMPLES / "narration.json"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert json.loads(done.stdout)["summary"]["claims"] > 0
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("LOADED []"), last

"""The README's code blocks, as the tests read them (one parser for every test of them).

A block is marked runnable by an HTML comment on the line before its fence, which a
reader of the rendered README does not see::

    <!-- runnable -->                  runs as written, exit status 0
    <!-- runnable: exit=1 -->          a bash block whose last command exits 1
    <!-- runnable: needs=dask -->      needs an extra (dask, local, serve), or ``endpoint``:
                                       an OpenAI-compatible endpoint at the block's URL

``tests/test_readme.py`` runs the runnable blocks from the checkout, in process;
``tests/test_install.py`` runs them with the installed wheel, in an empty directory.
"""

from __future__ import annotations

import re
import shlex
from typing import NamedTuple

from tests.helpers import ROOT

README = (ROOT / "README.md").read_text("utf-8")
#: The endpoint URL of the client block (``needs=endpoint``), and what a stand-in answers.
EXAMPLE_URL = "http://127.0.0.1:8000/v1"
CLAIMS = '{"claims": [{"type": "COMPARISON", "text": "x", "cited_evidence_ids": ["win-dining"]}]}'

_BLOCK = re.compile(
    r"^(?:<!-- runnable(?::(?P<options>[^>]*))? -->\n)?```(?P<language>\w+)\n(?P<code>.*?)^```",
    flags=re.DOTALL | re.MULTILINE,
)
_SECTION = re.compile(r"^## (.+?)\n", flags=re.MULTILINE)


class Block(NamedTuple):
    """One fenced code block of the README."""

    section: str
    language: str
    code: str
    runnable: bool
    exit: int
    needs: tuple[str, ...]


def _options(text: str | None) -> tuple[int, tuple[str, ...]]:
    exit_status, needs = 0, ()
    for word in (text or "").split():
        key, _, value = word.partition("=")
        if key == "exit":
            exit_status = int(value)
        elif key == "needs":
            needs = tuple(value.split(","))
        else:
            raise ValueError(f"unknown README block option {word!r}")
    return exit_status, needs


def blocks(text: str = README) -> list[Block]:
    """Every fenced block of ``text``, in order, with its ``## `` section."""
    starts = [(m.start(), m.group(1)) for m in _SECTION.finditer(text)]
    found: list[Block] = []
    for match in _BLOCK.finditer(text):
        section = next((name for at, name in reversed(starts) if at < match.start()), "")
        runnable = match.group(0).startswith("<!--")
        exit_status, needs = _options(match.group("options"))
        found.append(Block(section, match["language"], match["code"], runnable, exit_status, needs))
    return found


def runnable(text: str = README) -> list[Block]:
    """The blocks marked runnable."""
    return [block for block in blocks(text) if block.runnable]


def python(section: str, index: int = 0) -> str:
    """The ``index``-th Python block of a README section."""
    return [b.code for b in blocks() if b.section == section and b.language == "python"][index]


def verity_commands(code: str) -> list[list[str]]:
    """The ``verity ...`` commands of a bash block, as argument lists."""
    commands: list[list[str]] = []
    for word in shlex.split(code.replace("\\\n", " "), comments=True):
        if word == "verity":
            commands.append([])
        elif commands:
            commands[-1].append(word)
    return commands


def bash(section: str) -> list[list[str]]:
    """The ``verity ...`` commands of a section's bash blocks, as argument lists."""
    return [
        command
        for block in blocks()
        if block.section == section and block.language == "bash"
        for command in verity_commands(block.code)
    ]

"""The code blocks of the README and of docs/*.md, as the tests read them (one parser for
every test of them).

A block is marked runnable by an HTML comment on the line before its fence, which a
reader of the rendered page does not see::

    <!-- runnable -->                  runs as written, exit status 0
    <!-- runnable: exit=1 -->          a bash block whose last command exits 1
    <!-- runnable: needs=dask -->      needs an extra (dask, local, serve), or ``endpoint``:
                                       an OpenAI-compatible endpoint at the block's URL

``tests/test_readme.py`` runs the runnable blocks of every page from the checkout, in
process; ``tests/test_install.py`` runs them with the installed wheel, in an empty directory.
"""

from __future__ import annotations

import re
import shlex
from typing import NamedTuple

from tests.helpers import ROOT

README = (ROOT / "README.md").read_text("utf-8")
#: Every page whose blocks the tests read and run, by its path in the checkout: the README
#: and the reference pages of docs/.
PAGES: dict[str, str] = {
    "README.md": README,
    **{f"docs/{p.name}": p.read_text("utf-8") for p in sorted((ROOT / "docs").glob("*.md"))},
}
#: The endpoint URL of the client block (``needs=endpoint``), and what a stand-in answers.
EXAMPLE_URL = "http://127.0.0.1:8000/v1"
CLAIMS = '{"claims": [{"type": "COMPARISON", "text": "x", "cited_evidence_ids": ["win-dining"]}]}'

_BLOCK = re.compile(
    r"^(?:<!-- runnable(?::(?P<options>[^>]*))? -->\n)?```(?P<language>\w+)\n(?P<code>.*?)^```",
    flags=re.DOTALL | re.MULTILINE,
)
_SECTION = re.compile(r"^## (.+?)\n", flags=re.MULTILINE)


class Block(NamedTuple):
    """One fenced code block of a page (``source``: its path in the checkout)."""

    section: str
    language: str
    code: str
    runnable: bool
    exit: int
    needs: tuple[str, ...]
    source: str = "README.md"


def _options(text: str | None) -> tuple[int, tuple[str, ...]]:
    exit_status = 0
    needs: tuple[str, ...] = ()
    for word in (text or "").split():
        key, _, value = word.partition("=")
        if key == "exit":
            exit_status = int(value)
        elif key == "needs":
            needs = tuple(value.split(","))
        else:
            raise ValueError(f"unknown block option {word!r}")
    return exit_status, needs


def blocks(text: str = README, source: str = "README.md") -> list[Block]:
    """Every fenced block of ``text`` (the page at ``source``), in order, with its ``## ``
    section."""
    starts = [(m.start(), m.group(1)) for m in _SECTION.finditer(text)]
    found: list[Block] = []
    for match in _BLOCK.finditer(text):
        section = next((name for at, name in reversed(starts) if at < match.start()), "")
        runnable = match.group(0).startswith("<!--")
        exit_status, needs = _options(match.group("options"))
        found.append(
            Block(section, match["language"], match["code"], runnable, exit_status, needs, source)
        )
    return found


def every_block() -> list[Block]:
    """Every fenced block of every page, page by page."""
    return [block for source, text in PAGES.items() for block in blocks(text, source)]


def runnable() -> list[Block]:
    """The blocks marked runnable, of every page."""
    return [block for block in every_block() if block.runnable]


def _in_section(section: str, language: str) -> list[Block]:
    """The ``language`` blocks of the section called ``section``, on the one page that has it."""
    found = [b for b in every_block() if b.section == section and b.language == language]
    if len({b.source for b in found}) > 1:
        raise ValueError(f"section {section!r} has {language} blocks on several pages")
    return found


def python(section: str, index: int = 0) -> str:
    """The ``index``-th Python block of a section."""
    return _in_section(section, "python")[index].code


def verity_commands(code: str) -> list[list[str]]:
    """The ``verity ...`` commands of a bash block, as argument lists."""
    commands: list[list[str]] = []
    for word in shlex.split(code.replace("\\\n", " "), comments=True):
        if word == "verity":
            commands.append([])
        elif commands:
            commands[-1].append(word)
    return commands


def bash(section: str, index: int | None = None) -> list[list[str]]:
    """The ``verity ...`` commands of a section's bash blocks (or of its ``index``-th), as
    argument lists."""
    found = _in_section(section, "bash")
    chosen = found if index is None else [found[index]]
    return [command for block in chosen for command in verity_commands(block.code)]

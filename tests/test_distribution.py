"""The distribution name: ``verity`` on the public package index is an unrelated project,
so this one is ``verity-evidence``; ``import verity`` and the ``verity`` command stay."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from tests.helpers import ROOT
from verity import InputError
from verity.extras import DISTRIBUTION, EXTRAS, install_hint, require_extra

#: ``pip install 'NAME[extra]'`` or ``pip install NAME`` in code, docs and scripts.
_HINT = re.compile(r"pip install (?:-e )?['\"]?([A-Za-z0-9_.-]+)\[")


def test_pyproject_names_the_distribution_and_keeps_the_command() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    assert project["name"] == DISTRIBUTION == "verity-evidence"
    assert project["scripts"] == {"verity": "verity.cli:main"}
    assert set(EXTRAS) <= set(project["optional-dependencies"])


def _sources() -> list[str]:
    files = [
        *ROOT.glob("verity/**/*.py"),
        *ROOT.glob("scripts/*"),
        *ROOT.glob(".ci/*"),
        *ROOT.glob("*.md"),
        *ROOT.glob("benchmarks/**/*.md"),
        *ROOT.glob("tests/*.py"),
    ]
    here = Path(__file__).resolve()
    return sorted(str(p.relative_to(ROOT)) for p in files if p.is_file() and p.resolve() != here)


def test_every_install_hint_names_the_distribution() -> None:
    wrong: list[str] = []
    for rel in _sources():
        text = (ROOT / rel).read_text("utf-8", errors="replace")
        for match in _HINT.finditer(text):
            if match.group(1) not in (DISTRIBUTION, ".", "pulp"):
                wrong.append(f"{rel}: {match.group(0)}")
    assert not wrong, wrong


def test_install_hint_and_require_extra() -> None:
    assert install_hint() == "pip install 'verity-evidence'"
    assert install_hint("bench") == "pip install 'verity-evidence[bench]'"
    with pytest.raises(ValueError, match="unknown extra"):
        install_hint("nope")
    require_extra("bench", "x", ("json",))  # a module that is always there
    with pytest.raises(
        InputError,
        match=r"x needs the bench extra \(not installed: "
        r"verity_no_such_module\): pip install 'verity-evidence\[bench\]'",
    ):
        require_extra("bench", "x", ("verity_no_such_module",))

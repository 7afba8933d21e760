"""The distribution name: ``verity`` on the public package index is an unrelated project,
so this one is ``verity-evidence``; ``import verity`` and the ``verity`` command stay."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.helpers import ROOT
from verity import InputError
from verity.extras import (
    DISTRIBUTION,
    EXTRAS,
    PORTABLE_CMAKE_ARGS,
    install_hint,
    require_extra,
)

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


def _readme_section(title: str) -> str:
    text = (ROOT / "README.md").read_text("utf-8")
    start = text.index(f"\n## {title}\n")
    return text[start : text.index("\n## ", start + 1)]


def test_the_portable_llama_cpp_build_is_one_constant_everywhere() -> None:
    flags = PORTABLE_CMAKE_ARGS
    assert "-DGGML_NATIVE=OFF" in flags and "-DGGML_AMX_TILE=OFF" in flags
    install = _readme_section("Installing it elsewhere").splitlines()
    for extra in ("local", "server", "all"):
        command = f"CMAKE_ARGS=\"{flags}\" pip install '{DISTRIBUTION}[{extra}]' --no-cache-dir"
        assert install_hint(extra) == command
        assert command in install, extra  # the README's install line, as a line of its own
    # _venv.sh reads the constant from the source through this script, and holds no copy.
    printed = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "_portable_cmake_args.py")],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    assert printed == flags + "\n"
    venv_sh = (ROOT / "scripts" / "_venv.sh").read_text("utf-8")
    assert "scripts/_portable_cmake_args.py" in venv_sh
    copies = [
        p.name
        for p in (*ROOT.glob("scripts/*"), *ROOT.glob(".ci/*"))
        if "-DGGML" in p.read_text("utf-8")
    ]
    assert copies == []


def _requirements() -> list[str]:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    extras = pyproject["project"]["optional-dependencies"]
    return [
        *pyproject["build-system"]["requires"],
        *pyproject["project"]["dependencies"],
        *(r for reqs in extras.values() for r in reqs),
    ]


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", text))


def _name(text: str) -> str:
    return re.sub(r"[-_.]+", "-", text).lower()


def test_every_dependency_has_a_tested_upper_bound_pinned_in_the_constraints() -> None:
    pins: dict[str, str] = {}
    for line in (ROOT / "constraints.txt").read_text("utf-8").splitlines():
        if line and not line.startswith("#"):
            name, version = line.split("==")
            pins[_name(name)] = version
    embed = set(
        tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"][
            "optional-dependencies"
        ]["embed"]
    )
    for requirement in _requirements():
        match = re.fullmatch(r"([A-Za-z0-9_.-]+)(?:\[[a-z,]+\])?(.*)", requirement)
        assert match, requirement
        name, ranges = _name(match.group(1)), match.group(2)
        upper = re.search(r"(<=|==)\s*([0-9][0-9.]*)", ranges)
        assert upper, f"{requirement}: no upper bound"
        if requirement in embed:  # the embed extra is not part of the tested environment
            continue
        assert name in pins, f"{requirement}: not pinned in constraints.txt"
        assert _version(pins[name]) <= _version(upper.group(2)), requirement
        lower = re.search(r">=\s*([0-9][0-9.]*)", ranges)
        assert lower is None or _version(pins[name]) >= _version(lower.group(1)), requirement


def test_installs_use_the_constraints_and_no_pip_cache() -> None:
    venv_sh = (ROOT / "scripts" / "_venv.sh").read_text("utf-8")
    big = next(line for line in venv_sh.splitlines() if '-e ".[all,dev]"' in line)
    assert "-c constraints.txt" in big and "--no-cache-dir" in big
    assert "cat pyproject.toml constraints.txt | sha256sum" in venv_sh  # the stamp covers both
    assert "export PIP_NO_CACHE_DIR=1" in venv_sh
    for ci in (".ci/run", ".ci/install-check.sh"):
        assert "export PIP_NO_CACHE_DIR=1" in (ROOT / ci).read_text("utf-8"), ci

"""The flat layout's module names still import, as the same objects, with a warning."""

from __future__ import annotations

import importlib
import subprocess
import sys
import warnings

import pytest

from tests.helpers import ROOT
from verity._moved import MOVED, new_name


@pytest.mark.parametrize(("old", "new"), sorted(MOVED.items()))
def test_an_old_name_is_the_new_module_and_warns(old: str, new: str) -> None:
    sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning, match=f"{old} moved to {new}"):
        module = importlib.import_module(old)
    assert module is importlib.import_module(new)


def test_submodules_of_a_moved_package_follow_it() -> None:
    import verity.llm.narrators.base as base

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        import verity.narrators.base as old_base
    assert old_base is base
    assert new_name("verity.narrators.base") == "verity.llm.narrators.base"
    assert new_name("verity.narrators_extra") is None
    assert new_name("verity.core.gates") is None


def test_verity_verify_is_still_the_function() -> None:
    import verity
    import verity.core.verify

    assert callable(verity.verify) and verity.verify is verity.core.verify.verify


def test_python_m_under_an_old_name_runs_the_new_module() -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-W",
            "ignore::DeprecationWarning",
            "-m",
            "verity.backends.sql_sample",
            "--help",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr
    assert "--sqlite" in proc.stdout

"""Shared pytest set-up: the Hypothesis profile and fixtures used by several test modules."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from hypothesis import settings

from tests.helpers import GRAPHS, SharedGraphs

# The test suite is reproducible: property tests draw the same examples on every run.
# The fuzz benchmark (benchmarks/fuzz/run.py, VERITY_FUZZ_EXAMPLES) explores at random.
settings.register_profile("reproducible", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile("explore" if os.environ.get("VERITY_FUZZ_EXAMPLES") else "reproducible")


@pytest.fixture
def graph_dir(tmp_path: Path) -> Path:
    """A copy of the test graphs (``tests/fixtures/graphs``) in a temporary directory."""
    for path in GRAPHS.glob("*.json"):
        shutil.copy(path, tmp_path / path.name)
    return tmp_path


@pytest.fixture(scope="session")
def graphs() -> SharedGraphs:
    """The graphs several test modules read, each loaded once per run (:class:`SharedGraphs`)."""
    return SharedGraphs()

"""The recorded replies of a strong model (``benchmarks/hosted/taught/`` and ``repairs/``),
replayed the way ``benchmarks/hosted/taught.py`` and ``run.py --recorded`` replay them: every
reply parses, every claim has a hand label, no false claim ships, and the figures that
``benchmarks/hosted/README.md`` gives still hold (a gate that stops accepting a declared
wording, or starts accepting a false claim, fails here)."""

from __future__ import annotations

import importlib.util
import json
import sys
from types import ModuleType

import pytest

from tests.helpers import ROOT

HOSTED = ROOT / "benchmarks" / "hosted"


def _module(name: str) -> ModuleType:
    sys.path.insert(0, str(HOSTED))
    try:
        spec = importlib.util.spec_from_file_location(name, HOSTED / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(HOSTED))


@pytest.fixture(scope="module")
def taught() -> ModuleType:
    return _module("taught")


def test_every_taught_reply_parses_and_is_labelled(taught: ModuleType) -> None:
    labels = json.loads((taught.TAUGHT / "labels.json").read_text("utf-8"))
    for name in taught.GRAPHS:
        reply = json.loads((taught.TAUGHT / f"{name}.pass0.reply.json").read_text("utf-8"))
        assert reply["claims"], name
        assert set(labels[name]) == {f"pass0/c{i}" for i in range(1, len(reply["claims"]) + 1)}


def test_the_taught_replies_ship_as_the_readme_says(taught: ModuleType) -> None:
    labels = json.loads((taught.TAUGHT / "labels.json").read_text("utf-8"))
    result = taught.measure(taught.TAUGHT, labels, write=False)
    rows = result["graphs"].values()
    assert result["escaped"] == [] and result["unlabelled"] == []
    assert sum(r["written"] for r in rows) == 60
    assert sum(r["shipped_pass0"] for r in rows) == 60
    assert not any(r["waiting"] for r in rows)


def test_the_recorded_repairs_ship_no_false_claim() -> None:
    run = _module("run")
    data = run.load_fixtures()
    result = run.measure(data, narrator=run.Recorded(HOSTED / "repairs", write=False))
    total = result["all"]
    assert total.escaped == [] and total.false_shipped_final == 0
    assert total.true_shipped_pass0 == 39 and total.true_survived_repair == 67

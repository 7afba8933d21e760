"""Shared test helpers: paths and fixture loading."""

from __future__ import annotations

import copy
import json
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from verity import EvidenceGraph
    from verity.llm.menu import MenuItem

TESTS = Path(__file__).parent
ROOT = TESTS.parent
FIXTURES = TESTS / "fixtures"
GOLDEN = TESTS / "golden"
GRAPHS = FIXTURES / "graphs"
#: The example files `verity examples DIR` copies out (package data).
EXAMPLES = ROOT / "verity" / "data" / "examples"


def told_first(graph: EvidenceGraph) -> list[MenuItem]:
    """The claims a choice narration of ``graph`` states when it takes, at each step, the
    first item of the listing that the selection allows (the listing's order is the
    salience order)."""
    from verity.llm.menu import allowed_items
    from verity.llm.prompts import build_prompt

    prompt = build_prompt(graph, "choice")
    chosen: list[MenuItem] = []
    while len(chosen) < prompt.max_claims:
        allowed = allowed_items(prompt.menu, chosen)
        pick = next((i for i in prompt.listing if i in allowed), None)
        if pick is None:
            break
        chosen.append(pick)
    return chosen


def load_json(path: Path) -> Any:
    return json.loads(path.read_text("utf-8"))


def expected_codes(expected: dict[str, Any]) -> list[tuple[str, list[str]]]:
    """A golden case's codes per claim, in narration order: ``{id: codes}``, or
    ``[[id, codes], ...]`` where claims share an id."""
    codes = expected["codes"]
    pairs = codes.items() if isinstance(codes, dict) else codes
    return [(claim_id, sorted(found)) for claim_id, found in pairs]


def graph_dict(name: str) -> dict[str, Any]:
    data: dict[str, Any] = load_json(GRAPHS / name)
    return copy.deepcopy(data)


def apply_patch(doc: Any, patch: list[dict[str, Any]]) -> Any:
    """Apply a tiny patch language: set / append / delete at a key path."""
    doc = copy.deepcopy(doc)
    for op in patch:
        *parents, last = op["path"]
        target = doc
        for key in parents:
            target = target[key]
        if op["op"] == "set":
            target[last] = op["value"]
        elif op["op"] == "append":
            target[last].append(op["value"])
        elif op["op"] == "delete":
            del target[last]
        else:
            raise ValueError(f"unknown patch op {op['op']!r}")
    return doc


def card_small_claim(name: str) -> dict[str, Any]:
    """A fresh copy of a passing claim from ``fixtures/claims/card_small.json``."""
    claims: dict[str, Any] = load_json(FIXTURES / "claims" / "card_small.json")
    if name.startswith("_") or name not in claims:
        raise KeyError(f"no claim {name!r} in fixtures/claims/card_small.json")
    return copy.deepcopy(claims[name])  # type: ignore[no-any-return]


def stream_lines() -> list[bytes]:
    """Eight verify-stream input lines: good, unparsable, not UTF-8, a bad claim, an
    unknown graph, empty, not an object, good again."""
    good = json.dumps(
        {"graph_id": "card-small", "claims": [card_small_claim("win_dining")]}
    ).encode()
    bad_claim = {"graph_id": "card-no-segment", "claims": [{"id": "c9"}]}
    return [
        good,
        b"{bad",
        b"\xff\xfe",
        json.dumps(bad_claim).encode(),
        b'{"graph_id": "nope", "claims": []}',
        b"",
        b"[1]",
        good,
    ]


def needs(extra: str, module: str) -> Any:
    """``pytest.importorskip(module)``, skipping with the extra to install as the reason."""
    import pytest

    from verity.extras import install_hint

    return pytest.importorskip(module, reason=f"needs the {extra} extra: {install_hint(extra)}")


def _load(source: Any) -> EvidenceGraph:
    from verity import load_graph

    return load_graph(source)


class SharedGraphs:
    """The graphs several test modules read, each loaded once per test run."""

    @staticmethod
    @cache
    def card(name: str) -> EvidenceGraph:
        """A checked-in card-rewards graph (``evidence_graphs/card_rewards/NAME``)."""
        return _load(ROOT / "evidence_graphs" / "card_rewards" / name)

    @staticmethod
    @cache
    def fixture(name: str) -> EvidenceGraph:
        """A test graph of ``tests/fixtures/graphs`` (``card_small.json``...)."""
        return _load(graph_dict(name))

    @staticmethod
    @cache
    def sql_sample() -> EvidenceGraph:
        """The SQL backend's sample graph, built from the embedded sample database."""
        from verity.backends.sql.query import graph_from_sample

        return graph_from_sample()

    @staticmethod
    @cache
    def named(name: str) -> EvidenceGraph:
        """A graph by name: ``sql/sample``; ``lp/EXAMPLE`` (an optimization example of
        ``examples/``, solved now); ``sql/SPEC`` (a real-data SQL spec of
        ``tests.backends.sql_real`` over a SQLite file made for it); else a checked-in
        card-rewards graph file name."""
        if name == "sql/sample":
            return SharedGraphs.sql_sample()
        if name.startswith("lp/"):
            from tests.backends.lp.examples import example_graph

            return example_graph(name[3:])
        if name.startswith("sql/"):
            import tempfile

            from tests.backends.sql_real import make_sqlite, spec
            from verity.backends.sql.query import graph_from_url, sqlite_url

            with tempfile.TemporaryDirectory() as folder:
                db = make_sqlite(Path(folder) / "data.sqlite", name[4:])
                return graph_from_url(sqlite_url(db), spec(name[4:]))
        return SharedGraphs.card(name)

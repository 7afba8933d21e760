"""The package's layers: who may import whom, and what verifying a narration loads.

The ranks are data (``tests/fixtures/layering/layers.json``). Two checks:

* statically, every ``import`` of every module under ``verity/`` (lazy ones inside
  functions included) goes to its own rank or lower, and never to a part its entry forbids;
* at run time, in a fresh interpreter, verifying every golden narration under both
  profiles and checking an answer loads no module of ``llm``, ``backends``, ``bench``,
  ``cli`` or ``serve`` and none of the heavy third-party stacks.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import ROOT, load_json

LAYERS: dict[str, Any] = load_json(ROOT / "tests" / "fixtures" / "layering" / "layers.json")
PACKAGE = ROOT / "verity"


def module_name(path: Path) -> str:
    """Dotted name of a source file under the package root."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def part_of(module: str) -> str:
    """The top-level part of the package a dotted name belongs to (``verity`` for the root)."""
    pieces = module.split(".")
    return pieces[1] if len(pieces) > 1 else "verity"


def imported_modules(source: str, module: str, is_package: bool) -> list[str]:
    """Every verity module ``source`` imports, relative imports resolved."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.extend(a.name for a in node.names if a.name.split(".")[0] == "verity")
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                base = base[: len(base) - node.level + (1 if is_package else 0)]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            if target.split(".")[0] != "verity":
                continue
            if target == "verity":
                # ``from verity import x``: x may be a submodule or a name of the root
                found.extend(
                    f"verity.{a.name}" if a.name in LAYERS["ranks"] else "verity"
                    for a in node.names
                )
            else:
                found.append(target)
    return found


def violations(module: str, targets: list[str]) -> list[str]:
    """Why each import of ``module`` breaks the layering (empty when none does)."""
    ranks: dict[str, int] = LAYERS["ranks"]
    own = part_of(module)
    if own == "verity":
        return []  # the package root re-exports the public API; checked at run time below
    bad: list[str] = []
    for target in targets:
        other = part_of(target)
        if other in ("verity", own):
            continue
        if other not in ranks:
            bad.append(f"{module} imports {target}: part {other!r} has no rank in layers.json")
        elif ranks[other] > ranks[own]:
            bad.append(f"{module} (rank {ranks[own]}) imports {target} (rank {ranks[other]})")
        elif other in LAYERS["never"].get(own, []):
            bad.append(f"{module} imports {target}: {own} never imports {other}")
    return bad


def _sources() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_every_part_of_the_package_has_a_rank() -> None:
    parts = {part_of(module_name(p)) for p in _sources()} - {"verity"}
    assert parts <= set(LAYERS["ranks"]), sorted(parts - set(LAYERS["ranks"]))


@pytest.mark.parametrize("path", _sources(), ids=lambda p: str(p.relative_to(ROOT)))
def test_imports_follow_the_layers(path: Path) -> None:
    module = module_name(path)
    targets = imported_modules(path.read_text("utf-8"), module, path.name == "__init__.py")
    assert violations(module, targets) == []


@pytest.mark.parametrize(
    ("module", "source", "expected"),
    [
        ("verity.core.gates", "from verity.llm import repair\n", 1),
        ("verity.text.align", "def f():\n    import verity.core.graph\n", 1),
        ("verity.core.verify", "from ..llm.repair import x\n", 1),
        ("verity.backends.sql.query", "from verity.llm.prompts import p\n", 1),
        ("verity.core.verify", "from verity.text.align import a\nfrom verity import errors\n", 0),
        ("verity.cli.main", "from verity import __version__\nfrom verity.bench import x\n", 0),
    ],
)
def test_the_layer_check_catches_an_upward_import(module: str, source: str, expected: int) -> None:
    """The check itself: an import against the layers is reported, an allowed one is not."""
    targets = imported_modules(source, module, is_package=False)
    assert len(violations(module, targets)) == expected


VERIFY_SCRIPT = r"""
import json, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from tests.helpers import graph_dict
import verity
from verity import check_answer, load_graph, verify
golden = Path(sys.argv[1]) / "tests" / "golden" / "narrations"
count = 0
for path in sorted(golden.glob("*.json")):
    doc = json.loads(path.read_text("utf-8"))
    graph = load_graph(graph_dict(doc["graph"]))
    for profile in ("paper", "strict"):
        report = verify(graph, doc["narration"], profile=profile)
        count += len(report.claims)
passages = [{"id": "p1", "text": "Card A earns 5% on groceries."}]
check_answer("Card A earns 5% on groceries.", passages)
print(json.dumps({"claims": count, "modules": sorted(sys.modules)}))
"""


def test_verifying_loads_no_model_backend_bench_or_cli_module() -> None:
    proc = subprocess.run(
        [sys.executable, "-c", VERIFY_SCRIPT, str(ROOT)],
        capture_output=True,
        text=True,
        check=True,
    )
    result = json.loads(proc.stdout)
    assert result["claims"] > 0, "the golden narrations produced no claims to verify"
    rules = LAYERS["verify_path"]
    loaded = result["modules"]
    parts = {part_of(m) for m in loaded if m.split(".")[0] == "verity" and m != "verity"}
    assert parts.isdisjoint(rules["forbidden_parts"]), sorted(
        m for m in loaded if part_of(m) in rules["forbidden_parts"] and m.startswith("verity.")
    )
    heavy = sorted(m for m in loaded if m.split(".")[0] in rules["forbidden_packages"])
    assert heavy == []


def import_graph() -> dict[str, set[str]]:
    """Every module of the package and the modules of it that it imports, lazy imports
    inside functions included (a name imported from a package counts as the package)."""
    paths = {module_name(p): p for p in _sources()}
    graph: dict[str, set[str]] = {}
    for module, path in paths.items():
        source = path.read_text("utf-8")
        targets = imported_modules(source, module, path.name == "__init__.py")
        graph[module] = {_known(t, paths) for t in targets} - {module, ""}
    return graph


def _known(target: str, modules: dict[str, Path]) -> str:
    """``target`` or the nearest package above it that is a module of the package."""
    while target and target not in modules:
        target = target.rpartition(".")[0]
    return target


def cycle_through(graph: dict[str, set[str]], start: str) -> list[str] | None:
    """A chain of imports from ``start`` back to ``start``, or None when there is none."""
    paths, seen = [[start]], {start}
    while paths:
        path = paths.pop()
        for target in sorted(graph.get(path[-1], ())):
            if target == start:
                return [*path, start]
            if target not in seen:
                seen.add(target)
                paths.append([*path, target])
    return None


def test_the_cycle_check_finds_a_circle_through_a_lazy_import() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set()}
    assert cycle_through(graph, "a") == ["a", "b", "c", "a"]
    assert cycle_through(graph, "d") is None
    lazy = "def f():\n    from verity.stream import chunks\n"
    assert imported_modules(lazy, "verity.stream_dask", is_package=False) == ["verity.stream"]


@pytest.mark.parametrize("module", ["verity.stream", "verity.stream_dask", "verity._lines"])
def test_the_stream_modules_import_no_circle(module: str) -> None:
    assert cycle_through(import_graph(), module) is None

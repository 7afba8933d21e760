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


def _module_edges() -> dict[str, set[str]]:
    """Every verity module (the package root aside: it only names its API) -> the verity
    modules it imports, at module level or inside a function. ``from P import name``
    goes to ``P.name`` when that is a module, else to ``P``."""
    modules = {module_name(p): p for p in _sources()}
    edges: dict[str, set[str]] = {}
    for module, path in modules.items():
        if module == "verity":
            continue
        found: set[str] = set()
        tree = ast.parse(path.read_text("utf-8"))
        for target in imported_modules(path.read_text("utf-8"), module, path.name == "__init__.py"):
            found.add(target)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                found.update(
                    f"{node.module}.{a.name}"
                    for a in node.names
                    if f"{node.module}.{a.name}" in modules
                )
        edges[module] = {t for t in found if t in modules and t not in ("verity", module)}
    return edges


def _circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                group.append(top)
                if top == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_no_module_imports_itself_through_others() -> None:
    """No import circle between modules, counting imports inside functions too."""
    assert _circles(_module_edges()) == []


def test_the_circle_check_finds_a_circle() -> None:
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _circles({"a": {"b"}, "b": set()}) == []

"""Old module paths of the flat layout, kept importable for one release.

Each old name in :data:`MOVED` (and every submodule under it, such as
``verity.narrators.base``) imports as the very module object at its new path, so
``verity.narrators is verity.llm.narrators`` and monkeypatching either name reaches the
same code. Importing an old name warns with :class:`DeprecationWarning`.
``python -m`` under an old name runs the new module.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import warnings
from types import CodeType, ModuleType

__all__ = ["MOVED", "install", "new_name"]

#: Old module path -> new module path (a package's submodules follow it).
MOVED: dict[str, str] = {
    "verity.aliases": "verity.text.aliases",
    "verity.align": "verity.text.align",
    "verity.backends.sql_sample": "verity.backends.sql.sample",
    "verity.backends.sql_spec": "verity.backends.sql.spec",
    "verity.claims": "verity.core.claims",
    "verity.commands": "verity.cli.commands",
    "verity.demo": "verity.cli.demo",
    "verity.display": "verity.text.display",
    "verity.embedding_checker": "verity.bench.embedding_checker",
    "verity.gate_error": "verity.core.gate_error",
    "verity.gates": "verity.core.gates",
    "verity.graph": "verity.core.graph",
    "verity.menu": "verity.core.menu",
    "verity.models": "verity.core.models",
    "verity.narrators": "verity.llm.narrators",
    "verity.normalize": "verity.text.normalize",
    "verity.numbers": "verity.text.numbers",
    "verity.profiles": "verity.core.profiles",
    "verity.prompts": "verity.llm.prompts",
    "verity.refusal": "verity.formats",
    "verity.repair": "verity.llm.repair",
    "verity.report": "verity.core.report",
    "verity.segment": "verity.text.segment",
    "verity.suggest": "verity.text.suggest",
    "verity.trusted": "verity.core.trusted",
}
# Not aliased: ``verity.verify`` (the name is the public function), ``verity.text``,
# ``verity.cli`` and ``verity.backends.sql``, which are now packages re-exporting what the
# old modules exported.


def new_name(name: str) -> str | None:
    """The new path of an old module name, or None when ``name`` did not move."""
    for old, new in MOVED.items():
        if name == old or name.startswith(old + "."):
            return new + name[len(old) :]
    return None


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, target: str) -> None:
        self.target = target

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        warnings.warn(
            f"{spec.name} moved to {self.target}; the old name goes in the next release",
            DeprecationWarning,
            stacklevel=2,
        )
        return importlib.import_module(self.target)

    def exec_module(self, module: ModuleType) -> None:
        """The module is already executed under its new name."""

    def get_code(self, fullname: str) -> CodeType | None:
        """The new module's code, so that ``python -m OLD`` runs it."""
        spec = importlib.util.find_spec(self.target)
        loader = spec.loader if spec is not None else None
        if not isinstance(loader, importlib.abc.InspectLoader):
            return None
        return loader.get_code(self.target)


class _MovedFinder(importlib.abc.MetaPathFinder):
    def find_spec(
        self, fullname: str, path: object = None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        new = new_name(fullname)
        if new is None:
            return None
        real = importlib.util.find_spec(new)
        origin = real.origin if real is not None else None  # python -m sets argv[0] from it
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(new), origin=origin)


def install() -> None:
    """Put the finder on ``sys.meta_path`` once."""
    if not any(isinstance(f, _MovedFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _MovedFinder())

"""Which of verity's modules this installation runs compiled (mypyc, see ``setup.py``),
and the pickling those modules' classes need there.

mypyc compiles a module's classes to C extension types, which pickle and copy only
through a reducer: a frozen dataclass cannot be restored attribute by attribute.
:func:`register_reducers` registers one with :mod:`copyreg` for every dataclass of a
compiled module (its constructor called with its fields), so that ``pickle``,
``copy.copy`` and ``copy.deepcopy`` work on them as on the pure-Python classes.
"""

from __future__ import annotations

import copyreg
import dataclasses
import importlib
import sys
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path
from typing import Any

__all__ = ["build_text", "compiled_modules", "register_reducers"]

_PACKAGE = Path(__file__).resolve().parent


def compiled_modules() -> list[str]:
    """The dotted names of the modules that import from a C extension, sorted.

    A compiled module's extension file sits beside its ``.py`` source and is the one
    Python imports. When a module is already imported, its ``__file__`` decides.
    """
    found = []
    for path in _PACKAGE.rglob("*"):
        suffix = next((s for s in EXTENSION_SUFFIXES if path.name.endswith(s)), None)
        if suffix is None:
            continue
        parts = path.relative_to(_PACKAGE.parent).parts
        name = ".".join((*parts[:-1], path.name[: -len(suffix)]))
        loaded = sys.modules.get(name)
        if loaded is None or str(getattr(loaded, "__file__", "")).endswith(suffix):
            found.append(name)
    return sorted(found)


def build_text() -> str:
    """``N modules compiled with mypyc`` or ``pure Python``."""
    count = len(compiled_modules())
    return f"{count} modules compiled with mypyc" if count else "pure Python"


def _by_fields(obj: Any) -> tuple[Any, tuple[Any, ...]]:
    """A reducer: the class and its fields in order (each class's ``__init__`` takes them)."""
    return type(obj), tuple(getattr(obj, f.name) for f in dataclasses.fields(obj))


def register_reducers(modules: list[str] | None = None) -> list[type]:
    """Register :func:`_by_fields` for the dataclasses defined in the compiled modules
    (default: :func:`compiled_modules`); the classes registered, in order."""
    registered: list[type] = []
    for name in compiled_modules() if modules is None else modules:
        module = importlib.import_module(name)
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and value.__module__ == name
                and dataclasses.is_dataclass(value)
                and all(f.init for f in dataclasses.fields(value))
            ):
                copyreg.pickle(value, _by_fields)
                registered.append(value)
    return registered

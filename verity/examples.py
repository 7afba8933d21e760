"""The example files (a graph, a narration, a custom gate, a SQL spec, two optimization
models with their labels), shipped as package data under ``verity/data/examples/``.

:func:`examples_dir` is where they are installed; :func:`copy_examples` copies them to
``DIR/examples/`` (what ``verity examples DIR`` runs), so that the README's commands,
which name ``examples/...``, work in any directory.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal, NamedTuple

from verity.errors import InputError

__all__ = ["ExampleCopy", "copy_examples", "example_names", "examples_dir", "plan_copy"]

#: What copying one file does: write a new file, replace a different one (``force``), or
#: leave one that already holds the same bytes.
Action = Literal["write", "replace", "same"]


class ExampleCopy(NamedTuple):
    """One example file: where it comes from, where it goes and what copying it does."""

    source: Path
    target: Path
    action: Action


def examples_dir() -> Path:
    """The folder of the installed example files (read it; do not write to it)."""
    return Path(__file__).resolve().parent / "data" / "examples"


def example_names() -> tuple[str, ...]:
    """The example files' names, relative to :func:`examples_dir`, sorted."""
    root = examples_dir()
    return tuple(
        sorted(
            path.relative_to(root).as_posix()
            for path in root.rglob("*")
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"
        )
    )


def _action(source: Path, target: Path) -> Action:
    if not target.exists():
        return "write"
    if not target.is_file():
        raise InputError(f"{target} exists and is not a file")
    return "same" if target.read_bytes() == source.read_bytes() else "replace"


def plan_copy(directory: str | Path, *, force: bool = False) -> tuple[ExampleCopy, ...]:
    """What :func:`copy_examples` would do, checked before anything is written.

    Raises :class:`InputError` when ``directory`` is not a folder, or when a target
    exists with other bytes and ``force`` is false (naming the first such file).
    """
    base = Path(directory)
    root, folder = examples_dir(), base / "examples"
    for path in (base, folder):
        if path.exists() and not path.is_dir():
            raise InputError(f"{path} is not a directory")
    plan = tuple(
        ExampleCopy(root / name, folder / name, _action(root / name, folder / name))
        for name in example_names()
    )
    differing = [copy.target for copy in plan if copy.action == "replace"]
    if differing and not force:
        more = f" (and {len(differing) - 1} more)" if len(differing) > 1 else ""
        raise InputError(
            f"{differing[0]} exists and differs from the example{more}; "
            "pass --force (force=True) to overwrite"
        )
    return plan


def copy_examples(directory: str | Path = ".", *, force: bool = False) -> tuple[ExampleCopy, ...]:
    """Copy the example files to ``directory/examples/``: the README's ``examples/...``.

    A file that is already there with the same bytes is left as it is; one with other
    bytes is refused (:class:`InputError`, nothing written) unless ``force`` is true.
    Returns what was done to each file.
    """
    try:
        plan = plan_copy(directory, force=force)
        for copy in plan:
            if copy.action != "same":
                copy.target.parent.mkdir(parents=True, exist_ok=True)
                copy.target.write_bytes(copy.source.read_bytes())
    except OSError as exc:
        raise InputError(f"cannot copy the examples: {exc.filename}: {exc.strerror}") from None
    return plan

"""`verity examples [DIR]`: copy the example files to ``DIR/examples/`` (default: here).

The files are package data (:func:`verity.examples_dir`); the README's commands name them
as ``examples/...``. A file already there with the same bytes is left as it is; one with
other bytes is refused (exit 2, nothing written) unless ``--force``.
"""

from __future__ import annotations

import argparse

from verity.examples import ExampleCopy, copy_examples

_DONE = {"write": "wrote", "replace": "replaced", "same": "unchanged"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "directory",
        metavar="DIR",
        nargs="?",
        default=".",
        help="write the files to DIR/examples/ (default: the current directory)",
    )
    parser.add_argument("--force", action="store_true", help="overwrite example files that differ")


def render(plan: tuple[ExampleCopy, ...]) -> str:
    """One line per file: what was done and where."""
    return "\n".join(f"{_DONE[copy.action]:<9}  {copy.target}" for copy in plan)


def run(args: argparse.Namespace) -> int:
    print(render(copy_examples(args.directory, force=args.force)))
    return 0

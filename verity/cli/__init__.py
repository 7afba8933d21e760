"""The command line: argument parsing, the commands, and all printing.

``verity.cli:main`` stays the console entry point. It handles SIGINT and SIGTERM before
it imports the commands, so that a signal at any moment of the start-up ends the command
with one line and 128 + the signal's number; everything else is imported on first use.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from verity.interrupts import Stopped, print_stopped, stopped_by_signals

if TYPE_CHECKING:
    from verity.cli.main import (
        EXIT_ALL_VERIFIED,
        EXIT_INPUT,
        EXIT_REFUSED,
        EXIT_TRIMMED,
        EXIT_UNREACHABLE,
        version_text,
    )

__all__ = [
    "EXIT_ALL_VERIFIED",
    "EXIT_INPUT",
    "EXIT_REFUSED",
    "EXIT_TRIMMED",
    "EXIT_UNREACHABLE",
    "main",
    "version_text",
]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command ``argv`` (default: the process's arguments); its exit status."""
    try:
        with stopped_by_signals():
            from verity.cli.main import main as run

            return run(argv)
    except Stopped as stop:
        return print_stopped(stop)


def __getattr__(name: str) -> Any:
    if name in __all__:
        return getattr(importlib.import_module("verity.cli.main"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

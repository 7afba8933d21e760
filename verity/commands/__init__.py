"""One module per `verity` subcommand.

Each module defines ``NAME``, ``HELP``, ``add_arguments(parser)`` and
``run(args) -> int``. :data:`COMMANDS` lists them in the order ``--help`` shows them.
"""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["COMMANDS", "load_commands"]

COMMANDS: tuple[str, ...] = (
    "verify",
    "verify_stream",
    "graph_from_sql",
    "optimize",
    "check_answer",
    "agreement",
    "narrate",
    "demo",
    "bench",
)


def load_commands() -> list[ModuleType]:
    """Import every command module named in :data:`COMMANDS`."""
    return [importlib.import_module(f"verity.commands.{name}") for name in COMMANDS]

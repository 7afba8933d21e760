"""One module per `verity` subcommand, imported only when its command runs.

:data:`COMMANDS` names each subcommand, the module that implements it and its one-line
help, in the order ``--help`` shows them. A command module defines
``add_arguments(parser)`` and ``run(args) -> int``. Importing a module only for the
command being run keeps ``verity verify`` and the ``verify-stream`` workers free of the
optimizer, the LLM clients and plotting (about 40 MB per process).
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import NamedTuple

__all__ = ["COMMANDS", "Command"]


class Command(NamedTuple):
    module: str
    name: str
    help: str

    def load(self) -> ModuleType:
        """The command's module (imported on first use)."""
        return importlib.import_module(f"verity.cli.commands.{self.module}")


COMMANDS: tuple[Command, ...] = (
    Command("verify", "verify", "verify a narration's claims against an evidence graph"),
    Command(
        "verify_stream",
        "verify-stream",
        "verify narrations from a JSON Lines file (or - for stdin), one report line each",
    ),
    Command(
        "serve",
        "serve",
        "verify narrations and answers over HTTP (JSON; the serve extra), on 127.0.0.1 by default",
    ),
    Command(
        "graph_from_sql",
        "graph-from-sql",
        "build an evidence graph from read-only SQL queries (default: the embedded sample)",
    ),
    Command(
        "graph_from_lp",
        "graph-from-lp",
        "solve an optimization model (.mps or .lp, pulp with CBC or HiGHS) and write the "
        "evidence graph of its solution",
    ),
    Command(
        "what_if",
        "what-if",
        "re-solve an optimization model with changes (--set NAME=VALUE: a right-hand side, "
        "a bound, an objective coefficient) and write the evidence graph of the difference",
    ),
    Command(
        "optimize",
        "optimize",
        "solve the card-rewards optimizer for a spending profile and write its evidence graph",
    ),
    Command(
        "check_answer",
        "check-answer",
        "check each sentence of a free-text answer against passages or an evidence graph",
    ),
    Command(
        "variants",
        "variants",
        "learn a graph's declared language from use: 'variants suggest' proposes the "
        "template variants that would accept refused sentences, as a reviewable diff",
    ),
    Command(
        "examples",
        "examples",
        "copy the example files (graph, narration, gates, SQL spec, models) to DIR/examples/",
    ),
    Command(
        "agreement",
        "agreement",
        "rater agreement from a CSV of item,rater,label: raw, Cohen's and Fleiss' kappa",
    ),
    Command(
        "narrate",
        "narrate",
        "narrate an evidence graph with an LLM, verify its claims and repair the failing "
        "ones (--repairs: 0 to 3 passes, default 1)",
    ),
    Command(
        "demo",
        "demo",
        "optimize one card-rewards profile, narrate it (default: the local model), "
        "verify and repair",
    ),
    Command(
        "bench",
        "bench",
        "run the paired benchmark (narrators x variants x profiles, --repairs passes) and report",
    ),
)

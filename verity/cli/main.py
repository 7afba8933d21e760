"""The `verity` command line.

Exit status: 0 every claim verified; 1 some claims removed, at least one shipped;
3 nothing shipped (the refusal); 2 unusable input (one line on stderr, no traceback);
4 the narrator could not be reached or its model process crashed (``narrate``,
``demo``); 128 + the signal's number (130, 143) stopped by SIGINT or SIGTERM
(:mod:`verity.interrupts`), at any moment: a command that writes files says what it
kept, any other moment gives ``verity: interrupted (SIGINT)``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from verity.cli.commands import COMMANDS
from verity.cli.commands._output import (
    EXIT_ALL_VERIFIED,
    EXIT_INPUT,
    EXIT_REFUSED,
    EXIT_TRIMMED,
    EXIT_UNREACHABLE,
)
from verity.errors import VerityError
from verity.interrupts import Stopped, print_stopped, stopped_by_signals
from verity.text.display import one_line

__all__ = [
    "EXIT_ALL_VERIFIED",
    "EXIT_INPUT",
    "EXIT_REFUSED",
    "EXIT_TRIMMED",
    "EXIT_UNREACHABLE",
    "main",
    "version_text",
]


class _Parser(argparse.ArgumentParser):
    """argparse that exits with status 2 and one line, like every other input error."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_INPUT, f"verity: error: {message}\n")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser; only ``command``'s module is imported (every one when it is None)."""
    parser = _Parser(
        prog="verity",
        description="Verify LLM narrations against evidence graphs.",
        epilog="exit status: 0 every claim verified, 1 some removed (at least one shipped), "
        "2 unusable input, 3 nothing shipped (the refusal), 4 the narrator could not be "
        "reached or its embedded model crashed, 130/143 stopped by SIGINT/SIGTERM (one line "
        "on stderr)",
    )
    parser.add_argument("--version", action="version", version=version_text())
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for entry in COMMANDS:
        cmd = sub.add_parser(entry.name, help=entry.help, description=entry.help)
        if command is None or command == entry.name:
            module = entry.load()
            module.add_arguments(cmd)
            cmd.set_defaults(_run=module.run)
    return parser


def version_text() -> str:
    """``verity X.Y.Z (distribution verity-evidence)``."""
    from verity import __version__
    from verity.extras import DISTRIBUTION

    return f"verity {__version__} (distribution {DISTRIBUTION})"


def _chosen(argv: Sequence[str]) -> str:
    """The subcommand named by ``argv`` (its first word), or "" for none."""
    return argv[0] if argv and not argv[0].startswith("-") else ""


def _status(exc: VerityError) -> int:
    """The exit status of an error: :data:`EXIT_INPUT` unless it names its own (the
    embedded model's crash, :class:`verity.llm.narrators.local.ModelCrashed`:
    :data:`EXIT_UNREACHABLE`)."""
    status = getattr(exc, "exit_status", EXIT_INPUT)
    return status if status in (EXIT_INPUT, EXIT_UNREACHABLE) else EXIT_INPUT


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command ``argv`` (default: the process's arguments); its exit status."""
    try:
        with stopped_by_signals():
            return _main(argv)
    except Stopped as stop:
        return print_stopped(stop)


def _main(argv: Sequence[str] | None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(_chosen(words))
    args = parser.parse_args(words)
    run = getattr(args, "_run", None)
    if run is None:
        parser.print_help(sys.stderr)
        return EXIT_INPUT
    try:
        return int(run(args))
    except VerityError as exc:
        print(f"verity: error: {one_line(exc, sys.maxsize) or 'unusable input'}", file=sys.stderr)
        return _status(exc)
    except KeyboardInterrupt:
        print("verity: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

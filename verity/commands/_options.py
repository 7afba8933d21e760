"""Command-line options that several commands share."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from verity.repair import MAX_REPAIRS

__all__ = ["add_repairs", "int_in_range"]


def int_in_range(low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse ``type`` for a whole number from ``low`` (to ``high``, when given)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < low or (high is not None and value > high):
            bound = f"at least {low}" if high is None else f"from {low} to {high}"
            raise argparse.ArgumentTypeError(f"must be {bound}, got {value}")
        return value

    return parse


def add_repairs(parser: argparse.ArgumentParser, what: str = "repair passes") -> None:
    """``--repairs N``: 0 to :data:`verity.repair.MAX_REPAIRS`, default 1."""
    parser.add_argument(
        "--repairs",
        type=int_in_range(0, MAX_REPAIRS),
        default=1,
        metavar="N",
        help=f"{what}, 0 to {MAX_REPAIRS} (default: 1)",
    )

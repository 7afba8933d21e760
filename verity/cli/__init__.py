"""The command line: argument parsing, the commands, and all printing.

``verity.cli:main`` stays the console entry point.
"""

from verity.cli.main import (
    EXIT_ALL_VERIFIED,
    EXIT_INPUT,
    EXIT_REFUSED,
    EXIT_TRIMMED,
    EXIT_UNREACHABLE,
    main,
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

"""Exceptions that verity raises on purpose.

Every exception here carries a message meant for a person, on one line. The CLI
prints it and exits with status 2; library callers catch :class:`VerityError`.
"""

from __future__ import annotations

__all__ = ["GraphError", "InputError", "VerityError"]


class VerityError(Exception):
    """Base class of every error verity raises deliberately."""


class InputError(VerityError):
    """Input that cannot be used at all: unreadable file, invalid JSON, wrong shape."""


class GraphError(InputError):
    """An evidence graph that fails its schema or its consistency checks."""

"""Writing the files of a run: one-line errors for what cannot be written."""

from __future__ import annotations

from pathlib import Path

from verity.errors import InputError

__all__ = ["make_dir", "write_file"]


def make_dir(path: Path) -> None:
    """Create ``path`` (and its parents) unless it exists, with a one-line error."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create {path}: {exc.strerror or exc}") from None


def write_file(path: Path, text: str) -> Path:
    """Write ``text`` as UTF-8 to ``path``, with a one-line error; returns ``path``."""
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None
    return path

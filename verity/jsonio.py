"""Reading JSON input strictly, with one-line errors.

Files are UTF-8 (a leading byte-order mark is tolerated); invalid UTF-8, invalid
JSON, ``NaN``/``Infinity``, nesting too deep to parse and ``\\u`` escapes of lone
surrogates (valid JSON, but not Unicode text: nothing could print or encode them)
are input errors.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from verity.errors import InputError

__all__ = ["MAX_INPUT_BYTES", "dumps", "loads", "path_text", "read_bytes", "read_json", "read_text"]

#: Files larger than this are refused rather than read (64 MiB).
MAX_INPUT_BYTES = 64 * 1024 * 1024


# A \u escape of a surrogate code point; only then can parsed text hold a lone one.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _lone_surrogate(data: Any) -> bool:
    """True when a string anywhere in ``data`` holds a lone surrogate."""
    try:
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    except RecursionError:  # pragma: no cover - loads accepted this depth already
        return False
    return False


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


class _DuplicateKey(ValueError):
    """An object that names one key twice."""


def _unique_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object's pairs as a dict, or :class:`_DuplicateKey` when a key repeats."""
    data = dict(pairs)
    if len(data) < len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(f"the key {key[:80]!r} appears twice in one object")
            seen.add(key)
    return data


def loads(text: str, what: str, *, unique_keys: bool = False) -> Any:
    """Parse JSON text; ``what`` names the input in the error message. With
    ``unique_keys``, an object that names a key twice (anywhere) is an input error
    rather than keeping the last value."""
    if text.startswith("\ufeff"):
        text = text[1:]
    hook = _unique_object if unique_keys else None
    try:
        data = json.loads(text, parse_constant=_reject_constant, object_pairs_hook=hook)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{what} is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from None
    except _DuplicateKey as exc:
        raise InputError(f"{what} is not usable: {exc}") from None
    except ValueError as exc:
        raise InputError(f"{what} is not valid JSON: {exc}") from None
    except RecursionError:
        raise InputError(f"{what} is not usable: JSON nested too deeply") from None
    if _SURROGATE_ESCAPE.search(text) is not None and _lone_surrogate(data):
        raise InputError(
            f"{what} is not valid Unicode: it escapes a lone surrogate (\\ud800-\\udfff)"
        )
    return data


def path_text(path: str | Path) -> str:
    """A path as a one-line message shows it: as is, or quoted with escapes when it
    holds line breaks, control or invisible characters."""
    text = str(path)
    return text if text.isprintable() else repr(text)


def read_bytes(path: str | Path, what: str, max_bytes: int | None = MAX_INPUT_BYTES) -> bytes:
    """Read a file whole, with one-line errors for every way that can fail.

    ``max_bytes`` bounds the size (None: no bound, for files this program wrote itself).
    """
    p = Path(path)
    shown = path_text(p)
    try:
        size = p.stat().st_size
        if p.is_dir():
            raise InputError(f"{what} {shown} is a directory, not a file")
        if max_bytes is not None and size > max_bytes:
            raise InputError(f"{what} {shown} is {size} bytes; the limit is {max_bytes}")
        return p.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{what} {shown} does not exist") from None
    except PermissionError:
        raise InputError(f"{what} {shown} cannot be read: permission denied") from None
    except OSError as exc:
        raise InputError(f"{what} {shown} cannot be read: {exc.strerror or exc}") from None


def read_text(path: str | Path, what: str) -> str:
    """Read a UTF-8 text file, with one-line errors for every way that can fail."""
    data = read_bytes(path, what)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"{what} {path_text(path)} is not valid UTF-8 (byte {exc.start})"
        ) from None


def read_json(path: str | Path, what: str) -> Any:
    """Read and parse a JSON file."""
    return loads(read_text(path, what), f"{what} {path_text(path)}")


def dumps(data: Any, *, sort_keys: bool = False) -> str:
    """The canonical serialization: 2-space indent, UTF-8 kept, newline at the end.

    Every JSON document verity writes (graphs, reports, schemas, summaries) goes through
    here; ``sort_keys`` orders object keys (schemas and bench summaries use it).
    """
    return json.dumps(data, indent=2, ensure_ascii=False, sort_keys=sort_keys) + "\n"

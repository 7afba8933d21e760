"""Text normalization shared by every gate that reads prose.

One function, :func:`normalize`: Unicode NFKC (full-width digits and letters become
ASCII, ligatures split), removal of invisible format characters (zero-width spaces
and joiners, bidirectional overrides, BOMs: Unicode category ``Cf``), then
case folding. What a reader sees is what the gates compare.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache, lru_cache

from verity.text.chartables import ranges

__all__ = ["normalize"]


@cache
def _format_re() -> re.Pattern[str]:
    """Every code point of category Cf (format), in every plane; built on first use (only
    a text that is not ASCII can hold one)."""
    chars = "".join(chr(cp) for lo, hi in ranges("format") for cp in range(lo, hi + 1))
    return re.compile("[" + re.escape(chars) + "]")


def _strip_format(text: str) -> str:
    return _format_re().sub("", text)


#: Non-ASCII texts up to this length are memoized (NFKC is slow); the cache is bounded
#: to about 16 MB of text. ASCII texts are lowered directly.
_CACHED_LENGTH = 256


def _normalize(text: str) -> str:
    if text.isascii():  # ASCII holds no format characters and is its own NFKC form
        return text.lower()
    return unicodedata.normalize("NFKC", _strip_format(text)).casefold()


_normalize_cached = lru_cache(maxsize=65536)(_normalize)


def normalize(text: str) -> str:
    """Return ``text`` as NFKC, without format characters, case-folded."""
    if text.isascii():  # as fast as a cache lookup, and no memory that grows with a stream
        return text.lower()
    if len(text) > _CACHED_LENGTH:
        return _normalize(text)
    return _normalize_cached(text)

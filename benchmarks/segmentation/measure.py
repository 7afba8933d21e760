"""Boundary error rates of the guarded segmenter and of a naive split, side by side.

Run from the repository root::

    .venv/bin/python benchmarks/segmentation/measure.py [--json] [--show-errors]

Two fixtures, both cases of ``text`` and the expected ``sentences`` (each an exact,
stripped substring of ``text``, in order):

* ``tests/fixtures/segmentation/*.json`` (*development*): written before the segmenter;
  its guards were then developed while looking at the failures on it, so its figure is
  in-sample;
* ``tests/fixtures/segmentation/heldout/*.json`` (*held-out*): written after the
  segmenter was frozen and never used to change it: the honest figure.

Definitions. A segmentation of a text is its list of stripped, non-empty pieces. A
*boundary* is the character offset in ``text`` where a piece other than the first
begins (located left to right with ``str.find``). For one case, with expected
boundaries E and predicted boundaries P, the missed boundaries are E - P and the
spurious ones are P - E.

* **case error rate** (the headline figure): the share of cases whose predicted
  boundary set differs from the expected one (at least one missed or spurious
  boundary). A case with one sentence and no split counts as correct.
* **boundary error rate**: (missed + spurious boundaries, summed over all cases) /
  (expected boundaries, summed over all cases).

The naive splitter is ``re.split(r"[.!?\\n]+", text)`` with each piece stripped and
empty pieces dropped.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from verity.bench.segmentation import Splitter, load_cases, naive_split, score  # noqa: E402
from verity.text.segment import split_sentences  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures" / "segmentation"
SETS = {"development": FIXTURES, "held-out": FIXTURES / "heldout"}
SPLITTERS: list[tuple[str, Splitter]] = [
    ("naive [.!?\\n]+", naive_split),
    ("guarded", split_sentences),
]


def report(title: str, cases: list[dict[str, object]], show_errors: bool) -> None:
    results = {name: score(fn, cases) for name, fn in SPLITTERS}
    languages = sorted({str(c["language"]) for c in cases})
    print(
        f"{title}: {len(cases)} cases, {len(languages)} languages ({', '.join(languages)}),"
        f" {results['guarded']['expected_boundaries']} expected boundaries"
    )
    columns = ("case error", 11), ("boundary error", 15), ("missed", 7), ("spurious", 9)
    print(f"  {'splitter':<16}" + "".join(f" {name:>{width}}" for name, width in columns))
    for name, r in results.items():
        print(
            f"  {name:<16} {r['case_error_rate']:>11.1%} {r['boundary_error_rate']:>15.1%}"
            f" {r['missed']:>7} {r['spurious']:>9}"
        )
    per_language = []
    for lang in languages:
        cells = []
        for name, r in results.items():
            tally = r["by_language"][lang]  # type: ignore[index]
            cells.append(f"{name.split()[0]} {tally['wrong']}/{tally['cases']}")
        per_language.append(f"{lang} " + ", ".join(cells))
    print("  wrong cases per language: " + "; ".join(per_language))
    if show_errors:
        for name, r in results.items():
            print(f"  {name} wrong: {' '.join(r['wrong_ids'])}")  # type: ignore[arg-type]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--show-errors", action="store_true", help="list the wrong case ids")
    args = parser.parse_args(argv)
    sets = {title: load_cases(path) for title, path in SETS.items()}
    sets["all"] = [case for cases in list(sets.values()) for case in cases]
    if args.json:
        out = {
            title: {name: score(fn, cases) for name, fn in SPLITTERS}
            for title, cases in sets.items()
        }
        print(json.dumps(out, indent=2, ensure_ascii=False))
        return 0
    for title, cases in sets.items():
        report(title, cases, args.show_errors)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""How verify() and check_answer() time grows with claim, statement and answer size.

Run from the repository root::

    .venv/bin/python benchmarks/perf/growth.py [--json benchmarks/perf/results/growth.json]

Each case builds a one-node graph in memory whose statement is made of distinct
words (``w0 w1 ...``), verifies a one-claim narration under ``strict`` from its JSON
text and reports the CPU time of one call (best of a few). Cases:

* ``claim``: claims of L words, the first L words of a 2,000-word statement;
* ``statement``: a 10-word claim against the last 10 words of statements of S words
  (``cold`` includes building the statement's token index on first use);
* ``adversarial``: a statement of S tokens ``a`` with ``not`` every 100 tokens and a
  claim of L >= 100 tokens ``a``: every start aligns and every span loses a ``not``
  to the guard (the worst case of the search: the claim is rejected only after every
  start was considered);
* ``1 MB claim``: a claim text of 1,000,000 characters (over ``MAX_CLAIM_TEXT``);
* ``answer``: check_answer on answers of N sentences (and one of 1 MB without any
  sentence end) against five passages.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from verity import check_answer, load_graph, verify  # noqa: E402
from verity.errors import InputError  # noqa: E402

#: Marker spacing of the adversarial statements: any claim of more than PERIOD tokens ``a``
#: must skip a ``not`` (so fails the guard) and still fits the gap budget.
PERIOD = 100


def graph_of(statement: str) -> dict[str, Any]:
    return {
        "format": "verity.evidence_graph/1",
        "graph_id": "growth",
        "domain": "perf",
        "entities": [],
        "nodes": [{"id": "s", "type": "FACT", "statement": statement, "numbers": []}],
        "edges": [],
        "rules": [{"claim_type": "FACT", "requires": [{"any_of": ["FACT"]}]}],
    }


def narration_text(text: str) -> str:
    claim = {
        "id": "c1",
        "type": "FACT",
        "text": text,
        "cited_evidence_ids": ["s"],
        "entities": [],
        "numbers": [],
    }
    return json.dumps({"graph_id": "growth", "claims": [claim]})


def words(n: int, start: int = 0) -> str:
    return " ".join(f"w{i}" for i in range(start, start + n))


def cpu_best(fn: Callable[[], object], repeat: int = 3) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(repeat):
        started = time.process_time()
        result = fn()
        best = min(best, time.process_time() - started)
    return best, result


def verify_case(statement: str, claim: str, repeat: int = 3) -> dict[str, Any]:
    started = time.process_time()
    graph = load_graph(graph_of(statement))
    load_s = time.process_time() - started
    text = narration_text(claim)

    def once() -> object:
        return verify(graph, json.loads(text), "strict")

    cold, report = cpu_best(once, 1)  # the first call builds the statement index
    warm, report = cpu_best(once, repeat)
    verdict = report.claims[0]  # type: ignore[attr-defined]
    codes = [e.code for e in verdict.errors]
    return {
        "load_s": load_s,
        "cold_s": cold,
        "warm_s": warm,
        "passed": verdict.passed,
        "codes": codes,
    }


def claim_lengths() -> list[dict[str, Any]]:
    statement = words(2000)
    return [
        {
            "case": "claim",
            "claim_words": n,
            "statement_words": 2000,
            "claim_chars": len(words(n)),
            **verify_case(statement, words(n)),
        }
        for n in (10, 100, 1000, 1400)
    ]


def statement_lengths() -> list[dict[str, Any]]:
    rows = []
    for n in (100, 1_000, 10_000, 100_000):
        claim = words(10, n - 10)
        rows.append(
            {
                "case": "statement",
                "claim_words": 10,
                "statement_words": n,
                **verify_case(words(n), claim),
            }
        )
    return rows


def adversarial() -> list[dict[str, Any]]:
    rows = []
    for size, claim_len in ((1_000, 100), (10_000, 100), (10_000, 500), (100_000, 500)):
        parts = [("not" if i % PERIOD == PERIOD - 1 else "a") for i in range(size)]
        case = verify_case(" ".join(parts), " ".join(["a"] * claim_len), repeat=1)
        rows.append(
            {"case": "adversarial", "claim_words": claim_len, "statement_words": size, **case}
        )
    return rows


def huge_claim() -> dict[str, Any]:
    statement = words(20)
    graph = load_graph(graph_of(statement))
    text = narration_text("w1 " * 333_334)
    seconds, report = cpu_best(lambda: verify(graph, json.loads(text), "strict"))
    verdict = report.claims[0]  # type: ignore[attr-defined]
    return {
        "case": "1 MB claim",
        "claim_chars": len(json.loads(text)["claims"][0]["text"]),
        "warm_s": seconds,
        "passed": verdict.passed,
        "codes": [e.code for e in verdict.errors],
    }


def answers() -> list[dict[str, Any]]:
    passages = [{"id": f"p{i}", "text": words(40, i * 40) + "."} for i in range(5)]
    rows = []
    for n in (100, 1_000, 10_000):
        text = " ".join(f"W{i % 200} w{i % 200 + 1} w{i % 200 + 2}." for i in range(n))
        row = _answer_row(f"{n} sentences", text, passages)
        rows.append(row)
    rows.append(_answer_row("1 MB, no sentence end", "w1 " * 333_334, passages))
    return rows


def _answer_row(label: str, text: str, passages: list[dict[str, str]]) -> dict[str, Any]:
    try:
        seconds, result = cpu_best(lambda: check_answer(text, passages), 1)
    except InputError as exc:
        return {"case": "answer", "answer": label, "answer_chars": len(text), "error": str(exc)}
    claims = result.claims  # type: ignore[attr-defined]
    kept = sum(c.supported for c in claims)
    return {
        "case": "answer",
        "answer": label,
        "answer_chars": len(text),
        "warm_s": seconds,
        "sentences": len(claims),
        "supported": kept,
    }


def render(rows: list[dict[str, Any]]) -> str:
    out = [
        f"{'case':<12}{'claim':>9}{'statement':>11}{'load ms':>9}{'cold ms':>9}"
        f"{'warm ms':>9}  result"
    ]
    for r in rows:
        if r["case"] == "answer":
            result = r.get("error") or f"{r['supported']}/{r['sentences']} sentences kept"
            out.append(
                f"{'answer':<12}{r['answer']:>32}{r.get('warm_s', 0) * 1e3:>11.1f}"
                f"  {result} ({r['answer_chars']:,} chars)"
            )
            continue
        claim = r.get("claim_words", "")
        if r["case"] == "1 MB claim":
            claim = f"{r['claim_chars']:,}c"
        result = "passed" if r["passed"] else ", ".join(r["codes"])
        out.append(
            f"{r['case']:<12}{claim!s:>9}{r.get('statement_words', '')!s:>11}"
            f"{r.get('load_s', 0) * 1e3:>9.1f}{r.get('cold_s', 0) * 1e3:>9.2f}"
            f"{r['warm_s'] * 1e3:>9.2f}  {result}"
        )
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    rows = [*claim_lengths(), *statement_lengths(), *adversarial(), huge_claim(), *answers()]
    print("claim / statement in words (tokens); times are CPU ms of one call")
    print(render(rows))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

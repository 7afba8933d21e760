"""The adversarial fixtures of ``benchmarks/adversarial/``, expanded into narrations and
judged under a gate profile (``benchmarks/adversarial/strict.py`` and the tests use it).

Structured cases (``structured_attacks.json``, ``structured_controls.json``) name a graph
(``card/<file>`` or ``sql/sample``) and claims with ``type``, ``text`` and ``cite``.
Entities and numbers are declared the way a careful narrator (or attacker) would: the
entity ids the text mentions, and for each number the text mentions the allowed string of
the same value stated by a cited node (else any allowed string of that value, else the
text as written). A claim may list ``entities`` or ``numbers`` itself.

Graphs are read from a checkout (``root``), so that one checkout's code can be measured on
another checkout's graphs. A graph the code refuses to build or load (a declaration it
rejects) makes its case *load refused*: nothing of it ships.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import verity
import verity.text.reader as _reader
from verity.errors import VerityError
from verity.text.normalize import normalize
from verity.text.numbers import NUMBER_RE, number_value, value_of_match
from verity.text.segment import split_sentences

__all__ = [
    "LOAD_REFUSALS",
    "Outcome",
    "answer_checker",
    "cross_claim_sentences",
    "declare",
    "freetext_passages",
    "graph",
    "judge",
    "judge_all",
    "load",
    "narration",
]


def load(path: str | Path) -> dict[str, Any]:
    """A fixture file (JSON)."""
    data: dict[str, Any] = json.loads(Path(path).read_text("utf-8"))
    return data


#: The declarations (SQL specs, LP models and labels) behind ``spec/`` and ``lp/`` graphs.
V5_DATA = Path(__file__).resolve().parents[2] / "benchmarks" / "adversarial" / "v5_data"


@cache
def graph(ref: str, root: str) -> verity.EvidenceGraph:
    """A fixture's graph: ``card/<file>`` from ``root``'s checked-in graphs, ``sql/sample``,
    ``public/<name>``: the spec ``benchmarks/adversarial/public_data/<name>.spec.json``
    of ``root`` run by the SQL backend over ``public_data.sql`` beside it, loaded into an
    in-memory SQLite database, ``spec/<name>``: the spec
    ``benchmarks/adversarial/v5_data/<name>.spec.json`` over the embedded sample database,
    or ``lp/<name>``: the model ``v5_data/<name>.lp`` solved by the pulp backend with the
    labels ``v5_data/<name>.labels.json``. ``v5_data`` is read from this harness's own
    checkout (it is fixture data: another checkout's code builds the same declarations).
    Raises one of :data:`LOAD_REFUSALS` when the code refuses the graph."""
    kind, _, name = ref.partition("/")
    v5_data = V5_DATA
    if kind == "spec":
        from verity.backends.sql.query import graph_from_sample

        return graph_from_sample(v5_data / f"{name}.spec.json")
    if kind == "lp":
        from verity.backends.pulp import graph_from_file

        return graph_from_file(v5_data / f"{name}.lp", v5_data / f"{name}.labels.json")
    if kind == "card":
        return verity.load_graph(Path(root) / "evidence_graphs" / "card_rewards" / f"{name}.json")
    if ref == "sql/sample":
        from verity.backends.sql.query import graph_from_sample

        return graph_from_sample()
    if kind == "public":
        import sqlite3

        from verity.backends.sql.query import graph_from_queries

        data = Path(root) / "benchmarks" / "adversarial" / "public_data"
        connection = sqlite3.connect(":memory:")
        try:
            connection.executescript((data / "public_data.sql").read_text("utf-8"))
            return graph_from_queries(connection, data / f"{name}.spec.json")
        finally:
            connection.close()
    raise ValueError(f"unknown graph reference {ref!r}")


#: What a refused graph raises: the library's input errors and a declaration's validation
#: error (pydantic's is a ValueError). Anything else is a bug of the harness and propagates.
LOAD_REFUSALS: tuple[type[Exception], ...] = (VerityError, ValueError)


def _masked_numbers(text: str, g: verity.EvidenceGraph) -> list[Any]:
    normalized = normalize(text)
    for m in g.matcher.find(normalized):
        normalized = normalized[: m.start] + " " * (m.end - m.start) + normalized[m.end :]
    return [value_of_match(m) for m in NUMBER_RE.finditer(normalized)]


def declare(claim: Mapping[str, Any], g: verity.EvidenceGraph, index: int) -> dict[str, Any]:
    """The full claim of a fixture claim, with entities and numbers declared (read from
    the text as a reader sees it: :func:`verity.text.reader.plain_text`)."""
    text = claim["text"]
    # An older checkout measured with ``--compare`` has no plain reading: text as written.
    plain = getattr(_reader, "plain_text", str)(text)
    cited = list(claim["cite"])
    entities = claim.get("entities")
    if entities is None:
        entities = list(dict.fromkeys(m.entity_id for m in g.matcher.find(normalize(plain))))
    numbers = claim.get("numbers")
    if numbers is None:
        numbers = []
        cited_numbers = [n for i in cited if i in g.nodes for n in g.nodes[i].numbers]
        allowed = sorted(g.allowed_numbers)
        for value in _masked_numbers(plain, g):
            same = [n for n in cited_numbers if _same(n, value)] or [
                n for n in allowed if _same(n, value)
            ]
            if same and same[0] not in numbers:
                numbers.append(same[0])
    return {
        "id": f"c{index + 1}",
        "type": claim["type"],
        "text": text,
        "cited_evidence_ids": cited,
        "entities": list(entities),
        "numbers": list(numbers),
    }


def _same(declared: str, value: Any) -> bool:
    v = number_value(declared)
    return v is not None and bool(v.matches(value))


def narration(case: Mapping[str, Any], root: str) -> tuple[verity.EvidenceGraph, dict[str, Any]]:
    g = graph(case["graph"], root)
    claims = [declare(c, g, i) for i, c in enumerate(case["claims"])]
    return g, {"graph_id": g.graph_id, "claims": claims}


def cross_claim_sentences(report: verity.Report, g: verity.EvidenceGraph) -> list[str]:
    """Sentences of the shipped answer that lie inside no single shipped claim's text."""
    if report.refused:
        return []
    texts = [normalize(" ".join(c.text.split())) for c in report.shipped]
    out = []
    for sentence in _split(report.answer, g):
        key = normalize(" ".join(sentence.split())).rstrip(".!? ")
        if not any(key in t for t in texts):
            out.append(sentence)
    return out


def _split(text: str, g: verity.EvidenceGraph) -> list[str]:
    return split_sentences(text, g.matcher)


@dataclass(frozen=True)
class Outcome:
    """How one structured case fared under one profile."""

    id: str
    group: str
    shipped: int
    claims: int
    cross_claim: tuple[str, ...]
    codes: tuple[str, ...]
    false_shipped: int
    #: The case's graph could not be built or loaded (the code refused a declaration).
    load_refused: bool = False

    @property
    def escaped(self) -> bool:
        """For an attack: something false shipped (a false claim, or a sentence across claims)."""
        return self.false_shipped > 0 or bool(self.cross_claim)

    @property
    def all_shipped(self) -> bool:
        """For a control: every claim shipped."""
        return self.shipped == self.claims


def judge(case: Mapping[str, Any], profile: str, root: str, *, group_key: str) -> Outcome:
    try:
        g, n = narration(case, root)
    except LOAD_REFUSALS as exc:
        first = (str(exc).splitlines() or [""])[0]
        code = f"load_refused: {type(exc).__name__}: {first}"[:200]
        claims = len(case["claims"])
        return Outcome(case["id"], case[group_key], 0, claims, (), (code,), 0, True)
    report = verity.verify(g, n, profile=profile)
    # A cross-claim splice is an escape only when the joined sentence is not itself a claim.
    cross = tuple(cross_claim_sentences(report, g)) if len(report.shipped) > 1 else ()
    codes = tuple(sorted({e.code for v in report.claims for e in v.errors}))
    # Which claims are false on their own: all of them unless the case says otherwise
    # (a cross-claim splice is false only when joined).
    false = set(case.get("false_claims", range(len(n["claims"]))))
    false_shipped = sum(1 for c in report.shipped if int(c.id[1:]) - 1 in false)
    return Outcome(
        case["id"],
        case[group_key],
        len(report.shipped),
        len(n["claims"]),
        cross,
        codes,
        false_shipped,
    )


def judge_all(
    cases: Iterable[Mapping[str, Any]], profile: str, root: str, *, group_key: str
) -> list[Outcome]:
    return [judge(c, profile, root, group_key=group_key) for c in cases]


# --- free text ---------------------------------------------------------------------------


def answer_checker(name: str) -> Callable[[str, Sequence[Mapping[str, str]]], bool]:
    """``check_answer``-style acceptance: True when the whole answer survives unchanged."""

    def accepts(answer: str, passages: Sequence[Mapping[str, str]]) -> bool:
        result = verity.check_answer(answer, list(passages))
        return not result.refused and result.unsupported_claims_removed == 0

    return accepts


def freetext_passages(data: Mapping[str, Any], item: Mapping[str, Any]) -> list[dict[str, str]]:
    by_id = {p["id"]: p["text"] for p in data["passages"]}
    ids = item.get("passages") or [item["passage_id"]]
    return [{"id": i, "text": by_id[i]} for i in ids]

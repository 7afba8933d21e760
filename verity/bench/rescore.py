"""Re-score recorded benchmark runs under the current gates, without a model.

Every record keeps the claims its pass stood for (and the raw model output they were
parsed from), so its verdicts are a pure function of those claims, the graph and the
gates: :func:`rescore_records` recomputes them. What cannot be recomputed offline is
what the model would have written had the repair prompt been built from the new
verdicts: repair passes keep the replacements the model wrote then. Records without
claims (parse or API errors) keep their (empty) verdicts.
"""

from __future__ import annotations

import gzip
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from verity.bench.records import (
    BenchRecord,
    VerdictRecord,
    load_records,
    record_line,
    verdict_records,
)
from verity.core.graph import EvidenceGraph, load_graph
from verity.core.verify import verify
from verity.errors import InputError
from verity.jsonio import path_text

__all__ = ["rescore_file", "rescore_records"]


def _verdicts(graph: EvidenceGraph, claims: Sequence[object], profile: str) -> list[VerdictRecord]:
    return verdict_records(
        verify(graph, {"graph_id": graph.graph_id, "claims": list(claims)}, profile)
    )


def rescore_records(
    records: Iterable[BenchRecord], graphs: Mapping[str, EvidenceGraph]
) -> list[BenchRecord]:
    """The records with their verdicts recomputed under the current gates (same order).
    Records of a ``--restate`` run are refused: their restatements and ``shipped_by``
    counts were checked under the gates of that run."""
    out = []
    for record in records:
        if record.restate:
            raise InputError(
                "a --restate run cannot be re-scored (its restatements rest on the gates "
                "that made them); run it again with --restate"
            )
        if not record.claims and record.status != "ok":
            out.append(record)
            continue
        graph = graphs.get(record.graph_id)
        if graph is None:
            raise InputError(f"no graph {record.graph_id!r} to re-score its records against")
        verdicts = {p: _verdicts(graph, record.claims, p) for p in record.verdicts}
        out.append(record.model_copy(update={"verdicts": verdicts}))
    return out


def _graphs(directory: Path, wanted: set[str]) -> dict[str, EvidenceGraph]:
    found: dict[str, EvidenceGraph] = {}
    for path in sorted(directory.glob("*.json")):
        graph = load_graph(path)
        if graph.graph_id in wanted:
            found[graph.graph_id] = graph
    return found


def rescore_file(results: str | Path, graph_dir: str | Path) -> tuple[Path, int, int]:
    """Rewrite ``results`` (``.jsonl`` or ``.jsonl.gz``) in place with re-scored verdicts.

    Returns the path, the records re-scored and the claim verdicts that changed. The
    file is written to a sibling temporary file first and then renamed, so an error
    leaves the original as it was.
    """
    path = Path(results)
    loaded = load_records(path)
    records = list(loaded.records)
    directory = Path(graph_dir)
    if not directory.is_dir():
        raise InputError(f"graph directory {path_text(directory)} does not exist")
    graphs = _graphs(directory, {r.graph_id for r in records})
    rescored = rescore_records(records, graphs)
    changed = sum(
        1
        for old, new in zip(records, rescored, strict=True)
        for p in old.verdicts
        for a, b in zip(old.verdicts[p], new.verdicts[p], strict=False)
        if a.codes != b.codes
    )
    text = "".join(record_line(r) for r in rescored).encode("utf-8")
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(gzip.compress(text, compresslevel=9, mtime=0) if path.suffix == ".gz" else text)
    tmp.replace(path)
    return path, len(rescored), changed

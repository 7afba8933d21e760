"""Benchmark records: one JSON line per instance and pass, and reading them back.

An *instance* is one (narrator, variant, graph) triple. Its first pass (``pass_index``
0) is narrated once and verified under every profile of the run; each repair pass
``k >= 1`` is run once per profile, driven by that profile's errors, so it carries the
``repair_profile`` and verdicts under that profile only. A pass the repair loop did not
run (nothing failed, or the narrator could not be reached) is still recorded, with
``status`` ``"carried"``: it repeats the previous pass's claims and verdicts, so that
every pass aggregates over the same instances.

Every record names the run settings it belongs to (``profiles``, ``repairs``, ``seed``,
and ``restate`` when on), so a file alone says which records make an instance complete.
A ``--restate`` run also records, on the record that ends each profile's repair loop (the
last pass; pass 0 when there are no repairs), how the claims that ship got through
(``shipped_by``: as written, after repair, restated) and what was restated (``restated``);
the pass's own ``claims`` and ``verdicts`` stay the narrator's, so survival per pass reads
the same with restate on or off. A run without ``--restate`` writes none of these keys.
Reading tolerates a partial last line (a run killed mid-write); any other unreadable line
is an input error.
"""

from __future__ import annotations

import gzip
import json
import re
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from verity.errors import InputError
from verity.formats import BENCH_RECORD_FORMAT
from verity.jsonio import path_text, read_bytes

if TYPE_CHECKING:
    from verity.core.graph import EvidenceGraph
    from verity.core.report import Report

__all__ = [
    "BenchRecord",
    "ErrorInfo",
    "InstanceKey",
    "LoadedRecords",
    "RecordKey",
    "RestatedClaim",
    "ShippedBy",
    "TokenUsage",
    "VerdictRecord",
    "cluster_of",
    "complete_instances",
    "expected_keys",
    "load_records",
    "opens_with_headline",
    "parse_record_lines",
    "record_line",
    "verdict_records",
]

_PROFILE_GOAL = re.compile(r"(?:^|[^A-Za-z0-9])(p\d+)[-_.:]([a-z][a-z0-9_]*?)(?:$|[-.:])")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ErrorInfo(_Model):
    """Why a pass produced no narration: a stable code and a message."""

    code: str
    message: str


class TokenUsage(_Model):
    """Token counts of the pass's narrator call (zero for carried passes)."""

    prompt_tokens: int = Field(default=0, ge=0)
    completion_tokens: int = Field(default=0, ge=0)


class ShippedBy(_Model):
    """How the claims a profile's narration ships got through
    (:meth:`verity.llm.repair.NarrationResult.shipped_by`)."""

    as_written: int = Field(ge=0)
    after_repair: int = Field(ge=0)
    restated: int = Field(ge=0)

    @property
    def shipped(self) -> int:
        return self.as_written + self.after_repair + self.restated


class RestatedClaim(_Model):
    """A claim shipped as its cited node's nearest declared sentence
    (:class:`verity.llm.repair.Restatement`): what ships and what the narrator wrote."""

    id: str
    node_id: str
    text: str
    restated_from: str


class VerdictRecord(_Model):
    """One claim's verdict under one profile, as recorded."""

    id: str
    type: str | None = None
    passed: bool
    codes: list[str] = Field(default_factory=list)
    errors: list[dict[str, Any]] = Field(default_factory=list)

    @property
    def gates(self) -> frozenset[str]:
        """The gates that rejected the claim (each counted once)."""
        return frozenset(str(e.get("gate", "")) for e in self.errors)


@dataclass(frozen=True, slots=True, order=True)
class InstanceKey:
    """What identifies an instance: narrator, variant and graph."""

    narrator: str
    variant: str
    graph_id: str


@dataclass(frozen=True, slots=True, order=True)
class RecordKey:
    """What identifies a record: its instance, its pass and the repair profile ("" at pass 0)."""

    instance: InstanceKey
    pass_index: int
    repair_profile: str


class BenchRecord(_Model):
    """One instance and pass of a benchmark run."""

    format: Literal["verity.bench_record/1"] = BENCH_RECORD_FORMAT
    graph_id: str = Field(min_length=1)
    cluster: str = Field(min_length=1)
    narrator: str = Field(min_length=1)
    simulated: bool
    variant: str = Field(min_length=1)
    pass_index: int = Field(ge=0)
    repair_profile: str | None
    profiles: list[str] = Field(min_length=1)
    repairs: int = Field(ge=0)
    seed: int
    #: ``ok``: a narration was read; ``parse_error``: output could not be read;
    #: ``api_error``: the request failed; ``carried``: no call, the previous pass repeated.
    status: Literal["ok", "parse_error", "api_error", "carried"]
    prompt_hash: str = ""
    raw_response: str = ""
    parse_error: ErrorInfo | None = None
    error: ErrorInfo | None = None
    claims: list[Any] = Field(default_factory=list)
    verdicts: dict[str, list[VerdictRecord]]
    usage: TokenUsage = Field(default_factory=TokenUsage)
    latency_s: float = Field(default=0.0, ge=0.0)
    finish_reason: str | None = None
    instance_wall_s: float | None = None
    #: Per profile of ``verdicts``: whether what the pass ships opens with a claim that
    #: narrates a headline node; absent for a graph without a headline.
    opens_with_headline: dict[str, bool] = Field(default_factory=dict)
    #: The run restated claims refused only by their words (``--restate``).
    restate: bool = False
    #: Per profile whose repair loop ends at this record: how what ships got through, and
    #: the claims restated (``--restate`` runs only).
    shipped_by: dict[str, ShippedBy] = Field(default_factory=dict)
    restated: dict[str, list[RestatedClaim]] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _consistent(self) -> BenchRecord:
        if len(set(self.profiles)) != len(self.profiles):
            raise ValueError("profiles repeat")
        if self.pass_index == 0:
            if self.repair_profile is not None:
                raise ValueError("pass 0 has no repair_profile")
            want = set(self.profiles)
        else:
            if self.repair_profile not in self.profiles:
                raise ValueError("a repair pass needs a repair_profile from profiles")
            if self.pass_index > self.repairs:
                raise ValueError("pass_index exceeds repairs")
            want = {self.repair_profile}
        if set(self.verdicts) != want:
            raise ValueError(f"verdicts must be given under exactly {sorted(want)}")
        if not set(self.opens_with_headline) <= want:
            raise ValueError("opens_with_headline names a profile without verdicts")
        if (self.shipped_by or self.restated) and not self.restate:
            raise ValueError("shipped_by and restated belong to a restate run")
        if not set(self.shipped_by) <= want or not set(self.restated) <= set(self.shipped_by):
            raise ValueError("shipped_by or restated names a profile without verdicts")
        return self

    @property
    def instance(self) -> InstanceKey:
        return InstanceKey(self.narrator, self.variant, self.graph_id)

    @property
    def key(self) -> RecordKey:
        return RecordKey(self.instance, self.pass_index, self.repair_profile or "")


def cluster_of(graph_id: str) -> str:
    """The bootstrap cluster of a graph: ``pNN-goal`` when the id names both, else the id.

    Card-rewards graph ids name the spend profile (``p07``) and the goal (``max_value``);
    any other graph is its own cluster.
    """
    match = _PROFILE_GOAL.search(graph_id)
    if match is None:
        return graph_id
    return f"{match.group(1)}-{match.group(2)}"


def expected_keys(instance: InstanceKey, profiles: Sequence[str], repairs: int) -> set[RecordKey]:
    """Every record key an instance has when complete."""
    keys = {RecordKey(instance, 0, "")}
    keys.update(RecordKey(instance, k, p) for k in range(1, repairs + 1) for p in profiles)
    return keys


def record_line(record: BenchRecord) -> str:
    """The record as one JSON line (keys sorted, newline at the end)."""
    data = record.model_dump(mode="json")
    if not data["opens_with_headline"]:
        del data["opens_with_headline"]  # records of graphs without a headline read as before
    for key in ("restate", "shipped_by", "restated"):
        if not data[key]:
            del data[key]  # records of a run without --restate read as before
    return json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":")) + "\n"


@dataclass(frozen=True)
class LoadedRecords:
    """Records read from a JSONL file, and what had to be left out."""

    records: tuple[BenchRecord, ...]
    #: Byte length of the readable part; anything after it is a partial last line.
    valid_bytes: int
    partial_tail: bool


def _parse_line(line: str, where: str) -> BenchRecord:
    try:
        data = json.loads(line)
    except ValueError as exc:
        raise InputError(f"{where} is not valid JSON: {exc}") from None
    if not isinstance(data, Mapping):
        raise InputError(f"{where} is not a JSON object")
    try:
        return BenchRecord.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in first["loc"]) or "(record)"
        raise InputError(f"{where} is not a benchmark record: {loc}: {first['msg']}") from None


def parse_record_lines(data: bytes, what: str = "results") -> LoadedRecords:
    """Parse JSONL bytes. A last line without its newline is a write the run did not
    finish: it is left out (``partial_tail``), whatever it holds."""
    records: list[BenchRecord] = []
    *lines, tail = data.split(b"\n")
    offset = 0
    for number, raw in enumerate(lines, start=1):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise InputError(f"{what} line {number} is not valid UTF-8") from None
        if text.strip():
            records.append(_parse_line(text, f"{what} line {number}"))
        offset += len(raw) + 1
    return LoadedRecords(tuple(records), offset, bool(tail))


def load_records(path: str | Path) -> LoadedRecords:
    """Read a results JSONL file, gzip-compressed when its name ends in ``.gz``
    (see :func:`parse_record_lines`)."""
    p = Path(path)
    data = read_bytes(p, "results file", max_bytes=None)
    if p.suffix == ".gz":
        try:
            data = gzip.decompress(data)
        except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
            raise InputError(
                f"results file {path_text(p)} is not a complete gzip file: {exc}"
            ) from None
    return parse_record_lines(data, f"results file {path_text(p)}")


def _dedupe(records: Iterable[BenchRecord]) -> dict[RecordKey, BenchRecord]:
    by_key: dict[RecordKey, BenchRecord] = {}
    for record in records:
        seen = by_key.get(record.key)
        if seen is None:
            by_key[record.key] = record
        elif seen != record:
            k = record.key
            raise InputError(
                f"two different records for {k.instance.narrator} {k.instance.variant} "
                f"{k.instance.graph_id} pass {k.pass_index} {k.repair_profile}".rstrip()
            )
    return by_key


def complete_instances(
    records: Iterable[BenchRecord],
) -> tuple[dict[InstanceKey, list[BenchRecord]], list[InstanceKey]]:
    """Group records by instance; return the complete instances and the incomplete keys.

    A complete instance has exactly the records its settings call for, all with the same
    settings. Identical duplicate records count once; differing duplicates are an error.
    Records are ordered by pass, then repair profile.
    """
    groups: dict[InstanceKey, list[BenchRecord]] = {}
    for record in _dedupe(records).values():
        groups.setdefault(record.instance, []).append(record)
    complete: dict[InstanceKey, list[BenchRecord]] = {}
    incomplete: list[InstanceKey] = []
    for key in sorted(groups):
        group = sorted(groups[key], key=lambda r: (r.pass_index, r.repair_profile or ""))
        first = group[0]
        same = all(
            (r.profiles, r.repairs, r.seed, r.restate, r.cluster, r.simulated)
            == (
                first.profiles,
                first.repairs,
                first.seed,
                first.restate,
                first.cluster,
                first.simulated,
            )
            for r in group
        )
        if same and {r.key for r in group} == expected_keys(key, first.profiles, first.repairs):
            complete[key] = group
        else:
            incomplete.append(key)
    return complete, incomplete


def verdict_records(report: Report | None) -> list[VerdictRecord]:
    """A report's per-claim verdicts as bench records (none without a report)."""
    if report is None:
        return []
    return [
        VerdictRecord(
            id=v.id,
            type=v.type,
            passed=v.passed,
            codes=[e.code for e in v.errors],
            errors=[e.model_dump(mode="json") for e in v.errors],
        )
        for v in report.claims
    ]


def opens_with_headline(graph: EvidenceGraph, report: Report | None) -> bool | None:
    """Whether what ``report`` ships opens with a claim narrating (first citing) a headline
    node of ``graph``; None when the graph has no headline node or there is no report."""
    heads = graph.headline_ids()
    if not heads or report is None:
        return None
    first = report.shipped[0].cited_evidence_ids if report.shipped else []
    return bool(first) and first[0] in heads

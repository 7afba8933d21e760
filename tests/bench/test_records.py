"""Benchmark records: validation, keys, reading JSONL with a torn last line, completeness."""

from __future__ import annotations

from typing import Any

import pytest

from tests.bench_support import records_from_compact, small_run
from verity import InputError
from verity.bench.records import (
    BenchRecord,
    InstanceKey,
    RecordKey,
    cluster_of,
    complete_instances,
    expected_keys,
    parse_record_lines,
    record_line,
)

RECORDS = records_from_compact(small_run())
DATA = "".join(record_line(r) for r in RECORDS).encode("utf-8")


@pytest.mark.parametrize(
    ("graph_id", "cluster"),
    [
        ("card_rewards-p07-max_value", "p07-max_value"),
        ("p12_two_cards", "p12-two_cards"),
        ("cr.p03.no_fee.v2", "p03-no_fee"),
        ("sales-by-region", "sales-by-region"),
        ("p7", "p7"),
    ],
)
def test_cluster_of(graph_id: str, cluster: str) -> None:
    assert cluster_of(graph_id) == cluster


def _base(**changes: Any) -> dict[str, Any]:
    data = RECORDS[0].model_dump(mode="json")
    data.update(changes)
    return data


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"repair_profile": "paper"}, "pass 0 has no repair_profile"),
        ({"pass_index": 1, "repair_profile": None}, "needs a repair_profile"),
        ({"pass_index": 2, "repair_profile": "paper"}, "exceeds repairs"),
        ({"verdicts": {"paper": []}}, "exactly"),
        ({"profiles": ["paper", "paper"]}, "repeat"),
        ({"status": "fine"}, "status"),
        ({"latency_s": -1}, "latency_s"),
        ({"extra": 1}, "extra"),
    ],
)
def test_inconsistent_records_are_rejected(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        BenchRecord.model_validate(_base(**changes))


def test_keys() -> None:
    first = RECORDS[0]
    inst = InstanceKey("fake", "grounded", "cr-p00-max_value")
    assert first.instance == inst
    assert first.key == RecordKey(inst, 0, "")
    assert expected_keys(inst, ["paper", "strict"], 1) == {
        RecordKey(inst, 0, ""),
        RecordKey(inst, 1, "paper"),
        RecordKey(inst, 1, "strict"),
    }


def test_round_trip_and_complete() -> None:
    loaded = parse_record_lines(DATA)
    assert loaded.records == tuple(RECORDS)
    assert (loaded.valid_bytes, loaded.partial_tail) == (len(DATA), False)
    complete, incomplete = complete_instances(loaded.records)
    assert len(complete) == 6 and incomplete == []


@pytest.mark.parametrize("cut", [1, 10, -2, -1, None])
def test_a_torn_last_line_is_left_out(cut: int | None) -> None:
    lines = DATA.split(b"\n")[:-1]
    last = lines[-1]
    torn = b"\n".join(lines[:-1]) + b"\n" + last[:cut]
    loaded = parse_record_lines(torn)
    assert loaded.partial_tail
    assert len(loaded.records) == len(RECORDS) - 1
    assert loaded.valid_bytes == len(torn) - len(last[:cut])
    complete, incomplete = complete_instances(loaded.records)
    assert len(complete) == 5 and len(incomplete) == 1


def test_a_bad_line_inside_the_file_is_an_error() -> None:
    lines = DATA.split(b"\n")
    lines[2] = lines[2][:20]
    with pytest.raises(InputError, match="line 3 is not valid JSON"):
        parse_record_lines(b"\n".join(lines))
    with pytest.raises(InputError, match="line 1 is not a benchmark record"):
        parse_record_lines(b'{"format": "x"}\n')
    with pytest.raises(InputError, match="not a JSON object"):
        parse_record_lines(b"[1]\n")


def test_blank_lines_are_skipped() -> None:
    assert parse_record_lines(b"\n\n" + DATA).records == tuple(RECORDS)


def test_duplicates_identical_collapse_and_conflicting_fail() -> None:
    complete, _ = complete_instances([*RECORDS, RECORDS[0]])
    assert len(complete) == 6
    other = RECORDS[0].model_copy(update={"raw_response": "different"})
    with pytest.raises(InputError, match="two different records"):
        complete_instances([*RECORDS, other])


def test_mixed_settings_make_an_instance_incomplete() -> None:
    changed = [RECORDS[0].model_copy(update={"seed": 9}), *RECORDS[1:]]
    complete, incomplete = complete_instances(changed)
    assert RECORDS[0].instance in incomplete
    assert len(complete) == 5

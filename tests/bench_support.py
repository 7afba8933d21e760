"""Helpers for the benchmark tests: records from the compact fixture format."""

from __future__ import annotations

from typing import Any

from tests.helpers import FIXTURES, load_json
from verity.bench.records import BenchRecord, VerdictRecord, cluster_of

BENCH = FIXTURES / "bench"


def verdict(token: str, index: int) -> VerdictRecord:
    """``TYPE`` is a passing claim; ``TYPE:code+code`` a failing one with those codes."""
    kind, _, codes = token.partition(":")
    errors = [
        {
            "gate": code.split(".")[0],
            "code": code,
            "message": code,
            "expected": None,
            "actual": None,
        }
        for code in codes.split("+")
        if code
    ]
    return VerdictRecord(
        id=f"c{index}",
        type=kind,
        passed=not errors,
        codes=[e["code"] for e in errors],
        errors=errors,
    )


def _claims(tokens: list[str]) -> list[dict[str, Any]]:
    return [
        {"id": f"c{i}", "type": t.partition(":")[0], "text": f"claim {i}"}
        for i, t in enumerate(tokens, start=1)
    ]


def records_from_compact(data: dict[str, Any], seed: int = 0) -> list[BenchRecord]:
    """Expand the compact run description of ``small_run.json`` into records."""
    profiles: list[str] = data["profiles"]
    repairs: int = data["repairs"]
    out: list[BenchRecord] = []
    for inst in data["instances"]:
        passes = inst["passes"]
        base = {
            "graph_id": inst["graph_id"],
            "cluster": cluster_of(inst["graph_id"]),
            "narrator": inst["narrator"],
            "simulated": inst.get("simulated", False),
            "variant": inst["variant"],
            "profiles": profiles,
            "repairs": repairs,
            "seed": seed,
        }
        status0, tokens0 = passes[profiles[0]][0]
        out.append(
            BenchRecord(
                **base,
                pass_index=0,
                repair_profile=None,
                status=status0,
                claims=_claims(tokens0),
                verdicts={
                    p: [verdict(t, i) for i, t in enumerate(passes[p][0][1], start=1)]
                    for p in profiles
                },
            )
        )
        for profile in profiles:
            for k in range(1, repairs + 1):
                status, tokens = passes[profile][k]
                out.append(
                    BenchRecord(
                        **base,
                        pass_index=k,
                        repair_profile=profile,
                        status=status,
                        claims=_claims(tokens),
                        verdicts={profile: [verdict(t, i) for i, t in enumerate(tokens, start=1)]},
                    )
                )
    return out


def small_run() -> dict[str, Any]:
    data: dict[str, Any] = load_json(BENCH / "small_run.json")
    return data

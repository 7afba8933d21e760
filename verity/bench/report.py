"""The benchmark report, rebuilt from the results JSONL alone.

Files written to the output directory:

- ``summary.json``: every figure of the report as data. A pure function of the recorded
  results (and of the resample count): no timings, dates or paths, keys sorted, floats
  rounded, so identical results give an identical file whatever their line order.
- ``report.md``: tables shaped like the published ones (survival and shipped claims per
  pass with failing claims per gate; paired deltas with intervals and significance; gate-4
  messages per claim type), plus our columns: the constrained variant, both profiles, the
  best-of policy. Also built from the summary alone.
- In a ``--restate`` run, ``summary.json`` also holds ``restated`` and report.md a table
  per profile: the share of shipped claims that shipped restated, with its interval.
- ``timing.json``: latency and throughput; the only file that depends on the clock.
- ``survival.png``, ``failing_by_gate.png`` and ``cost.png`` (model seconds per verified
  claim, log scale) (matplotlib, Agg backend), when matplotlib is installed
  (``verity-evidence[bench]``).

Cost per verified claim (model seconds and tokens per shipped verified claim) is in the
summary and the report too: it is computed from the latencies and token counts the records
hold, so it is still a function of the records alone, but two runs of the same benchmark
differ in its seconds (the machine and its load), not in its tokens.

Results from simulated narrators are marked ``(simulated)`` wherever a narrator is named.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from verity.bench import DEFAULT_RESAMPLES
from verity.bench.records import BenchRecord, load_records
from verity.bench.stats import (
    GATE4,
    Analysis,
    CellStats,
    Comparison,
    Interval,
    RestatedStats,
    analyze,
    gate_order,
    pass_label,
)
from verity.errors import InputError
from verity.files import staged_dir
from verity.formats import BENCH_SUMMARY_FORMAT, BENCH_TIMING_FORMAT
from verity.jsonio import dumps

__all__ = [
    "FIGURES",
    "SUMMARY_FORMAT",
    "ReportFiles",
    "build_report",
    "narrator_label",
    "render_markdown",
    "summary_dict",
    "timing_dict",
    "write_figures",
]

SUMMARY_FORMAT = BENCH_SUMMARY_FORMAT
FIGURES: tuple[str, ...] = ("survival.png", "failing_by_gate.png", "cost.png")
_DIGITS = 6
_PAPER_GATES = ("evidence", "entity", "number", "claim_type")
_GATE_HEADS = {
    "schema": "Schema",
    "evidence": "Evid.",
    "entity": "Ent.",
    "number": "Num.",
    "claim_type": "Type",
    "prose": "Prose",
    "polarity": "Pol.",
    "duplicate": "Dup.",
}


def narrator_label(name: str, simulated: bool) -> str:
    """A narrator's name, marked when its results are simulated (once)."""
    return f"{name} (simulated)" if simulated and "(simulated)" not in name else name


def _round(value: float | None) -> float | None:
    if value is None or not math.isfinite(value):
        return None
    out = round(value, _DIGITS)
    return 0.0 if out == 0 else out


def _interval(iv: Interval) -> dict[str, Any]:
    return {
        "delta": _round(iv.estimate),
        "low": _round(iv.low),
        "high": _round(iv.high),
        "significant": iv.significant,
        "clusters": iv.clusters,
        "undefined": iv.undefined,
    }


def _cell(c: CellStats) -> dict[str, Any]:
    k = c.counts
    return {
        "narrator": c.narrator,
        "simulated": c.simulated,
        "variant": c.variant,
        "profile": c.profile,
        "pass": pass_label(c.which),
        "instances": k.instances,
        "claims": k.claims,
        "passed": k.passed,
        "failing_claims": k.failing_claims,
        "survival": _round(k.survival),
        "survival_ci": [_round(c.survival_ci.low), _round(c.survival_ci.high)],
        "shipped_per_instance": _round(k.shipped_per_instance),
        "failing_by_gate": k.failing_by_gate,
        "gate4_share": _round(k.gate4_share),
        "gate4_messages_by_type": k.gate4_messages_by_type,
        "statuses": k.statuses,
        "repeated_shipped": k.repeated_shipped,
        "cost": {
            "model_s": _round(k.model_s),
            "prompt_tokens": k.prompt_tokens,
            "completion_tokens": k.completion_tokens,
            "s_per_verified": _round(k.s_per_verified),
            "tokens_per_verified": _round(k.tokens_per_verified),
        },
        **(
            {
                "headline": {
                    "instances": k.headline_instances,
                    "opens": k.opens_with_headline,
                    "share": _round(k.headline_share),
                }
            }
            if k.headline_instances
            else {}
        ),
    }


def _comparison(c: Comparison) -> dict[str, Any]:
    return {
        "kind": c.kind,
        "narrator": c.narrator,
        "simulated": c.simulated,
        "profile": c.profile,
        "within": c.within,
        "before": c.before,
        "after": c.after,
        "pairs": c.pairs,
        "survival": _interval(c.survival),
        "shipped": _interval(c.shipped),
        **{
            name: _interval(iv)
            for name, iv in (
                ("s_per_verified", c.seconds),
                ("tokens_per_verified", c.tokens),
                ("opens_with_headline", c.headline),
            )
            if iv is not None and iv.estimate is not None
        },
    }


def _restated(r: RestatedStats) -> dict[str, Any]:
    return {
        "narrator": r.narrator,
        "simulated": r.simulated,
        "variant": r.variant,
        "profile": r.profile,
        "instances": r.instances,
        "shipped": r.shipped,
        "as_written": r.as_written,
        "after_repair": r.after_repair,
        "restated": r.restated,
        "share": _round(r.share.estimate),
        "share_ci": [_round(r.share.low), _round(r.share.high)],
    }


def summary_dict(analysis: Analysis, seeds: Sequence[int]) -> dict[str, Any]:
    """The analysis as JSON-ready data (see the module docstring); ``restated`` only in a
    ``--restate`` run."""
    restated = [_restated(r) for r in analysis.restated]
    return {
        "format": SUMMARY_FORMAT,
        "bootstrap": {
            "seed": analysis.seed,
            "resamples": analysis.resamples,
            "level": analysis.level,
            "clusters": "profile x goal (the graph id's pNN-goal; else the graph)",
            "interval": "percentile",
        },
        "run_seeds": sorted(set(seeds)),
        "instances": analysis.instances,
        "incomplete_instances": len(analysis.incomplete),
        "narrators": [{"name": n, "simulated": analysis.simulated[n]} for n in analysis.narrators],
        "variants": analysis.variants,
        "profiles": analysis.profiles,
        "repairs": analysis.repairs,
        "cells": [_cell(c) for c in analysis.cells],
        "comparisons": [_comparison(c) for c in analysis.comparisons],
        **({"restated": restated} if restated else {}),
    }


# --- markdown ------------------------------------------------------------------------


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def _num(value: float | None, digits: int = 2) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def _signed(value: float | None, scale: float, digits: int) -> str:
    return "n/a" if value is None else f"{scale * value:+.{digits}f}"


def _delta(d: Mapping[str, Any], *, points: bool) -> str:
    scale, digits, unit = (100.0, 1, " pts") if points else (1.0, 2, "")
    est = _signed(d["delta"], scale, digits)
    if d["low"] is None or d["high"] is None:
        return f"{est}{unit} [n/a]"
    return f"{est}{unit} [{_signed(d['low'], scale, digits)}, {_signed(d['high'], scale, digits)}]"


def _sig(d: Mapping[str, Any]) -> str:
    return "yes" if d["significant"] else "no"


def _table(head: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    lines.extend("| " + " | ".join(row) + " |" for row in rows)
    return lines


def _label(summary: Mapping[str, Any], name: str) -> str:
    sim = {n["name"]: n["simulated"] for n in summary["narrators"]}
    return narrator_label(name, bool(sim.get(name)))


def _cells_by(summary: Mapping[str, Any]) -> dict[tuple[str, str, str, str], dict[str, Any]]:
    return {(c["narrator"], c["variant"], c["profile"], c["pass"]): c for c in summary["cells"]}


def _main_table(summary: Mapping[str, Any], profile: str) -> list[str]:
    cells = _cells_by(summary)
    passes = [f"r{k}" for k in range(summary["repairs"] + 1)]
    last = passes[-1]
    gates = gate_order(
        g for c in summary["cells"] if c["profile"] == profile for g in c["failing_by_gate"]
    )
    gates = gate_order([*gates, *_PAPER_GATES])
    head = (
        ["Narrator", "Variant"]
        + [f"Survival {p}" for p in passes]
        + ["Survival best-of"]
        + [f"Shipped/inst. {p}" for p in passes]
        + ["Shipped/inst. best-of"]
        + [f"{_GATE_HEADS.get(g, g)} ({last})" for g in gates]
        + [f"Type share ({last})"]
    )
    rows: list[list[str]] = []
    for narrator in (n["name"] for n in summary["narrators"]):
        for variant in summary["variants"]:
            if (narrator, variant, profile, "r0") not in cells:
                continue
            row = [_label(summary, narrator), variant]
            chain = [cells.get((narrator, variant, profile, p)) for p in [*passes, "best"]]
            row += [_pct(c["survival"]) if c else "n/a" for c in chain]
            row += [_num(c["shipped_per_instance"]) if c else "n/a" for c in chain]
            final = chain[-2]
            row += [str(final["failing_by_gate"].get(g, 0)) if final else "n/a" for g in gates]
            row.append(_pct(final["gate4_share"]) if final else "n/a")
            rows.append(row)
    return _table(head, rows)


_COMPARISON_HEADS = {
    # kind: (label of the "within" column, label of the compared pair, how the pair reads)
    "repair": ("Variant", "Passes", "{before} → {after}"),
    "variant": ("Pass", "Variants", "{after} − {before}"),
}


def _ci(low: float | None, high: float | None) -> str:
    return "[n/a]" if low is None or high is None else f"[{_pct(low)}, {_pct(high)}]"


def _restated_table(summary: Mapping[str, Any], profile: str) -> list[str]:
    """The ways shipped claims got through and the restated share (``--restate`` runs);
    [] when the run did not restate."""
    rows = [
        [
            _label(summary, r["narrator"]),
            r["variant"],
            str(r["instances"]),
            str(r["shipped"]),
            str(r["as_written"]),
            str(r["after_repair"]),
            str(r["restated"]),
            f"{_pct(r['share'])} {_ci(*r['share_ci'])}",
        ]
        for r in summary.get("restated", [])
        if r["profile"] == profile
    ]
    if not rows:
        return []
    head = [
        "Narrator",
        "Variant",
        "Instances",
        "Shipped",
        "As written",
        "After repair",
        "Restated",
        "Restated share [95% CI]",
    ]
    return [
        "",
        "### Shipped restated",
        "",
        f"With --restate, a claim of the last pass (r{summary['repairs']}) refused only by its "
        "words ships as its cited node's nearest declared sentence, without a model call. "
        "Shipped: the claims that ship, by how they got through (as written at r0, after a "
        "repair, restated); the survival columns above count the narrator's own claims. "
        "Restated share: restated over shipped, a ratio of sums with the cluster bootstrap "
        "interval.",
        "",
        *_table(head, rows),
    ]


def _comparison_table(summary: Mapping[str, Any], profile: str, kind: str) -> list[str]:
    """Paired deltas of one kind ("repair" or "variant") under one profile."""
    within, pair, shape = _COMPARISON_HEADS[kind]
    head = [
        "Narrator",
        within,
        pair,
        "Pairs",
        "Δ survival [95% CI]",
        "Sig.",
        "Δ shipped/inst. [95% CI]",
        "Sig.",
    ]
    rows = [
        [
            _label(summary, c["narrator"]),
            c["within"],
            shape.format(before=c["before"], after=c["after"]),
            str(c["pairs"]),
            _delta(c["survival"], points=True),
            _sig(c["survival"]),
            _delta(c["shipped"], points=False),
            _sig(c["shipped"]),
        ]
        for c in summary["comparisons"]
        if c["kind"] == kind and c["profile"] == profile
    ]
    return _table(head, rows)


def _cost_comparison_table(summary: Mapping[str, Any], profile: str) -> list[str]:
    """Paired deltas of cost and of opening with the headline between prompt variants."""
    head = [
        "Narrator",
        "Pass",
        "Variants",
        "Pairs",
        "Δ s / verified claim [95% CI]",
        "Δ tokens / verified claim [95% CI]",
        "Δ opens with headline [95% CI]",
    ]

    def cell(c: Mapping[str, Any], key: str, points: bool) -> str:
        return _delta(c[key], points=points) if key in c else "n/a"

    rows = [
        [
            _label(summary, c["narrator"]),
            c["within"],
            f"{c['after']} − {c['before']}",
            str(c["pairs"]),
            cell(c, "s_per_verified", False),
            cell(c, "tokens_per_verified", False),
            cell(c, "opens_with_headline", True),
        ]
        for c in summary["comparisons"]
        if c["kind"] == "variant"
        and c["profile"] == profile
        and any(k in c for k in ("s_per_verified", "tokens_per_verified", "opens_with_headline"))
    ]
    return _table(head, rows) if rows else []


def _gate4_table(summary: Mapping[str, Any], profile: str) -> list[str]:
    last = f"r{summary['repairs']}"
    cols = [c for c in summary["cells"] if c["profile"] == profile and c["pass"] == last]
    kinds = sorted(
        {k for c in cols for k in c["gate4_messages_by_type"]},
        key=lambda k: (-sum(c["gate4_messages_by_type"].get(k, 0) for c in cols), k),
    )
    head = ["Claim type"] + [f"{_label(summary, c['narrator'])} {c['variant']}" for c in cols]
    totals = [sum(c["gate4_messages_by_type"].values()) for c in cols]
    rows: list[list[str]] = []
    for kind in kinds:
        row = [kind]
        for c, total in zip(cols, totals, strict=True):
            n = c["gate4_messages_by_type"].get(kind, 0)
            row.append(f"{n} ({_pct(n / total) if total else 'n/a'})")
        rows.append(row)
    rows.append(["Total messages", *(str(t) for t in totals)])
    rows.append(
        [
            "Distinct failing claims (gate 4)",
            *(str(c["failing_by_gate"].get(GATE4, 0)) for c in cols),
        ]
    )
    return _table(head, rows)


def _headline(cell: Mapping[str, Any]) -> str:
    found = cell.get("headline")
    if not found:
        return "n/a"
    return f"{_pct(found['share'])} ({found['opens']} of {found['instances']})"


def _cost_table(summary: Mapping[str, Any], profile: str) -> list[str]:
    cells = _cells_by(summary)
    passes = ["r0", "best"]
    head = [
        "Narrator",
        "Variant",
        "Pass",
        "Verified shipped",
        "Repeated shipped",
        "Model s",
        "Tokens",
        "s / verified claim",
        "Tokens / verified claim",
        "s / claim ÷ constrained",
        "Opens with headline",
    ]
    rows: list[list[str]] = []
    for narrator in (n["name"] for n in summary["narrators"]):
        for which in passes:
            base = cells.get((narrator, "constrained", profile, which))
            base_cost = base["cost"]["s_per_verified"] if base and "cost" in base else None
            for variant in summary["variants"]:
                c = cells.get((narrator, variant, profile, which))
                if c is None or "cost" not in c:
                    continue
                cost = c["cost"]
                per = cost["s_per_verified"]
                ratio = f"{per / base_cost:.4f}" if per is not None and base_cost else "n/a"
                rows.append(
                    [
                        _label(summary, narrator),
                        variant,
                        which,
                        str(c["passed"]),
                        str(c.get("repeated_shipped", 0)),
                        _num(cost["model_s"], 1),
                        str(cost["prompt_tokens"] + cost["completion_tokens"]),
                        _num(per, 2),
                        _num(cost["tokens_per_verified"], 0),
                        ratio,
                        _headline(c),
                    ]
                )
    return _table(head, rows)


def _outcome_table(summary: Mapping[str, Any]) -> list[str]:
    statuses = sorted({s for c in summary["cells"] for s in c["statuses"]})
    head = ["Narrator", "Variant", "Profile", "Pass", "Instances", *statuses, "Claims"]
    rows = [
        [
            _label(summary, c["narrator"]),
            c["variant"],
            c["profile"],
            c["pass"],
            str(c["instances"]),
            *(str(c["statuses"].get(s, 0)) for s in statuses),
            str(c["claims"]),
        ]
        for c in summary["cells"]
        if c["pass"] != "best"
    ]
    return _table(head, rows)


#: Fewer bootstrap clusters than this make the report warn that Sig. is unreliable.
MIN_CLUSTERS = 10


def _few_clusters_warning(summary: Mapping[str, Any], profile: str) -> list[str]:
    counts = [
        iv["clusters"]
        for c in summary["comparisons"]
        if c["profile"] == profile
        for iv in (c["survival"], c["shipped"])
        if iv.get("clusters") is not None
    ]
    if not counts or min(counts) >= MIN_CLUSTERS:
        return []
    return [
        "",
        f"**Warning:** some intervals rest on only {min(counts)} clusters. A percentile "
        f"bootstrap over fewer than {MIN_CLUSTERS} clusters has too few distinct resamples "
        "to cover reliably: read Sig. as indicative, not as a test.",
    ]


def render_markdown(summary: Mapping[str, Any], figures: Sequence[str] = ()) -> str:
    """report.md from the summary alone."""
    b = summary["bootstrap"]
    names = ", ".join(_label(summary, n["name"]) for n in summary["narrators"]) or "none"
    out = [
        "# Benchmark report",
        "",
        f"Narrators: {names}. Variants: {', '.join(summary['variants']) or 'none'}. "
        f"Profiles: {', '.join(summary['profiles']) or 'none'}. "
        f"Repair passes: {summary['repairs']}. Complete instances: {summary['instances']}"
        + (
            f" ({summary['incomplete_instances']} incomplete, left out)."
            if summary["incomplete_instances"]
            else "."
        ),
        "",
        "Survival is passing claims over parsed claims (a ratio of sums over instances); "
        "shipped/inst. is verified claims per instance; best-of ships, per instance, the pass "
        "with more verified claims. Gate columns count distinct failing claims once per gate at "
        "the last pass, so they do not add up to the failing total; the type share is the share "
        "of failing claims that gate 4 (claim-type rules) rejected.",
        "",
        f"Intervals: {int(b['level'] * 100)}% percentile cluster bootstrap, {b['resamples']} "
        f"resamples, seed {b['seed']}, clusters = {b['clusters']}; ratio of sums inside each "
        "resample. Sig. = the interval excludes zero.",
    ]
    if any(n["simulated"] for n in summary["narrators"]):
        out += [
            "",
            "Rows marked (simulated) come from the scripted simulator, not from a "
            "language model: they exercise the pipeline and do not measure any model.",
        ]
    for profile in summary["profiles"]:
        out += [
            "",
            f"## Profile {profile}",
            "",
            "### Survival, shipped claims and failing claims per gate",
            "",
        ]
        out += _main_table(summary, profile)
        out += _restated_table(summary, profile)
        out += ["", "### Paired change after repair", ""]
        out += _comparison_table(summary, profile, "repair")
        out += ["", "### Paired change between prompt variants", ""]
        out += _comparison_table(summary, profile, "variant")
        out += _few_clusters_warning(summary, profile)
        out += [
            "",
            f"### Gate-4 messages per claim type at r{summary['repairs']}",
            "",
            "Messages, not claims: a claim that misses two required node types carries "
            "two messages.",
            "",
        ]
        out += _gate4_table(summary, profile)
        out += [
            "",
            "### Cost per verified claim",
            "",
            "Model seconds and tokens spent up to the pass (best-of: every pass) over the "
            "verified claims shipped; n/a when nothing shipped. Seconds are recorded "
            "latencies and depend on the machine's load; tokens do not. Repeated shipped: "
            "verified claims whose text an earlier verified claim of the pass states. Opens "
            "with headline: instances whose shipped narration opens with a claim narrating a "
            "headline node, of those on graphs that mark one.",
            "",
        ]
        out += _cost_table(summary, profile)
        paired_cost = _cost_comparison_table(summary, profile)
        if paired_cost:
            out += [
                "",
                "Paired change in cost and in opening with the headline between prompt "
                "variants (the same graphs; seconds and tokens per verified claim as above, "
                "ratio of sums in each resample; opens with headline: the shipped narration's "
                "first claim narrates a headline node, on graphs that mark one):",
                "",
            ]
            out += paired_cost
    out += [
        "",
        "## Outcomes per pass",
        "",
        "ok: a narration was read; parse_error: output that could not be read; api_error: "
        "the request failed; carried: no repair call was made, the previous pass stands.",
        "",
    ]
    out += _outcome_table(summary)
    if figures:
        out += ["", "## Figures", ""]
        out += [f"![{Path(f).stem}]({f})" for f in figures]
    return "\n".join(out) + "\n"


# --- timing --------------------------------------------------------------------------


def _quantile(values: Sequence[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    pos = q * (len(ordered) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def _timing_group(records: Sequence[BenchRecord]) -> dict[str, Any]:
    called = [r for r in records if r.status != "carried"]
    lat = [r.latency_s for r in called]
    total = sum(lat)
    by_instance: dict[Any, list[BenchRecord]] = {}
    for r in records:
        by_instance.setdefault(r.instance, []).append(r)
    wall = model = 0.0
    timed = 0
    for group in by_instance.values():
        first = [r for r in group if r.pass_index == 0 and r.instance_wall_s is not None]
        if first and first[0].instance_wall_s is not None:
            timed += 1
            wall += first[0].instance_wall_s
            model += sum(r.latency_s for r in group if r.status != "carried")
    completion = sum(r.usage.completion_tokens for r in called)
    return {
        "narrator_calls": len(called),
        "api_errors": sum(r.status == "api_error" for r in called),
        "latency_s": {
            "total": round(total, 3),
            "mean": _r3(statistics.fmean(lat)) if lat else None,
            "median": _r3(_quantile(lat, 0.5)),
            "p95": _r3(_quantile(lat, 0.95)),
            "max": _r3(max(lat)) if lat else None,
        },
        "tokens": {"prompt": sum(r.usage.prompt_tokens for r in called), "completion": completion},
        "completion_tokens_per_s": round(completion / total, 2) if total > 0 else None,
        "instances_timed": timed,
        "instance_wall_s": round(wall, 3),
        "instances_per_s": round(timed / wall, 4) if wall > 0 else None,
        "share_outside_model": round(max(0.0, 1.0 - model / wall), 4) if wall > 0 else None,
    }


def _r3(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def timing_dict(records: Sequence[BenchRecord]) -> dict[str, Any]:
    """Latency and throughput per narrator and variant, and overall."""
    groups: dict[str, list[BenchRecord]] = {}
    for r in records:
        groups.setdefault(f"{narrator_label(r.narrator, r.simulated)} | {r.variant}", []).append(r)
    return {
        "format": BENCH_TIMING_FORMAT,
        "note": "latency_s is time inside the narrator call; instance_wall_s covers every "
        "pass of an instance under every profile, verification included",
        "overall": _timing_group(records),
        "groups": {k: _timing_group(v) for k, v in sorted(groups.items())},
    }


# --- figures -------------------------------------------------------------------------


def _pyplot() -> Any:
    try:
        import matplotlib
    except ImportError:
        return None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


_Series = tuple[str, list[float], list[tuple[float, float]] | None]


def _bar_groups(ax: Any, groups: Sequence[str], series: Sequence[_Series]) -> None:
    width = 0.8 / max(1, len(series))
    for s, (name, values, errs) in enumerate(series):
        xs = [g + (s - (len(series) - 1) / 2) * width for g in range(len(groups))]
        yerr = None
        if errs is not None:
            yerr = [
                [max(0.0, v - lo) for v, (lo, _) in zip(values, errs, strict=True)],
                [max(0.0, hi - v) for v, (_, hi) in zip(values, errs, strict=True)],
            ]
        ax.bar(xs, values, width, label=name, yerr=yerr, capsize=2)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(groups, rotation=30, ha="right", fontsize=7)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)


def _pass_legend(p: str) -> str:
    if p == "best":
        return "best-of (per instance, the pass with more verified claims)"
    k = int(p[1:])
    return "r0: first narration" if k == 0 else f"r{k}: after repair pass {k}"


def write_figures(summary: Mapping[str, Any], out_dir: Path) -> list[str]:
    """Write the PNG figures; return their file names ([] without matplotlib or data)."""
    plt = _pyplot()
    if plt is None or not summary["cells"]:
        return []
    cells = _cells_by(summary)
    profiles = summary["profiles"]
    passes = [f"r{k}" for k in range(summary["repairs"] + 1)] + ["best"]
    last = f"r{summary['repairs']}"
    rows = [(n["name"], v) for n in summary["narrators"] for v in summary["variants"]]

    size = (max(7.0, 1.2 * len(rows) + 4.0), 4.0 * len(profiles))
    fig, axes = plt.subplots(len(profiles), 1, figsize=size, squeeze=False)
    for ax, profile in zip(axes[:, 0], profiles, strict=True):
        present = [(n, v) for n, v in rows if (n, v, profile, "r0") in cells]
        labels = [
            f"{_label(summary, n)}\n{v} (n={cells[(n, v, profile, 'r0')]['instances']})"
            for n, v in present
        ]
        series: list[_Series] = []
        for p in passes:
            cs = [cells.get((n, v, profile, p)) for n, v in present]
            values = [100 * (c["survival"] or 0.0) if c else 0.0 for c in cs]
            errs = [
                (100 * (c["survival_ci"][0] or 0.0), 100 * (c["survival_ci"][1] or 0.0))
                if c and c["survival_ci"][0] is not None
                else (v, v)
                for c, v in zip(cs, values, strict=True)
            ]
            series.append((_pass_legend(p), values, errs))
        _bar_groups(ax, labels, series)
        ax.set_title(f"Claim survival, profile {profile} (95% cluster bootstrap)", fontsize=9)
        ax.set_ylabel("passing / parsed claims (%)")
        ax.set_ylim(0, 105)
    fig.tight_layout()
    fig.savefig(out_dir / FIGURES[0], dpi=120)
    plt.close(fig)

    fig, axes = plt.subplots(len(profiles), 1, figsize=size, squeeze=False)
    for ax, profile in zip(axes[:, 0], profiles, strict=True):
        final = [
            (n, v, cells[(n, v, profile, last)]) for n, v in rows if (n, v, profile, last) in cells
        ]
        gates = gate_order([*_PAPER_GATES, *(g for _, _, c in final for g in c["failing_by_gate"])])
        bars: list[_Series] = [
            (
                f"{_label(summary, n)} {v}",
                [float(c["failing_by_gate"].get(g, 0)) for g in gates],
                None,
            )
            for n, v, c in final
        ]
        _bar_groups(
            ax,
            [_GATE_HEADS.get(g, g) for g in gates] or ["(none)"],
            bars or [("none", [0.0], None)],
        )
        if not any(v for _, values, _ in bars for v in values):
            ax.set_ylim(0, 1)
            ax.text(
                0.5,
                0.5,
                f"no failing claims at {last}",
                transform=ax.transAxes,
                ha="center",
                va="center",
                fontsize=10,
            )
        ax.set_title(f"Distinct failing claims per gate at {last}, profile {profile}", fontsize=9)
        ax.set_ylabel("failing claims (once per gate)")
        ax.yaxis.get_major_locator().set_params(integer=True)
    fig.tight_layout()
    fig.savefig(out_dir / FIGURES[1], dpi=120)
    plt.close(fig)
    _cost_figure(plt, summary, out_dir / FIGURES[2])
    return list(FIGURES)


def _cost_figure(plt: Any, summary: Mapping[str, Any], path: Path) -> None:
    """Model seconds per verified claim (best-of), per narrator and variant, log scale."""
    cells = _cells_by(summary)
    rows = [(n["name"], v) for n in summary["narrators"] for v in summary["variants"]]
    labels = [f"{_label(summary, n)}\n{v}" for n, v in rows]
    series: list[_Series] = []
    for profile in summary["profiles"]:
        values: list[float] = []
        for n, v in rows:
            c = cells.get((n, v, profile, "best"))
            per = c["cost"]["s_per_verified"] if c and "cost" in c else None
            values.append(float(per) if per else 0.0)
        series.append((f"profile {profile}", values, None))
    fig, ax = plt.subplots(figsize=(max(7.0, 1.2 * len(rows) + 4.0), 4.0))
    _bar_groups(ax, labels or ["(none)"], series or [("none", [0.0], None)])
    if any(v > 0 for _, values, _ in series for v in values):
        ax.set_yscale("log")
    ax.set_title(
        "Model seconds per verified claim shipped (best-of; no bar: none shipped)", fontsize=9
    )
    ax.set_ylabel("seconds per verified claim (log)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


# --- the whole report ----------------------------------------------------------------


@dataclass(frozen=True)
class ReportFiles:
    """What :func:`build_report` wrote."""

    out_dir: Path
    files: tuple[str, ...]
    instances: int
    incomplete: int
    partial_tail: bool


def _dump(data: Any) -> str:
    return dumps(data, sort_keys=True)


def build_report(
    results: str | Path,
    out_dir: str | Path,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    figures: bool = True,
) -> ReportFiles:
    """Read the results JSONL and write the report files into ``out_dir``: into a hidden
    sibling first, moved in together when all are written (:func:`verity.files.staged_dir`).

    The bootstrap seed is the run seed the records carry (the smallest, if several).
    """
    if resamples < 1:
        raise InputError("resamples must be at least 1")
    loaded = load_records(results)
    records = list(loaded.records)
    seeds = sorted({r.seed for r in records})
    analysis = analyze(records, seed=seeds[0] if seeds else 0, resamples=resamples)
    summary = summary_dict(analysis, seeds)
    out = Path(out_dir)
    with staged_dir(out) as staging:
        try:
            (staging / "summary.json").write_text(_dump(summary), "utf-8")
            (staging / "timing.json").write_text(_dump(timing_dict(records)), "utf-8")
            pngs = write_figures(summary, staging) if figures else []
            (staging / "report.md").write_text(render_markdown(summary, pngs), "utf-8")
        except OSError as exc:
            raise InputError(f"cannot write the report to {out}: {exc.strerror or exc}") from None
    files = ("report.md", "summary.json", "timing.json", *pngs)
    return ReportFiles(
        out, files, analysis.instances, len(analysis.incomplete), loaded.partial_tail
    )

"""Benchmark statistics: counting per cell, the best-of policy, cluster-bootstrap intervals.

A *cell* is narrator x variant x profile x pass. Per cell: claim survival (passing claims /
parsed claims, a ratio of sums), shipped claims per instance (passing claims / instances),
distinct failing claims per gate (a claim counts once in each gate that rejected it, so
gate columns do not add up to the failing total) and gate-4 (``claim_type``) error messages
per claim type (messages, not claims: one claim can carry several).

The pass ``"best"`` is the deployment policy: per instance, ship the pass with more verified
claims (the earlier pass on a tie).

Cost per verified claim: the model seconds and tokens the cell's instances spent up to and
including the pass (pass 0, then each repair; best-of: every pass, since the policy runs them
all), divided by the verified claims the cell ships. Seconds are the recorded narrator
latencies, so they depend on the machine and its load; tokens do not. A *repeated* shipped
claim is a verified claim whose text (whitespace collapsed, case folded) an earlier verified
claim of the same pass already states.

Opening with the headline: on graphs that mark a headline node, the share of instances
whose shipped narration (in the report's reading order) opens with a claim narrating one.

Restated share (``--restate`` runs): per narrator x variant x profile, the share of the
claims that ship (the last pass, plus the claims restated on it) that ship restated, from the
``shipped_by`` counts the records hold; a ratio of sums with a cluster-bootstrap interval
like survival's. It is a figure of its own: the pass cells count the narrator's claims.

Paired deltas (after minus before) come with percentile intervals from a cluster bootstrap:
clusters are resampled with replacement, and inside each resample the statistic is computed
from summed counts (ratio of sums), never as a mean of per-instance ratios. Each comparison
draws from its own generator, seeded from the run's bootstrap seed and the comparison's
name, so adding a narrator leaves every other interval unchanged.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import numpy.typing as npt

from verity.bench import DEFAULT_LEVEL, DEFAULT_RESAMPLES
from verity.bench.records import (
    BenchRecord,
    InstanceKey,
    ShippedBy,
    VerdictRecord,
    complete_instances,
)
from verity.core.gates import GATE_NAMES
from verity.llm.claim_ids import best_index
from verity.llm.prompts import VARIANTS

__all__ = [
    "DEFAULT_LEVEL",
    "DEFAULT_RESAMPLES",
    "GATE4",
    "Analysis",
    "CellCounts",
    "CellStats",
    "Comparison",
    "Instance",
    "Interval",
    "PassOutcome",
    "RestatedStats",
    "Which",
    "analyze",
    "best_pass",
    "bootstrap_draws",
    "cluster_totals",
    "count_passes",
    "draw_indices",
    "gate_order",
    "instances_from_records",
    "interval_from_draws",
    "paired_delta",
    "pass_label",
    "ratio_interval",
    "resample_weights",
    "rng_for",
    "select_pass",
]

GATE4 = "claim_type"

Array = npt.NDArray[np.float64]
#: A pass index, or ``"best"`` for the per-instance best-of policy.
Which = int | Literal["best"]


# --- outcomes ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PassOutcome:
    """The verdicts of one pass under one profile, and how the pass went."""

    status: str
    verdicts: tuple[VerdictRecord, ...]
    #: Narrator seconds and tokens of this pass's call (zero when carried).
    latency_s: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    #: Verified claims whose text an earlier verified claim of the pass already states.
    repeated_shipped: int = 0
    #: Whether the pass ships a narration that opens with the headline (None: the graph
    #: has no headline node).
    opens_with_headline: bool | None = None

    @property
    def claims(self) -> int:
        return len(self.verdicts)

    @property
    def passed(self) -> int:
        return sum(v.passed for v in self.verdicts)


@dataclass(frozen=True)
class Instance:
    """A complete instance: its passes under each profile (index = pass)."""

    key: InstanceKey
    cluster: str
    simulated: bool
    passes: Mapping[str, tuple[PassOutcome, ...]]
    #: ``--restate`` runs: how what ships got through, per profile (empty otherwise).
    shipped_by: Mapping[str, ShippedBy] = field(default_factory=dict)


def _repeats(record: BenchRecord, verdicts: Sequence[VerdictRecord]) -> int:
    texts = {c.get("id"): c.get("text") for c in record.claims if isinstance(c, dict)}
    seen: set[str] = set()
    repeats = 0
    for v in verdicts:
        text = texts.get(v.id)
        if not v.passed or not isinstance(text, str):
            continue
        key = " ".join(text.split()).casefold()
        repeats += key in seen
        seen.add(key)
    return repeats


def _outcome(record: BenchRecord, profile: str) -> PassOutcome:
    verdicts = tuple(record.verdicts[profile])
    called = record.status != "carried"
    return PassOutcome(
        record.status,
        verdicts,
        latency_s=record.latency_s if called else 0.0,
        prompt_tokens=record.usage.prompt_tokens if called else 0,
        completion_tokens=record.usage.completion_tokens if called else 0,
        repeated_shipped=_repeats(record, verdicts),
        opens_with_headline=record.opens_with_headline.get(profile),
    )


def instances_from_records(
    records: Iterable[BenchRecord],
) -> tuple[list[Instance], list[InstanceKey]]:
    """Complete instances (sorted by key) and the keys of incomplete ones."""
    complete, incomplete = complete_instances(records)
    out: list[Instance] = []
    for key, group in complete.items():
        first = group[0]
        passes: dict[str, tuple[PassOutcome, ...]] = {}
        shipped_by: dict[str, ShippedBy] = {}
        for profile in first.profiles:
            chain = [_outcome(first, profile)]
            last = first
            for k in range(1, first.repairs + 1):
                last = next(r for r in group if r.pass_index == k and r.repair_profile == profile)
                chain.append(_outcome(last, profile))
            passes[profile] = tuple(chain)
            if profile in last.shipped_by:
                shipped_by[profile] = last.shipped_by[profile]
        out.append(Instance(key, first.cluster, first.simulated, passes, shipped_by))
    return out, incomplete


def best_pass(passes: Sequence[PassOutcome]) -> int:
    """Index of the pass with the most verified claims; the earliest on a tie."""
    return best_index([p.passed for p in passes])


def select_pass(instance: Instance, profile: str, which: Which) -> PassOutcome:
    """One pass of an instance under a profile; ``"best"`` applies the best-of policy."""
    chain = instance.passes[profile]
    return chain[best_pass(chain)] if which == "best" else chain[which]


# --- counting ----------------------------------------------------------------------


def gate_order(names: Iterable[str]) -> list[str]:
    """Gate names in report order: the known gates first, then any other, sorted."""
    names = set(names)
    known = [g for g in GATE_NAMES if g in names]
    return known + sorted(names - set(GATE_NAMES))


@dataclass(frozen=True)
class CellCounts:
    """Counts over the instances of one cell."""

    instances: int
    claims: int
    passed: int
    failing_claims: int
    failing_by_gate: dict[str, int]
    gate4_messages_by_type: dict[str, int]
    statuses: dict[str, int]
    #: Model seconds and tokens spent to reach this pass (see the module docstring).
    model_s: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    repeated_shipped: int = 0
    #: Instances on graphs with a headline node, and how many of them open with it.
    headline_instances: int = 0
    opens_with_headline: int = 0

    @property
    def headline_share(self) -> float | None:
        """Share of instances (on graphs with a headline) that open with the headline."""
        if not self.headline_instances:
            return None
        return self.opens_with_headline / self.headline_instances

    @property
    def s_per_verified(self) -> float | None:
        """Model seconds per verified claim shipped; None when nothing shipped."""
        return self.model_s / self.passed if self.passed else None

    @property
    def tokens_per_verified(self) -> float | None:
        """Prompt plus completion tokens per verified claim shipped."""
        tokens = self.prompt_tokens + self.completion_tokens
        return tokens / self.passed if self.passed else None

    @property
    def survival(self) -> float | None:
        """Passing claims / parsed claims; None when there are no claims."""
        return self.passed / self.claims if self.claims else None

    @property
    def shipped_per_instance(self) -> float | None:
        """Verified claims per instance; None when there are no instances."""
        return self.passed / self.instances if self.instances else None

    @property
    def gate4_share(self) -> float | None:
        """Share of failing claims that gate 4 rejected."""
        if not self.failing_claims:
            return None
        return self.failing_by_gate.get(GATE4, 0) / self.failing_claims


def count_passes(
    outcomes: Iterable[PassOutcome], spent: Iterable[Sequence[PassOutcome]] | None = None
) -> CellCounts:
    """Count claims, passes, failing claims per gate and gate-4 messages per claim type.

    ``spent`` holds, per instance, the passes whose calls the cost counts (default: the
    outcome's own pass).
    """
    outcomes = list(outcomes)
    chains = [list(c) for c in spent] if spent is not None else [[o] for o in outcomes]
    model_s = sum(p.latency_s for c in chains for p in c)
    prompt_tokens = sum(p.prompt_tokens for c in chains for p in c)
    completion_tokens = sum(p.completion_tokens for c in chains for p in c)
    instances = claims = passed = failing = 0
    by_gate: dict[str, int] = {}
    gate4: dict[str, int] = {}
    statuses: dict[str, int] = {}
    for outcome in outcomes:
        instances += 1
        statuses[outcome.status] = statuses.get(outcome.status, 0) + 1
        for verdict in outcome.verdicts:
            claims += 1
            if verdict.passed:
                passed += 1
                continue
            failing += 1
            for gate in verdict.gates:
                by_gate[gate] = by_gate.get(gate, 0) + 1
            messages = sum(1 for e in verdict.errors if e.get("gate") == GATE4)
            if messages:
                kind = verdict.type if verdict.type is not None else "(none)"
                gate4[kind] = gate4.get(kind, 0) + messages
    return CellCounts(
        instances=instances,
        claims=claims,
        passed=passed,
        failing_claims=failing,
        failing_by_gate={g: by_gate[g] for g in gate_order(by_gate)},
        gate4_messages_by_type=dict(sorted(gate4.items(), key=lambda kv: (-kv[1], kv[0]))),
        statuses=dict(sorted(statuses.items())),
        model_s=model_s,
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        repeated_shipped=sum(o.repeated_shipped for o in outcomes),
        headline_instances=sum(o.opens_with_headline is not None for o in outcomes),
        opens_with_headline=sum(o.opens_with_headline is True for o in outcomes),
    )


# --- bootstrap ---------------------------------------------------------------------


@dataclass(frozen=True)
class Interval:
    """A point estimate with a bootstrap percentile interval.

    ``estimate`` is computed on the data as observed; ``low``/``high`` are percentiles of
    the resampled statistic, leaving out resamples where it is undefined (``undefined``
    counts them). Any of the three is None when it cannot be computed.
    """

    estimate: float | None
    low: float | None
    high: float | None
    level: float
    resamples: int
    clusters: int
    undefined: int = 0

    @property
    def significant(self) -> bool:
        """True when the interval excludes zero."""
        if self.low is None or self.high is None:
            return False
        return self.low > 0 or self.high < 0


def rng_for(seed: int, name: str) -> np.random.Generator:
    """A generator seeded from ``seed`` and a comparison's name (stable across runs)."""
    digest = hashlib.sha256(name.encode("utf-8")).digest()
    words = tuple(int.from_bytes(digest[i : i + 4], "big") for i in range(0, 16, 4))
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=words)))


def draw_indices(clusters: int, resamples: int, rng: np.random.Generator) -> npt.NDArray[np.intp]:
    """``resamples`` rows of ``clusters`` cluster indices drawn with replacement."""
    return rng.integers(0, clusters, size=(resamples, clusters)).astype(np.intp)


def resample_weights(indices: npt.NDArray[np.intp], clusters: int) -> Array:
    """How often each cluster appears in each resample: shape (resamples, clusters)."""
    rows = indices.shape[0]
    flat = (indices + clusters * np.arange(rows, dtype=np.intp)[:, None]).ravel()
    counts = np.bincount(flat, minlength=rows * clusters)
    return counts.reshape(rows, clusters).astype(np.float64)


def cluster_totals(
    units: Iterable[tuple[str, Sequence[float]]],
) -> tuple[list[str], Array]:
    """Sum per-unit count vectors by cluster; clusters sorted by name."""
    sums: dict[str, Array] = {}
    for cluster, values in units:
        vec = np.asarray(values, dtype=np.float64)
        sums[cluster] = sums[cluster] + vec if cluster in sums else vec.copy()
    names = sorted(sums)
    if not names:
        return [], np.zeros((0, 0))
    return names, np.vstack([sums[n] for n in names])


Statistic = Callable[[Array], Array]


def bootstrap_draws(totals: Array, statistic: Statistic, indices: npt.NDArray[np.intp]) -> Array:
    """The statistic of every resample: ``statistic`` maps summed counts (rows) to values."""
    weights = resample_weights(indices, totals.shape[0])
    return statistic(weights @ totals)


def _ratio(num: Array, den: Array) -> Array:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def interval_from_draws(
    estimate: float | None, draws: Array, level: float, clusters: int
) -> Interval:
    """Percentile interval of the defined draws (numpy's linear interpolation)."""
    finite = draws[np.isfinite(draws)]
    undefined = int(draws.size - finite.size)
    if finite.size == 0:
        return Interval(estimate, None, None, level, int(draws.size), clusters, undefined)
    alpha = (1.0 - level) / 2.0
    low, high = np.quantile(finite, [alpha, 1.0 - alpha])
    return Interval(estimate, float(low), float(high), level, int(draws.size), clusters, undefined)


def _point(statistic: Statistic, totals: Array) -> float | None:
    value = float(statistic(totals.sum(axis=0, keepdims=True))[0])
    return value if np.isfinite(value) else None


def _bootstrap(
    totals: Array, statistic: Statistic, resamples: int, rng: np.random.Generator, level: float
) -> Interval:
    clusters = totals.shape[0]
    if clusters == 0:
        return Interval(None, None, None, level, 0, 0)
    estimate = _point(statistic, totals)
    draws = bootstrap_draws(totals, statistic, draw_indices(clusters, resamples, rng))
    return interval_from_draws(estimate, draws, level, clusters)


def _ratio_stat(t: Array) -> Array:
    return _ratio(t[:, 0], t[:, 1])


def ratio_interval(
    units: Iterable[tuple[str, Sequence[float]]],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    rng: np.random.Generator,
    level: float = DEFAULT_LEVEL,
) -> Interval:
    """Interval for sum(num)/sum(den); units are ``(cluster, (num, den))``."""
    _, totals = cluster_totals(units)
    return _bootstrap(totals, _ratio_stat, resamples, rng, level)


def _survival_delta(t: Array) -> Array:
    return _ratio(t[:, 2], t[:, 3]) - _ratio(t[:, 0], t[:, 1])


def _shipped_delta(t: Array) -> Array:
    return _ratio(t[:, 2] - t[:, 0], t[:, 4])


def _seconds_delta(t: Array) -> Array:
    return _ratio(t[:, 6], t[:, 2]) - _ratio(t[:, 5], t[:, 0])


def _tokens_delta(t: Array) -> Array:
    return _ratio(t[:, 8], t[:, 2]) - _ratio(t[:, 7], t[:, 0])


def _headline_delta(t: Array) -> Array:
    return _ratio(t[:, 11], t[:, 12]) - _ratio(t[:, 9], t[:, 10])


def paired_delta(
    units: Iterable[tuple[str, Sequence[float]]],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    rng: np.random.Generator,
    level: float = DEFAULT_LEVEL,
) -> tuple[Interval, ...]:
    """Paired deltas (after minus before) of survival and of shipped claims per instance,
    and, for units that carry them, of model seconds and tokens per verified claim and of
    the share opening with the headline.

    Each unit is ``(cluster, (passed_before, claims_before, passed_after, claims_after,
    1))``, optionally followed by ``(seconds_before, seconds_after, tokens_before,
    tokens_after, opens_before, headline_before, opens_after, headline_after)``. Every
    interval comes from the same resamples.
    """
    _, totals = cluster_totals(units)
    clusters = totals.shape[0]
    stats: list[Statistic] = [_survival_delta, _shipped_delta]
    if clusters and totals.shape[1] > 5:
        stats += [_seconds_delta, _tokens_delta, _headline_delta]
    if clusters == 0:
        empty = Interval(None, None, None, level, 0, 0)
        return empty, empty
    indices = draw_indices(clusters, resamples, rng)
    out: list[Interval] = []
    for stat in stats:
        draws = bootstrap_draws(totals, stat, indices)
        out.append(interval_from_draws(_point(stat, totals), draws, level, clusters))
    return tuple(out)


# --- the whole analysis ------------------------------------------------------------


@dataclass(frozen=True)
class CellStats:
    """One cell: its counts and the survival interval."""

    narrator: str
    simulated: bool
    variant: str
    profile: str
    which: Which
    counts: CellCounts
    survival_ci: Interval


@dataclass(frozen=True)
class Comparison:
    """A paired comparison: ``kind`` is ``repair`` (pass vs pass 0, same variant) or
    ``variant`` (variant vs variant, same pass)."""

    kind: Literal["repair", "variant"]
    narrator: str
    simulated: bool
    profile: str
    before: str
    after: str
    #: the variant (repair comparisons) or the pass label (variant comparisons)
    within: str
    pairs: int
    survival: Interval
    shipped: Interval
    #: Variant comparisons only: model seconds and tokens per verified claim (the passes
    #: spent up to the pass), and the share opening with the headline.
    seconds: Interval | None = None
    tokens: Interval | None = None
    headline: Interval | None = None


@dataclass(frozen=True)
class RestatedStats:
    """Of one narrator x variant x profile in a ``--restate`` run: the claims that ship,
    by how they got through, and the restated share's interval."""

    narrator: str
    simulated: bool
    variant: str
    profile: str
    instances: int
    as_written: int
    after_repair: int
    restated: int
    share: Interval

    @property
    def shipped(self) -> int:
        return self.as_written + self.after_repair + self.restated


@dataclass(frozen=True)
class Analysis:
    """Everything the report shows, computed from records alone."""

    narrators: list[str]
    simulated: dict[str, bool]
    variants: list[str]
    profiles: list[str]
    repairs: int
    instances: int
    incomplete: list[InstanceKey]
    cells: list[CellStats]
    comparisons: list[Comparison]
    seed: int
    resamples: int
    level: float
    #: ``--restate`` runs only: the restated share per narrator x variant x profile.
    restated: list[RestatedStats] = field(default_factory=list)


def pass_label(which: Which) -> str:
    """``r0``, ``r1``... or ``best``."""
    return "best" if which == "best" else f"r{which}"


def _variant_order(names: Iterable[str]) -> list[str]:
    names = set(names)
    return [v for v in VARIANTS if v in names] + sorted(names - set(VARIANTS))


def _profile_order(names: Iterable[str]) -> list[str]:
    names = set(names)
    return [p for p in ("paper", "strict") if p in names] + sorted(names - {"paper", "strict"})


_VARIANT_PAIRS: tuple[tuple[str, str], ...] = (
    ("ungrounded", "grounded"),
    ("grounded", "constrained"),
    ("constrained", "extractive"),
    ("extractive", "choice"),
)


def analyze(
    records: Iterable[BenchRecord],
    *,
    seed: int = 0,
    resamples: int = DEFAULT_RESAMPLES,
    level: float = DEFAULT_LEVEL,
) -> Analysis:
    """Cells, best-of and paired comparisons over the complete instances of ``records``."""
    instances, incomplete = instances_from_records(records)
    narrators = sorted({i.key.narrator for i in instances})
    simulated = {n: any(i.simulated for i in instances if i.key.narrator == n) for n in narrators}
    variants = _variant_order(i.key.variant for i in instances)
    profiles = _profile_order(p for i in instances for p in i.passes)
    repairs = max((len(c) - 1 for i in instances for c in i.passes.values()), default=0)
    whiches: list[Which] = [*range(repairs + 1), "best"]

    by_cell: dict[tuple[str, str], list[Instance]] = {}
    for inst in instances:
        by_cell.setdefault((inst.key.narrator, inst.key.variant), []).append(inst)

    cells: list[CellStats] = []
    comparisons: list[Comparison] = []
    restated: list[RestatedStats] = []
    for narrator in narrators:
        for profile in profiles:
            for variant in variants:
                group = [i for i in by_cell.get((narrator, variant), []) if profile in i.passes]
                if not group:
                    continue
                for which in whiches:
                    if which != "best" and any(len(i.passes[profile]) <= which for i in group):
                        continue
                    chosen = [(i, select_pass(i, profile, which)) for i in group]
                    name = f"cell|{narrator}|{variant}|{profile}|{pass_label(which)}"
                    ci = ratio_interval(
                        ((i.cluster, (p.passed, p.claims)) for i, p in chosen),
                        resamples=resamples,
                        rng=rng_for(seed, name),
                        level=level,
                    )
                    spent = [
                        i.passes[profile] if which == "best" else i.passes[profile][: which + 1]
                        for i in group
                    ]
                    cells.append(
                        CellStats(
                            narrator,
                            simulated[narrator],
                            variant,
                            profile,
                            which,
                            count_passes((p for _, p in chosen), spent),
                            ci,
                        )
                    )
                found = _restated_stats(
                    narrator,
                    simulated[narrator],
                    variant,
                    profile,
                    group,
                    seed=seed,
                    resamples=resamples,
                    level=level,
                )
                restated.extend([found] if found is not None else [])
                comparisons.extend(
                    _repair_comparisons(
                        narrator,
                        simulated[narrator],
                        variant,
                        profile,
                        group,
                        seed=seed,
                        resamples=resamples,
                        level=level,
                    )
                )
            comparisons.extend(
                _variant_comparisons(
                    narrator,
                    simulated[narrator],
                    profile,
                    by_cell,
                    whiches,
                    seed=seed,
                    resamples=resamples,
                    level=level,
                )
            )
    return Analysis(
        narrators,
        simulated,
        variants,
        profiles,
        repairs,
        len(instances),
        incomplete,
        cells,
        comparisons,
        seed,
        resamples,
        level,
        restated,
    )


def _restated_stats(
    narrator: str,
    simulated: bool,
    variant: str,
    profile: str,
    group: list[Instance],
    *,
    seed: int,
    resamples: int,
    level: float,
) -> RestatedStats | None:
    """The restated share of the claims ``group`` ships under ``profile``; None unless
    every instance of the group holds its ``shipped_by`` counts (a ``--restate`` run)."""
    ways = [(i.cluster, i.shipped_by.get(profile)) for i in group]
    counts = [(c, w) for c, w in ways if w is not None]
    if not counts or len(counts) != len(ways):
        return None
    name = f"restated|{narrator}|{variant}|{profile}"
    share = ratio_interval(
        ((c, (w.restated, w.shipped)) for c, w in counts),
        resamples=resamples,
        rng=rng_for(seed, name),
        level=level,
    )
    return RestatedStats(
        narrator,
        simulated,
        variant,
        profile,
        len(counts),
        sum(w.as_written for _, w in counts),
        sum(w.after_repair for _, w in counts),
        sum(w.restated for _, w in counts),
        share,
    )


def _unit(before: PassOutcome, after: PassOutcome) -> tuple[float, ...]:
    return (before.passed, before.claims, after.passed, after.claims, 1.0)


def _repair_comparisons(
    narrator: str,
    simulated: bool,
    variant: str,
    profile: str,
    group: list[Instance],
    *,
    seed: int,
    resamples: int,
    level: float,
) -> list[Comparison]:
    out: list[Comparison] = []
    depth = min(len(i.passes[profile]) for i in group)
    for k in range(1, depth):
        name = f"repair|{narrator}|{variant}|{profile}|r{k}"
        units = [(i.cluster, _unit(i.passes[profile][0], i.passes[profile][k])) for i in group]
        surv, ship = paired_delta(units, resamples=resamples, rng=rng_for(seed, name), level=level)[
            :2
        ]
        out.append(
            Comparison(
                "repair",
                narrator,
                simulated,
                profile,
                "r0",
                f"r{k}",
                variant,
                len(units),
                surv,
                ship,
            )
        )
    return out


def _variant_comparisons(
    narrator: str,
    simulated: bool,
    profile: str,
    by_cell: Mapping[tuple[str, str], list[Instance]],
    whiches: Sequence[Which],
    *,
    seed: int,
    resamples: int,
    level: float,
) -> list[Comparison]:
    out: list[Comparison] = []
    for before_v, after_v in _VARIANT_PAIRS:
        before = {
            i.key.graph_id: i for i in by_cell.get((narrator, before_v), []) if profile in i.passes
        }
        after = {
            i.key.graph_id: i for i in by_cell.get((narrator, after_v), []) if profile in i.passes
        }
        graphs = sorted(set(before) & set(after))
        if not graphs:
            continue
        for which in whiches:
            if which != "best" and any(
                len(before[g].passes[profile]) <= which or len(after[g].passes[profile]) <= which
                for g in graphs
            ):
                continue
            label = pass_label(which)
            name = f"variant|{narrator}|{before_v}|{after_v}|{profile}|{label}"
            units = [
                (
                    before[g].cluster,
                    _variant_unit(before[g].passes[profile], after[g].passes[profile], which),
                )
                for g in graphs
            ]
            surv, ship, secs, toks, head = paired_delta(
                units, resamples=resamples, rng=rng_for(seed, name), level=level
            )
            out.append(
                Comparison(
                    "variant",
                    narrator,
                    simulated,
                    profile,
                    before_v,
                    after_v,
                    label,
                    len(units),
                    surv,
                    ship,
                    secs,
                    toks,
                    head,
                )
            )
    return out


def _spent(chain: Sequence[PassOutcome], which: Which) -> tuple[float, float]:
    """Model seconds and tokens of the passes run to reach ``which`` (best-of: all)."""
    passes = chain if which == "best" else chain[: which + 1]
    return (
        sum(p.latency_s for p in passes),
        float(sum(p.prompt_tokens + p.completion_tokens for p in passes)),
    )


def _variant_unit(
    before: Sequence[PassOutcome], after: Sequence[PassOutcome], which: Which
) -> tuple[float, ...]:
    b = before[best_pass(before)] if which == "best" else before[which]
    a = after[best_pass(after)] if which == "best" else after[which]
    (sec_b, tok_b), (sec_a, tok_a) = _spent(before, which), _spent(after, which)
    return (
        *_unit(b, a),
        sec_b,
        sec_a,
        tok_b,
        tok_a,
        float(b.opens_with_headline is True),
        float(b.opens_with_headline is not None),
        float(a.opens_with_headline is True),
        float(a.opens_with_headline is not None),
    )

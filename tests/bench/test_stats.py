"""Benchmark statistics: counting on a hand-made run, and the cluster bootstrap."""

from __future__ import annotations

from typing import Any

import pytest

from tests.bench_support import records_from_compact, small_run, verdict
from tests.helpers import needs

np = needs("bench", "numpy")

from verity.bench.stats import (  # noqa: E402  (needs numpy, skipped above without it)
    PassOutcome,
    analyze,
    best_pass,
    bootstrap_draws,
    cluster_totals,
    count_passes,
    draw_indices,
    interval_from_draws,
    paired_delta,
    pass_label,
    ratio_interval,
    rng_for,
)

RUN = small_run()
ANALYSIS = analyze(records_from_compact(RUN), seed=7, resamples=200)
CELLS = {f"{c.variant}|{c.profile}|{pass_label(c.which)}": c for c in ANALYSIS.cells}


def _comparison_key(c: Any) -> str:
    if c.kind == "repair":
        return f"repair|{c.within}|{c.profile}|{c.after}"
    return f"variant|{c.before}>{c.after}|{c.profile}|{c.within}"


COMPARISONS = {_comparison_key(c): c for c in ANALYSIS.comparisons}


@pytest.mark.parametrize("cell", sorted(RUN["cells"]))
def test_cell_counts_match_hand_counts(cell: str) -> None:
    want = RUN["cells"][cell]
    counts = CELLS[cell].counts
    got = {
        "instances": counts.instances,
        "claims": counts.claims,
        "passed": counts.passed,
        "failing_claims": counts.failing_claims,
        "failing_by_gate": counts.failing_by_gate,
        "gate4_messages_by_type": counts.gate4_messages_by_type,
        "statuses": counts.statuses,
    }
    assert got == want
    assert counts.survival == pytest.approx(want["passed"] / want["claims"])
    assert counts.shipped_per_instance == pytest.approx(want["passed"] / want["instances"])


@pytest.mark.parametrize("name", sorted(RUN["comparisons"]))
def test_paired_point_estimates_match_hand_values(name: str) -> None:
    want = RUN["comparisons"][name]
    got = COMPARISONS[name]
    assert got.pairs == want["pairs"]
    assert got.survival.estimate == pytest.approx(want["survival"])
    assert got.shipped.estimate == pytest.approx(want["shipped"])


def test_analysis_lists_every_cell_and_comparison() -> None:
    # 2 variants x 2 profiles x (r0, r1, best) cells; per profile 2 repair comparisons
    # and ungrounded -> grounded at r0, r1 and best (no constrained runs here)
    assert len(ANALYSIS.cells) == 12
    assert len([c for c in ANALYSIS.comparisons if c.kind == "repair"]) == 4
    assert len([c for c in ANALYSIS.comparisons if c.kind == "variant"]) == 6
    assert ANALYSIS.instances == 6
    assert ANALYSIS.incomplete == []
    assert ANALYSIS.variants == ["grounded", "ungrounded"]
    assert ANALYSIS.profiles == ["paper", "strict"]


def test_failing_claim_counts_once_per_gate_and_gate4_counts_messages() -> None:
    # one claim, two number errors and two gate-4 errors: number 1, claim_type 1 (claims),
    # but two gate-4 messages
    tok = "CAP_SWITCH:number.not_allowed+number.out_of_scope+claim_type.a+claim_type.b"
    counts = count_passes([PassOutcome("ok", (verdict(tok, 1), verdict("X", 2)))])
    assert counts.failing_by_gate == {"number": 1, "claim_type": 1}
    assert counts.gate4_messages_by_type == {"CAP_SWITCH": 2}
    assert counts.failing_claims == 1
    assert counts.gate4_share == 1.0
    assert counts.survival == 0.5


def test_empty_cell_has_no_ratios() -> None:
    counts = count_passes([PassOutcome("api_error", ())])
    assert counts.survival is None
    assert counts.shipped_per_instance == 0.0
    assert counts.gate4_share is None
    assert count_passes([]).shipped_per_instance is None


@pytest.mark.parametrize(
    ("passed", "best"),
    [([1, 2], 1), ([2, 2], 0), ([0, 0, 0], 0), ([3, 1, 3], 0), ([0, 1, 2], 2)],
)
def test_best_pass_prefers_more_verified_then_earlier(passed: list[int], best: int) -> None:
    passes = [PassOutcome("ok", tuple(verdict("X", i) for i in range(n))) for n in passed]
    assert best_pass(passes) == best


# --- bootstrap --------------------------------------------------------------------

# Per cluster: (passed_before, claims_before, passed_after, claims_after, instances)
HAND_TOTALS = np.array(
    [[1, 2, 2, 2, 1], [0, 1, 1, 2, 1], [3, 4, 3, 4, 1]],
    dtype=np.float64,
)
HAND_INDICES = np.array([[0, 0, 1], [2, 2, 2], [0, 1, 2], [1, 1, 1]], dtype=np.intp)


def _survival_delta(t: Any) -> Any:
    return t[:, 2] / t[:, 3] - t[:, 0] / t[:, 1]


def test_bootstrap_draws_by_hand() -> None:
    # resample [0,0,1]: before 2/5, after 5/6 -> 13/30
    # resample [2,2,2]: before 9/12, after 9/12 -> 0
    # resample [0,1,2]: before 4/7, after 6/8 -> 5/28
    # resample [1,1,1]: before 0/3, after 3/6 -> 1/2
    draws = bootstrap_draws(HAND_TOTALS, _survival_delta, HAND_INDICES)
    assert draws == pytest.approx([13 / 30, 0.0, 5 / 28, 0.5])
    # sorted: 0, 5/28, 13/30, 1/2; linear quantiles at positions 3*.025 and 3*.975:
    # low = 0 + .075 * 5/28; high = 13/30 + .925 * (1/2 - 13/30)
    interval = interval_from_draws(5 / 28, draws, 0.95, 3)
    assert interval.low == pytest.approx(0.075 * 5 / 28)
    assert interval.high == pytest.approx(13 / 30 + 0.925 / 15)
    assert interval.significant
    assert (interval.resamples, interval.clusters, interval.undefined) == (4, 3, 0)


def test_ratio_of_sums_not_mean_of_ratios() -> None:
    # clusters 1/1 and 1/3: ratio of sums 2/4 = .5 (the mean of ratios would be 2/3)
    interval = ratio_interval([("a", (1, 1)), ("b", (1, 3))], resamples=50, rng=rng_for(0, "x"))
    assert interval.estimate == pytest.approx(0.5)
    assert interval.low is not None and interval.high is not None
    assert 1 / 3 <= interval.low <= interval.high <= 1.0


def test_units_of_one_cluster_are_resampled_together() -> None:
    names, totals = cluster_totals([("b", (1, 2)), ("a", (0, 1)), ("b", (1, 1))])
    assert names == ["a", "b"]
    assert totals.tolist() == [[0, 1], [2, 3]]


def test_zero_variance_gives_zero_width_interval() -> None:
    units = [(f"c{i}", (1, 2, 2, 2, 1)) for i in range(5)]
    surv, ship = paired_delta(units, resamples=300, rng=rng_for(1, "z"))
    assert (surv.estimate, surv.low, surv.high) == (0.5, 0.5, 0.5)
    assert (ship.estimate, ship.low, ship.high) == (1.0, 1.0, 1.0)
    assert surv.significant and ship.significant


def test_no_change_is_not_significant() -> None:
    units = [(f"c{i}", (i, 4, i, 4, 1)) for i in range(5)]
    surv, ship = paired_delta(units, resamples=300, rng=rng_for(1, "n"))
    assert (surv.low, surv.high) == (0.0, 0.0)
    assert not surv.significant and not ship.significant


def test_constant_shift_gives_exactly_that_shift() -> None:
    # every instance ships 2 more claims after repair, from varying starting points
    units = [(f"c{i}", (i, 8, i + 2, 8, 1)) for i in range(6)]
    _, ship = paired_delta(units, resamples=500, rng=rng_for(3, "s"))
    assert (ship.estimate, ship.low, ship.high) == (2.0, 2.0, 2.0)


def test_fixed_seed_reproduces_and_names_separate_streams() -> None:
    units = [(f"c{i}", (i % 3, 4, (i * 7) % 5, 5, 1)) for i in range(12)]
    a = paired_delta(units, resamples=400, rng=rng_for(11, "cmp"))
    b = paired_delta(units, resamples=400, rng=rng_for(11, "cmp"))
    c = paired_delta(units, resamples=400, rng=rng_for(12, "cmp"))
    assert a == b
    assert a != c
    first = draw_indices(5, 3, rng_for(0, "one"))
    assert np.array_equal(first, draw_indices(5, 3, rng_for(0, "one")))
    assert not np.array_equal(first, draw_indices(5, 3, rng_for(0, "two")))


def test_undefined_resamples_are_left_out() -> None:
    # a cluster with no claims before: resamples made only of it have no survival
    units = [("a", (0, 0, 1, 1, 1)), ("b", (1, 2, 1, 2, 1))]
    surv, _ = paired_delta(units, resamples=200, rng=rng_for(5, "u"))
    assert surv.undefined > 0
    assert surv.undefined < 200
    assert surv.estimate == pytest.approx(2 / 3 - 1 / 2)


def test_no_pairs_gives_empty_interval() -> None:
    surv, ship = paired_delta([], resamples=10, rng=rng_for(0, "e"))
    assert surv.estimate is None and not surv.significant
    assert ship.clusters == 0


def test_analysis_is_reproducible_and_order_free() -> None:
    records = records_from_compact(RUN)
    again = analyze(list(reversed(records)), seed=7, resamples=200)
    assert again == ANALYSIS
    other = analyze(records, seed=8, resamples=200)
    assert other.cells[0].counts == ANALYSIS.cells[0].counts

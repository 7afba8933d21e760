"""Rater agreement against values computed by hand, and the `verity agreement` command."""

from __future__ import annotations

import json

import pytest

from tests.helpers import FIXTURES
from verity import InputError
from verity.bench.agreement import (
    agreement,
    cohen_kappa,
    fleiss_kappa,
    parse_labels,
    raw_agreement,
    read_labels,
)
from verity.cli.main import main

LABELS = FIXTURES / "bench" / "labels"

# two_raters.csv, 10 items:
#   A: YES x6 (i01-i06), NO x4 (i07-i10)
#   B: YES on i01-i04 and i10, NO on i05-i09
#   agree on i01-i04 (YES) and i07-i09 (NO): po = 7/10
#   pe = P(A=YES)P(B=YES) + P(A=NO)P(B=NO) = .6*.5 + .4*.5 = .5
#   kappa = (.7 - .5) / (1 - .5) = .4
#   Fleiss, n=2 raters, N=10: P_i = 1 when the pair agrees, else 0 -> P_bar = .7
#   p_YES = 11/20, p_NO = 9/20 -> Pe = .3025 + .2025 = .505
#   kappa = (.7 - .505) / .495 = 13/33
#
# three_raters.csv with --drop UNCLEAR (q5 keeps r1=Y, r3=N):
#   r1 vs r2 on q1-q4: r1 YYNY, r2 YYNN: po = 3/4; pe = (3*2 + 1*2)/16 = .5; kappa = .5
#   r1 vs r3 on q1-q5: r1 YYNYY, r3 YNNNN: po = 2/5; pe = (4*1 + 1*4)/25 = .32;
#       kappa = .08/.68 = 2/17
#   r2 vs r3 on q1-q4: r2 YYNN, r3 YNNN: po = 3/4; pe = (2*1 + 2*3)/16 = .5; kappa = .5
#   Fleiss on q1-q4 (all three raters): P_i = 1, 1/3, 1, 1/3 -> P_bar = 2/3;
#       p_Y = 6/12, p_N = 6/12 -> Pe = .5; kappa = (2/3 - 1/2)/(1/2) = 1/3
#
# three_raters.csv without --drop: q5 has Y, UNCLEAR, N, so Fleiss uses q1-q5:
#   P_5 = (1+1+1-3)/6 = 0 -> P_bar = (8/3)/5 = 8/15 = 120/225
#   totals Y=7, N=7, UNCLEAR=1 of 15 -> Pe = (49+49+1)/225 = 99/225
#   kappa = (120-99)/(225-99) = 21/126 = 1/6
#   r1 vs r2 now on q1-q5: r1 YYNYY, r2 YYNNU: po = 3/5;
#       pe = (Y: 4*2 + N: 1*2 + U: 0*1)/25 = 10/25 = .4; kappa = .2/.6 = 1/3
#   r1 vs r3 unchanged (r3 never says UNCLEAR): 2/17
#   r2 vs r3 on q1-q5: r2 YYNNU, r3 YNNNN: po = 3/5;
#       pe = (Y: 2*1 + N: 2*4 + U: 1*0)/25 = 10/25 = .4; kappa = .2/.6 = 1/3
#
# constant.csv: the verifier says FAIL on a-d; the rater FAIL on a-c, PASS on d and e.
#   pair on a-d: po = 3/4; pe = 1 * 3/4 = .75; kappa = 0 (the prevalence paradox)
#   Fleiss on a-d: P_bar = 3/4; p_FAIL = 7/8, p_PASS = 1/8 -> Pe = 50/64;
#       kappa = (48/64 - 50/64)/(14/64) = -1/7
CASES = [
    pytest.param(
        "two_raters.csv",
        [],
        {("A", "B"): (10, 0.7, 0.4)},
        (2, 10, 13 / 33),
        id="two_raters",
    ),
    pytest.param(
        "three_raters.csv",
        ["UNCLEAR"],
        {
            ("r1", "r2"): (4, 0.75, 0.5),
            ("r1", "r3"): (5, 0.4, 2 / 17),
            ("r2", "r3"): (4, 0.75, 0.5),
        },
        (3, 4, 1 / 3),
        id="three_raters_drop_unclear",
    ),
    pytest.param(
        "three_raters.csv",
        [],
        {
            ("r1", "r2"): (5, 0.6, 1 / 3),
            ("r1", "r3"): (5, 0.4, 2 / 17),
            ("r2", "r3"): (5, 0.6, 1 / 3),
        },
        (3, 5, 1 / 6),
        id="three_raters_keep_unclear",
    ),
    pytest.param(
        "constant.csv",
        [],
        {("rater", "verifier"): (4, 0.75, 0.0)},
        (2, 4, -1 / 7),
        id="prevalence_paradox",
    ),
]


@pytest.mark.parametrize(("name", "drop", "pairs", "fleiss"), CASES)
def test_agreement_matches_hand_computation(
    name: str,
    drop: list[str],
    pairs: dict[tuple[str, str], tuple[int, float, float | None]],
    fleiss: tuple[int, int, float],
) -> None:
    result = agreement(read_labels(LABELS / name, drop=drop))
    got = {(p.rater_a, p.rater_b): (p.items, p.agreement, p.kappa) for p in result.pairs}
    assert got.keys() == pairs.keys()
    for key, (items, agree, kappa) in pairs.items():
        assert got[key][0] == items
        assert got[key][1] == pytest.approx(agree)
        assert got[key][2] == pytest.approx(kappa)
    assert (result.fleiss.raters, result.fleiss.items) == fleiss[:2]
    assert result.fleiss.kappa == pytest.approx(fleiss[2])


def test_kappa_is_undefined_when_chance_agreement_is_one() -> None:
    assert cohen_kappa(["X", "X"], ["X", "X"]) is None
    assert fleiss_kappa([{"X": 3}, {"X": 3}]) is None
    assert raw_agreement([], []) is None
    assert cohen_kappa([], []) is None
    assert fleiss_kappa([]) is None


def test_perfect_and_opposite_raters() -> None:
    # po = 1, pe = .5 -> kappa 1; po = 0, pe = .5 -> kappa -1
    assert cohen_kappa(["Y", "N"], ["Y", "N"]) == pytest.approx(1.0)
    assert cohen_kappa(["Y", "N"], ["N", "Y"]) == pytest.approx(-1.0)


def test_fleiss_needs_equal_rater_counts() -> None:
    with pytest.raises(ValueError, match="same number of raters"):
        fleiss_kappa([{"Y": 2}, {"Y": 1, "N": 2}])


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("bad_header.csv", "lacks the column"),
        ("bad_twice.csv", "twice"),
        ("bad_empty.csv", "empty item, rater or label"),
        ("bad_extra_cell.csv", "more cells"),
        ("bad_no_rows.csv", "holds no labels"),
        ("bad_quote.csv", "not usable CSV|more cells|empty"),
        ("missing.csv", "does not exist"),
    ],
)
def test_bad_csv_is_an_input_error(name: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        read_labels(LABELS / name)


@pytest.mark.parametrize(
    "name", ["bad_header.csv", "bad_twice.csv", "bad_empty.csv", "bad_no_rows.csv", "missing.csv"]
)
def test_cli_bad_csv_exits_2_with_one_line(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["agreement", str(LABELS / name)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("verity: error: ")
    assert err.count("\n") == 1


def test_cli_prints_table_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(LABELS / "three_raters.csv")
    assert main(["agreement", path, "--drop", "UNCLEAR"]) == 0
    text = capsys.readouterr().out
    assert "r1 vs r3" in text
    assert "fleiss kappa (4 items labelled by all 3 raters): 0.333" in text
    assert main(["agreement", path, "--drop", "UNCLEAR", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["fleiss"] == {"raters": 3, "items": 4, "kappa": 0.333}
    assert data["pairs"][1] == {
        "rater_a": "r1",
        "rater_b": "r3",
        "items": 5,
        "agreement": 0.4,
        "cohen_kappa": 0.118,
    }


def test_parse_labels_strips_bom_and_spaces() -> None:
    labels = parse_labels("\ufeffitem, rater ,label\n x , a , Y \n")
    assert labels == {"x": {"a": "Y"}}

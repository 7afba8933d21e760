"""report.md and the figures read on their own: no unnamed paper's table numbers, a warning
when too few clusters back the intervals, and figures that say n, the passes and zero."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import needs
from verity.bench.report import MIN_CLUSTERS
from verity.cli.main import main


@pytest.fixture(scope="module")
def small_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("bench") / "run"
    code = main(
        [
            "bench",
            "--narrators",
            "scripted:clean",
            "--limit",
            "2",
            "--variants",
            "grounded,constrained",
            "--out",
            str(out),
            "--resamples",
            "50",
            "--quiet",
        ]
    )
    assert code == 0
    return out


def test_report_cites_no_table_numbers_and_warns_about_few_clusters(small_run: Path) -> None:
    text = (small_run / "report.md").read_text("utf-8")
    assert "Table 2" not in text and "Table 3" not in text and "Table 7" not in text
    assert "**Warning:** some intervals rest on only" in text
    assert f"fewer than {MIN_CLUSTERS} clusters" in text


def test_figures_show_n_the_pass_legend_and_an_all_zero_chart(small_run: Path) -> None:
    needs("bench", "matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    drawn: list[Figure] = []
    real = Figure.savefig

    def keep(self: Figure, *args: object, **kwargs: object) -> None:
        drawn.append(self)
        real(self, *args, **kwargs)

    mp = pytest.MonkeyPatch()
    mp.setattr(Figure, "savefig", keep)
    try:
        assert main(["bench", "--report", str(small_run), "--resamples", "50"]) == 0
    finally:
        mp.undo()
    assert len(drawn) == 3  # survival, failing by gate, cost per verified claim
    survival, failing = drawn[:2]
    ax = survival.axes[0]
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert all("(n=2)" in label for label in labels), labels
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend[0] == "r0: first narration" and legend[1] == "r1: after repair pass 1"
    texts = [t.get_text() for a in failing.axes for t in a.texts]
    assert "no failing claims at r1" in texts  # the clean simulator fails nothing

"""`verity examples DIR` and `verity.copy_examples`: the package's example files, copied out."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import verity
from tests.helpers import EXAMPLES
from verity.cli.main import main
from verity.examples import example_names

#: What the README and the docs use from examples/.
USED = {
    "fee_gates.py",
    "graph.json",
    "narration.json",
    "production_plan.labels.json",
    "production_plan.lp",
    "sales.spec.json",
    "staff_schedule.labels.json",
    "staff_schedule.mps",
}


def _examples(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "verity", "examples", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_the_examples_are_the_package_data() -> None:
    assert verity.examples_dir() == EXAMPLES
    assert set(example_names()) == USED


def test_copies_every_file_and_says_so(tmp_path: Path) -> None:
    done = _examples(tmp_path, ".")
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.splitlines() == [f"wrote      examples/{n}" for n in sorted(USED)]
    for name in USED:
        assert (tmp_path / "examples" / name).read_bytes() == (EXAMPLES / name).read_bytes()
    again = _examples(tmp_path)  # DIR defaults to the current directory
    assert again.returncode == 0
    assert again.stdout.splitlines() == [f"unchanged  examples/{n}" for n in sorted(USED)]


def test_a_file_that_differs_is_refused_unless_force(tmp_path: Path) -> None:
    target = tmp_path / "out" / "examples"
    target.mkdir(parents=True)
    (target / "graph.json").write_text("{}", "utf-8")
    done = _examples(tmp_path, "out")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (
        "verity: error: out/examples/graph.json exists and differs from the example; "
        "pass --force (force=True) to overwrite\n"
    )
    assert [p.name for p in target.iterdir()] == ["graph.json"]  # nothing written
    forced = _examples(tmp_path, "out", "--force")
    assert forced.returncode == 0 and "replaced   out/examples/graph.json" in forced.stdout
    assert (target / "graph.json").read_bytes() == (EXAMPLES / "graph.json").read_bytes()


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda d: (d / "dir").write_text("x", "utf-8"), "dir is not a directory"),
        (
            lambda d: (d / "dir").mkdir() or (d / "dir" / "examples").write_text("x"),
            "dir/examples is not a directory",
        ),
    ],
    ids=["dir-is-a-file", "examples-is-a-file"],
)
def test_errors_are_one_line_and_exit_2(tmp_path: Path, make: object, message: str) -> None:
    make(tmp_path)  # type: ignore[operator]
    done = _examples(tmp_path, "dir")
    assert done.returncode == 2 and done.stdout == "", done
    assert done.stderr.startswith("verity: error: ") and done.stderr.count("\n") == 1
    assert message in done.stderr and "Traceback" not in done.stderr


def test_copy_examples_returns_what_it_did(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plan = verity.copy_examples(tmp_path)
    assert {c.action for c in plan} == {"write"}
    assert {c.target for c in plan} == {tmp_path / "examples" / n for n in USED}
    (tmp_path / "examples" / "narration.json").write_text("{}", "utf-8")
    with pytest.raises(verity.InputError, match=r"narration\.json exists and differs"):
        verity.copy_examples(tmp_path)
    again = verity.copy_examples(tmp_path, force=True)
    assert [c.action for c in again if c.action != "same"] == ["replace"]
    assert main(["examples", str(tmp_path)]) == 0
    assert capsys.readouterr().out.count("unchanged") == len(USED)

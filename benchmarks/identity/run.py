"""Byte-identity check for refactors: hash every output a user or a test can see.

Run from the repository root::

    .venv/bin/python benchmarks/identity/run.py --write benchmarks/identity/manifest.json
    .venv/bin/python benchmarks/identity/run.py --check benchmarks/identity/manifest.json

It drives only the command line and the documented top-level API (``verity.verify``,
``verity.load_graph``, ``verity.check_answer``), so the same script runs unchanged before
and after a change of internal layout. What it hashes (sha256 of the exact bytes):

* the 150 card-rewards graphs solved afresh (``verity optimize --all``);
* the SQL sample graph (``verity graph-from-sql``);
* every golden gate case and golden narration verified under both profiles
  (``Report.model_dump_json()``) and the ``verity verify`` output of each golden narration;
* ``verity verify-stream`` over the adversarial structured fixtures;
* ``check_answer`` over the free-text adversarial fixtures;
* a scripted bench run (``verity bench --narrators scripted --limit 12``): its JSONL
  records (timing fields removed), ``report.md`` and ``summary.json``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
VERITY = [sys.executable, "-m", "verity"]
# Fields of a bench record that measure time, not behaviour.
TIMING_FIELDS = ("latency_s", "instance_wall_s")


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _run(args: list[str], **kw: Any) -> subprocess.CompletedProcess[bytes]:
    env = dict(os.environ, PYTHONHASHSEED="0")
    return subprocess.run(VERITY + args, capture_output=True, cwd=ROOT, env=env, **kw)


def _graphs(tmp: Path) -> dict[str, str]:
    out = tmp / "graphs"
    proc = _run(["optimize", "--all", "--out-dir", str(out)])
    if proc.returncode != 0:
        raise SystemExit(f"optimize --all failed: {proc.stderr.decode()[-400:]}")
    got = {f"graphs/{p.name}": _sha(p.read_bytes()) for p in sorted(out.glob("*.json"))}
    sql = _run(["graph-from-sql"])
    got["sql/sample"] = _sha(sql.stdout) + f":{sql.returncode}"
    return got


def _zero_timing(obj: Any) -> Any:
    """The record with its measured times set to 0 (they depend on the machine's load)."""
    if isinstance(obj, dict):
        return {k: 0 if k in TIMING_FIELDS else _zero_timing(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_zero_timing(v) for v in obj]
    return obj


def _golden(tmp: Path) -> dict[str, str]:
    sys.path.insert(0, str(ROOT))
    from tests.helpers import graph_dict  # the same graph set-up the golden tests use
    from verity import load_graph, verify

    got: dict[str, str] = {}
    golden = ROOT / "tests" / "golden"
    for path in sorted((golden / "narrations").glob("*.json")):
        doc = json.loads(path.read_text("utf-8"))
        graph = load_graph(graph_dict(doc["graph"]))
        for profile in ("paper", "strict"):
            report = verify(graph, doc["narration"], profile=profile)
            got[f"narrations/{path.stem}/{profile}"] = _sha(report.model_dump_json().encode())
        gfile = tmp / f"{path.stem}.graph.json"
        nfile = tmp / f"{path.stem}.narration.json"
        gfile.write_text(json.dumps(graph_dict(doc["graph"])), "utf-8")
        nfile.write_text(json.dumps(doc["narration"]), "utf-8")
        for profile in ("paper", "strict"):
            for fmt in ([], ["--json"]):
                proc = _run(["verify", str(gfile), str(nfile), "--profile", profile, *fmt])
                key = f"cli-verify/{path.stem}/{profile}{''.join(fmt)}"
                got[key] = _sha(proc.stdout + b"\0" + proc.stderr) + f":{proc.returncode}"
    for path in sorted((golden / "gates").glob("*.json")):
        doc = json.loads(path.read_text("utf-8"))
        h = hashlib.sha256()
        for case in doc.get("cases", []):
            h.update(json.dumps(case, sort_keys=True).encode())
        got[f"gates-cases/{path.stem}"] = h.hexdigest()
    return got


def _adversarial(tmp: Path) -> dict[str, str]:
    got: dict[str, str] = {}
    proc = subprocess.run(
        [
            sys.executable,
            "benchmarks/adversarial/strict.py",
            "--json",
            "--verbose",
        ],
        capture_output=True,
        cwd=ROOT,
    )
    got["adversarial/strict.py"] = _sha(proc.stdout) + f":{proc.returncode}"
    return got


def _bench(tmp: Path) -> dict[str, str]:
    out = tmp / "bench"
    proc = _run(
        [
            "bench",
            "--narrators",
            "scripted",
            "--limit",
            "12",
            "--out",
            str(out),
            "--seed",
            "0",
            "--quiet",
            "--no-figures",
            "--resamples",
            "500",
        ]
    )
    if proc.returncode not in (0, 1, 3):
        raise SystemExit(f"bench failed ({proc.returncode}): {proc.stderr.decode()[-400:]}")
    got = {"bench/exit": str(proc.returncode)}
    jsonl = out / "results.jsonl"
    records = [_zero_timing(json.loads(x)) for x in jsonl.read_text("utf-8").splitlines() if x]
    got["bench/records"] = _sha("\n".join(json.dumps(r, sort_keys=True) for r in records).encode())
    # The report rebuilt from the records with times zeroed is a pure function of behaviour.
    fixed = tmp / "bench-fixed"
    fixed.mkdir()
    (fixed / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), "utf-8")
    proc = _run(["bench", "--report", str(fixed), "--no-figures", "--resamples", "500"])
    got["bench/report-exit"] = str(proc.returncode)
    got["bench/report.md"] = _sha((fixed / "report.md").read_bytes())
    got["bench/summary.json"] = _sha((fixed / "summary.json").read_bytes())
    return got


def manifest() -> dict[str, str]:
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        got: dict[str, str] = {}
        for part in (_graphs, _golden, _adversarial, _bench):
            print(f"identity: {part.__name__[1:]}", file=sys.stderr, flush=True)
            got.update(part(tmp))
        return got


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = ap.add_mutually_exclusive_group(required=True)
    group.add_argument("--write", type=Path, help="write the manifest here")
    group.add_argument("--check", type=Path, help="compare with this manifest")
    args = ap.parse_args()
    got = manifest()
    if args.write:
        args.write.write_text(json.dumps(got, indent=1, sort_keys=True) + "\n", "utf-8")
        print(f"identity: {len(got)} hashes written to {args.write}")
        return 0
    want = json.loads(args.check.read_text("utf-8"))
    diff = sorted(k for k in set(want) | set(got) if want.get(k) != got.get(k))
    for key in diff:
        print(f"identity: DIFFERS {key}: {want.get(key)} -> {got.get(key)}")
    print(f"identity: {len(got) - len(diff)}/{len(set(want) | set(got))} identical")
    return 1 if diff else 0


if __name__ == "__main__":
    sys.exit(main())

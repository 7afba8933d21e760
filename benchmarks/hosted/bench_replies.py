"""The hosted narrations as recorded replies that ``verity bench`` can replay.

Writes, into OUT (default ``hosted_bench/``), ``graphs/`` (the six graphs of
``narrations.json``: three card-rewards graphs, the SQL sample and the two optimization
examples, solved now) and ``replies.jsonl``: per graph, the narration's claims (entities and
numbers declared as ``run.py`` declares them) as the recorded reply to the graph's grounded
first-pass prompt. No repair reply is recorded, so the bench runs with ``--repairs 0``.

Run from the repository root::

    .venv/bin/python benchmarks/hosted/bench_replies.py hosted_bench
    .venv/bin/verity bench --narrators replay:hosted_bench/replies.jsonl \\
        --graphs hosted_bench/graphs --variants grounded --repairs 0 --restate \\
        --out hosted_bench/run --no-figures
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import run  # noqa: E402  (the hosted benchmark's graph references and declarations)

from verity import load_graph  # noqa: E402
from verity.formats import ATTEMPT_FORMAT  # noqa: E402
from verity.llm.narrators.base import Usage, output_attempt  # noqa: E402
from verity.llm.prompts import build_prompt  # noqa: E402

VARIANT = "grounded"


def write_replies(out: Path) -> int:
    """Write OUT/graphs and OUT/replies.jsonl; return how many graphs."""
    graphs = out / "graphs"
    graphs.mkdir(parents=True, exist_ok=True)
    lines = []
    cases = run.load_fixtures()["narrations"]
    for case in cases:
        path = graphs / f"{case['id']}.json"
        path.write_text(run.graph_of(case["graph"]).dumps(), "utf-8")
        g = load_graph(path)
        prompt = build_prompt(g, VARIANT)
        claims = run.narration_of(case, g)["claims"]
        attempt = output_attempt(
            prompt,
            narrator="recorded",
            model="recorded",
            raw_text=json.dumps({"claims": claims}, ensure_ascii=False),
            finish_reason="stop",
            usage=Usage(),
            latency_s=0.0,
        )
        key = {"graph_id": g.graph_id, "variant": VARIANT, "pass": 0}
        record = {
            "format": ATTEMPT_FORMAT,
            "key": {**key, "prompt_hash": prompt.prompt_hash},
            "attempt": attempt.to_dict(),
        }
        lines.append(json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n")
    (out / "replies.jsonl").write_text("".join(lines), "utf-8")
    return len(cases)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", default="hosted_bench", help="output directory")
    args = parser.parse_args(argv)
    n = write_replies(Path(args.out))
    print(f"wrote {n} graphs and their recorded replies into {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""A strong hosted model's narrations, verified: survival at pass 0, after one repair and
restated, per backend, over ``benchmarks/hosted/narrations.json``.

Run from the repository root::

    .venv/bin/python benchmarks/hosted/run.py                   # pass 0 only
    .venv/bin/python benchmarks/hosted/run.py --json
    .venv/bin/python benchmarks/hosted/run.py --narrator openai:MODEL --base-url URL
    .venv/bin/python benchmarks/hosted/run.py --restate          # when verity has it

Each fixture narration is verified under strict as written (pass 0). Per backend the
script reports: true claims shipped at pass 0, the share of shipped claims that are a cited
node's statement word for word (``verbatim``), false claims shipped (must be 0), and the
grounded prompt's size per graph (:func:`verity.llm.prompts.approx_tokens`, 3 characters a
token, the estimate the narrators check budgets with).

With ``--narrator SPEC`` (``openai:MODEL`` with ``--base-url``, ``local``, ...) the
fixture narration is pass 0 of :func:`verity.llm.repair.narrate_and_verify` and the one
repair pass goes to that narrator: a true claim *survives repair* when it shipped at pass 0
or the replacement sent for it ships. Without a narrator those columns print ``n/a``.

``--restate`` asks verity to restate a claim refused only by the text check as its cited
node's nearest declared sentence; when the installed verity has no such option (neither
``verity.verify`` nor ``narrate_and_verify`` takes ``restate``) the restated column prints
``n/a``. A shipped claim counts as restated when it carries a true ``restated`` mark.
"""

from __future__ import annotations

import argparse
import inspect
import json
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
FIXTURES = HERE / "narrations.json"
EXAMPLES = ROOT / "verity" / "data" / "examples"
BACKENDS = ("card_rewards", "sql", "lp")

import verity  # noqa: E402
from verity.bench.adversarial import declare  # noqa: E402
from verity.errors import VerityError  # noqa: E402
from verity.llm.narrators.base import (  # noqa: E402
    Attempt,
    Narrator,
    Usage,
    api_error_attempt,
    output_attempt,
)
from verity.llm.prompts import Prompt, approx_tokens, build_prompt  # noqa: E402
from verity.text.normalize import normalize  # noqa: E402


class Recorded:
    """A narrator whose replies are the recorded ones (``NAME.passN.reply.json`` in
    ``directory``; NAME is ``name``, else the prompt's graph id made a file name); a missing
    reply writes the prompt it was asked (``NAME.passN.txt``) and answers with
    ``replay.missing`` (our own logic, no model)."""

    def __init__(self, directory: Path, name: str | None = None, *, write: bool = True) -> None:
        self.name_ = name
        self.dir = directory
        self.write = write
        self.waiting = False

    @property
    def name(self) -> str:
        return "recorded"

    def narrate(self, prompt: Prompt) -> Attempt:
        name = self.name_ or re.sub(r"[^a-z0-9]+", "-", prompt.graph_id.lower()).strip("-")
        reply = self.dir / f"{name}.pass{prompt.pass_index}.reply.json"
        if not reply.exists() and self.write:
            (self.dir / f"{name}.pass{prompt.pass_index}.txt").write_text(
                prompt_text(prompt), "utf-8"
            )
        if not reply.exists():
            self.waiting = True
            return api_error_attempt(
                prompt, narrator="recorded", model="recorded", code="replay.missing",
                message=f"no recorded reply {reply.name}",
            )  # fmt: skip
        return output_attempt(
            prompt,
            narrator="recorded",
            model="recorded",
            raw_text=reply.read_text("utf-8"),
            finish_reason="stop",
            usage=Usage(),
            latency_s=0.0,
        )


def prompt_text(prompt: Prompt) -> str:
    """The prompt as the model reads it: each message with its role."""
    return "\n\n".join(f"[{m['role']}]\n{m['content']}" for m in prompt.messages())


def load_fixtures(path: Path = FIXTURES) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text("utf-8"))
    return data


def graph_of(ref: str) -> verity.EvidenceGraph:
    """``card/<file>`` (a checked-in card-rewards graph), ``sql/sample`` (the SQL sample)
    or ``lp/<example>`` (an optimization example, solved now)."""
    kind, _, name = ref.partition("/")
    if kind == "card":
        return verity.load_graph(ROOT / "evidence_graphs" / "card_rewards" / f"{name}.json")
    if ref == "sql/sample":
        from verity.backends.sql.query import graph_from_sample

        return graph_from_sample()
    if kind == "lp":
        from verity.backends.pulp import graph_from_file

        model = next(p for p in EXAMPLES.glob(f"{name}.*") if p.suffix in (".lp", ".mps"))
        return graph_from_file(model, EXAMPLES / f"{name}.labels.json")
    raise ValueError(f"unknown graph reference {ref!r}")


def narration_of(case: Mapping[str, Any], g: verity.EvidenceGraph) -> dict[str, Any]:
    """The fixture's claims with entities and numbers declared from their text."""
    claims = [declare(c, g, i) for i, c in enumerate(case["claims"])]
    return {"format": "verity.narration/1", "graph_id": g.graph_id, "claims": claims}


def is_verbatim(claim: Any, g: verity.EvidenceGraph, *, named: bool = False) -> bool:
    """The claim's text is one of its cited nodes' statements, word for word (letter case,
    width and spacing aside); with ``named``, also the statement with its entities written
    by their display names (as the grounded prompt lists it)."""

    def key(text: str) -> str:
        return " ".join(normalize(text).split()).rstrip(". ")

    def forms(statement: str) -> set[str]:
        return {key(statement), key(g.named(statement))} if named else {key(statement)}

    text = key(claim.text)
    cited = [g.nodes[i].statement for i in claim.cited_evidence_ids if i in g.nodes]
    return any(text in forms(s) for s in cited)


def restate_supported() -> str | None:
    """Where the installed verity takes ``restate``: ``verify``, ``narrate_and_verify`` or
    None (not available)."""
    from verity.llm import repair

    if "restate" in inspect.signature(verity.verify).parameters:
        return "verify"
    if "restate" in inspect.signature(repair.narrate_and_verify).parameters:
        return "narrate_and_verify"
    return None


def is_restated(claim: Any) -> bool:
    """The shipped claim carries a true ``restated`` mark (attribute or extra field)."""
    extra = getattr(claim, "model_extra", None) or {}
    return bool(getattr(claim, "restated", False) or extra.get("restated"))


class FixtureFirst:
    """A narrator whose pass 0 is the fixture narration as written; repair passes go to
    ``then`` (a real narrator). Our own logic, not a stand-in for a model."""

    def __init__(self, claims: Sequence[Mapping[str, Any]], then: Narrator) -> None:
        written = [{k: v for k, v in c.items() if k != "id"} for c in claims]
        self._raw = json.dumps({"claims": written})
        self._then = then

    @property
    def name(self) -> str:
        return f"fixture+{self._then.name}"

    def narrate(self, prompt: Prompt) -> Attempt:
        if prompt.pass_index > 0:
            return self._then.narrate(prompt)
        return output_attempt(
            prompt,
            narrator=self.name,
            model="fixture",
            raw_text=self._raw,
            finish_reason="stop",
            usage=Usage(),
            latency_s=0.0,
        )


@dataclass
class Tally:
    """Counts over one backend's (or all) narrations."""

    graphs: int = 0
    true_claims: int = 0
    false_claims: int = 0
    true_shipped_pass0: int = 0
    false_shipped_pass0: int = 0
    shipped_pass0: int = 0
    verbatim_pass0: int = 0
    prompt_tokens: list[int] = field(default_factory=list)
    # After one repair (None: no narrator given).
    true_survived_repair: int | None = None
    false_shipped_final: int | None = None
    shipped_final: int | None = None
    verbatim_final: int | None = None
    repair_prompt_tokens: int | None = None
    # Restated (None: not available or not asked for).
    restated: int | None = None
    # Pass 0 with --restate and no narrator: true claims shipping as written or restated,
    # and false claims whose text was replaced by their node's declared sentence.
    true_shipped_restate: int | None = None
    false_restated: int | None = None
    refused_true: list[str] = field(default_factory=list)
    escaped: list[str] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        for name, value in vars(other).items():
            mine = getattr(self, name)
            if isinstance(value, list):
                mine.extend(value)
            elif value is not None:
                setattr(self, name, (mine or 0) + value)


def _pct(n: int | None, d: int | None) -> str:
    if n is None or d is None:
        return "n/a"
    return f"{n}/{d} ({100 * n / d:.0f}%)" if d else "0/0"


def measure_case(
    case: Mapping[str, Any],
    *,
    narrator: Narrator | None,
    restate: str | None,
) -> Tally:
    """One fixture narration: pass 0 as written, then (with a narrator) one repair."""
    g = graph_of(case["graph"])
    narration = narration_of(case, g)
    truth = [bool(c["truth"]) for c in case["claims"]]
    t = Tally(graphs=1, true_claims=sum(truth), false_claims=len(truth) - sum(truth))
    t.prompt_tokens.append(approx_tokens(build_prompt(g, "grounded")))
    options: dict[str, Any] = {"restate": True} if restate == "verify" else {}
    report = verity.verify(g, narration, "strict", on_fail="filter", **options)
    shipped_ids = {c.id for c in report.shipped}
    for i, claim in enumerate(narration["claims"]):
        shipped = claim["id"] in shipped_ids
        if truth[i] and shipped:
            t.true_shipped_pass0 += 1
        elif truth[i]:
            t.refused_true.append(f"{case['id']}/{claim['id']}: {claim['text']}")
        elif shipped:
            t.false_shipped_pass0 += 1
            t.escaped.append(f"{case['id']}/{claim['id']}: {claim['text']}")
    t.shipped_pass0 = len(report.shipped)
    t.verbatim_pass0 = sum(is_verbatim(c, g) for c in report.shipped)
    if restate == "verify":
        t.restated = sum(is_restated(c) for c in report.shipped)
    if narrator is None:
        if restate == "narrate_and_verify":
            _restate_pass0(t, g, narration["claims"], truth)
        return t
    from verity.llm.repair import narrate_and_verify

    kwargs: dict[str, Any] = {"restate": True} if restate == "narrate_and_verify" else {}
    result = narrate_and_verify(
        g, FixtureFirst(narration["claims"], narrator), "grounded", "strict", 1, **kwargs
    )
    final = result.final
    final_ids = {c.id for c in final.shipped}
    true_ids = {c["id"] for c, ok in zip(narration["claims"], truth, strict=True) if ok}
    false_ids = {c["id"] for c, ok in zip(narration["claims"], truth, strict=True) if not ok}
    replaced_for = {}
    if len(result.passes) > 1:
        replaced_for = {old: new for new, old in result.passes[1].replaces.items()}
    survived = 0
    for cid in true_ids:
        if cid in shipped_ids or replaced_for.get(cid) in final_ids:
            survived += 1
    t.true_survived_repair = survived
    # A false fixture claim is final only if it shipped at pass 0 (kept as it was).
    t.false_shipped_final = len(false_ids & shipped_ids)
    t.shipped_final = len(final.shipped)
    t.verbatim_final = sum(is_verbatim(c, g) for c in final.shipped)
    t.repair_prompt_tokens = sum(p.attempt.usage.prompt_tokens for p in result.passes[1:])
    if restate == "narrate_and_verify":
        t.restated = sum(is_restated(c) for c in final.shipped)
    return t


class _NoRepair:
    """The narrator after pass 0 when none is given: never called (no repair pass)."""

    name = "none"

    def narrate(self, prompt: Prompt) -> Attempt:  # pragma: no cover - repairs=0
        raise RuntimeError("no repair narrator")


def _restate_pass0(
    t: Tally, g: Any, claims: Sequence[Mapping[str, Any]], truth: Sequence[bool]
) -> None:
    """Pass 0 as written, then restatement without a model call (no repair)."""
    from verity.llm.repair import narrate_and_verify

    result = narrate_and_verify(
        g, FixtureFirst(claims, _NoRepair()), "grounded", "strict", 0, restate=True
    )
    shipped = {c.id for c in result.final.shipped}
    restated = {r.id for r in result.restated}
    ids = [c["id"] for c in claims]
    t.true_shipped_restate = sum(ok and i in shipped for i, ok in zip(ids, truth, strict=True))
    t.false_restated = sum(not ok and i in restated for i, ok in zip(ids, truth, strict=True))
    t.shipped_final = len(shipped)
    t.restated = len(restated & shipped)


def measure(
    data: Mapping[str, Any], *, narrator: Narrator | None = None, restate: str | None = None
) -> dict[str, Tally]:
    """Per backend and ``all``."""
    out = {b: Tally() for b in BACKENDS}
    for case in data["narrations"]:
        out[case["backend"]].add(measure_case(case, narrator=narrator, restate=restate))
    total = Tally()
    for t in out.values():
        total.add(t)
    out["all"] = total
    return out


def render(result: Mapping[str, Tally], *, restate_asked: bool) -> str:
    rows: list[tuple[str, Callable[[Tally], str]]] = [
        ("graphs", lambda t: str(t.graphs)),
        ("true claims", lambda t: str(t.true_claims)),
        ("false claims", lambda t: str(t.false_claims)),
        ("strict ships, pass 0 (true)", lambda t: _pct(t.true_shipped_pass0, t.true_claims)),
        ("verbatim of shipped, pass 0", lambda t: _pct(t.verbatim_pass0, t.shipped_pass0)),
        ("false claims shipped, pass 0", lambda t: str(t.false_shipped_pass0)),
        ("after one repair (true)", lambda t: _pct(t.true_survived_repair, t.true_claims)),
        ("verbatim of shipped, repaired", lambda t: _pct(t.verbatim_final, t.shipped_final)),
        (
            "false claims shipped, repaired",
            lambda t: "n/a" if t.false_shipped_final is None else str(t.false_shipped_final),
        ),
        (
            "pass 0 + restated, no model (true)",
            lambda t: _pct(t.true_shipped_restate, t.true_claims),
        ),
        (
            "false claims restated (ship their node's sentence)",
            lambda t: "n/a" if t.false_restated is None else str(t.false_restated),
        ),
        (
            "restated of shipped",
            lambda t: (
                _pct(t.restated, t.shipped_final or t.shipped_pass0) if restate_asked else "n/a"
            ),
        ),
        (
            "repair prompt tokens (endpoint)",
            lambda t: "n/a" if t.repair_prompt_tokens is None else str(t.repair_prompt_tokens),
        ),
        (
            "grounded prompt tokens/graph",
            lambda t: (
                "-".join(str(x) for x in sorted({min(t.prompt_tokens), max(t.prompt_tokens)}))
                if t.prompt_tokens
                else "-"
            ),
        ),
    ]
    cols: list[str] = list(result)
    lines = ["| measure | " + " | ".join(cols) + " |", "|---|" + "---:|" * len(cols)]
    for label, fmt in rows:
        lines.append(f"| {label} | " + " | ".join(fmt(result[c]) for c in cols) + " |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fixtures", type=Path, default=FIXTURES)
    parser.add_argument("--narrator", help="repair through this narrator (openai:MODEL, local...)")
    parser.add_argument("--base-url", help="the endpoint of an openai:MODEL narrator")
    parser.add_argument("--response-format", help="json_schema, json_object or auto (openai)")
    parser.add_argument("--timeout", type=float, help="seconds per request (openai)")
    parser.add_argument("--max-tokens", type=int, help="output tokens per repair call")
    parser.add_argument(
        "--recorded",
        type=Path,
        help="repair with the replies recorded in this directory (a missing one writes its "
        "prompt there: GRAPH.pass1.txt)",
    )
    parser.add_argument("--restate", action="store_true", help="restate when verity can")
    parser.add_argument("--json", action="store_true", help="print the counts as JSON")
    parser.add_argument("--verbose", action="store_true", help="list refused true claims")
    args = parser.parse_args(argv)
    narrator: Narrator | None = None
    try:
        data = load_fixtures(args.fixtures)
        if args.narrator:
            from verity.llm.narrators import narrator_from_spec

            options = {
                "base_url": args.base_url,
                "response_format": args.response_format,
                "timeout_s": args.timeout,
                "max_tokens": args.max_tokens,
            }
            narrator = narrator_from_spec(args.narrator, **options)
        elif args.recorded:
            args.recorded.mkdir(parents=True, exist_ok=True)
            narrator = Recorded(args.recorded)
        restate = restate_supported() if args.restate else None
        result = measure(data, narrator=narrator, restate=restate)
    except (OSError, ValueError, VerityError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.restate and restate is None:
        print("note: this verity has no restate option; restated: n/a", file=sys.stderr)
    if args.json:
        print(json.dumps({k: vars(v) for k, v in result.items()}, indent=2))
    else:
        print(render(result, restate_asked=restate is not None))
        if args.verbose:
            for line in result["all"].refused_true:
                print(f"refused (true): {line}")
    for line in result["all"].escaped:
        print(f"ESCAPE (false claim shipped): {line}", file=sys.stderr)
    return 1 if result["all"].escaped else 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Running the benchmark: plan the instances, narrate and verify them, record, resume.

An instance (narrator x variant x graph) is the unit of work. Its first pass is narrated
once and verified under every profile; then the repair loop runs once per profile, from
that shared first pass (a wrapper hands the repair loop the first attempt it already has).
All records of an instance are written together in one append, flushed and fsync'd, as
soon as it finishes, so killing the run loses at most the instances in flight; the
report is built into a hidden sibling of the output directory and moved in at the end
(:func:`verity.bench.report.build_report`), so an interrupted run leaves the report of
the run before it as it was.

``--resume`` reads the results file, drops a partial last line and the records of any
incomplete instance (rewriting the file atomically, and saying what it dropped), and skips
every complete instance.

Graphs: ``--graphs DIR``, else ``evidence_graphs/card_rewards`` of the working directory
or of the source checkout verity runs from; an installed copy has neither, so the graphs
are solved with the card-rewards backend into the run's output directory
(:func:`build_card_rewards_graphs`), byte for byte the files a checkout holds.
Instances run in graph order, then narrator, then variant, so a run cut short still holds
paired variants for the graphs it reached.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TextIO

from verity.bench import DEFAULT_RESAMPLES, MAX_REPAIRS, RESULTS_FILE
from verity.bench.records import (
    BenchRecord,
    ErrorInfo,
    InstanceKey,
    LoadedRecords,
    RestatedClaim,
    ShippedBy,
    TokenUsage,
    VerdictRecord,
    cluster_of,
    complete_instances,
    opens_with_headline,
    parse_record_lines,
    record_line,
    verdict_records,
)
from verity.bench.report import ReportFiles, build_report
from verity.core.gates import PROFILES
from verity.core.graph import EvidenceGraph, load_graph
from verity.core.report import Report
from verity.errors import InputError
from verity.files import staged_dir, write_file
from verity.llm.narrators.base import Attempt, Narrator
from verity.llm.prompts import VARIANTS, Prompt
from verity.progress import Progress

if TYPE_CHECKING:
    from verity.llm.repair import Restatement

__all__ = [
    "DEFAULT_GRAPHS",
    "MAX_REPAIRS",
    "RESULTS_FILE",
    "BenchPlan",
    "PassResult",
    "RepairFn",
    "RepairResult",
    "ResumeDecision",
    "RunOutcome",
    "build_card_rewards_graphs",
    "card_rewards_graph_names",
    "check_out_dir",
    "check_plan",
    "decide_resume",
    "default_graph_dir",
    "find_graphs",
    "instance_records",
    "make_narrator",
    "prepare_results",
    "run_bench",
]

DEFAULT_GRAPHS = Path("evidence_graphs") / "card_rewards"


class PassResult(Protocol):
    """One pass of the repair loop: the narrator's attempt, the claims the pass stands for
    (a repair pass: the kept claims, then the replacements) and the report on them."""

    @property
    def attempt(self) -> Attempt: ...

    @property
    def claims(self) -> Sequence[Any]: ...

    @property
    def report(self) -> Report | None: ...


class RepairResult(Protocol):
    """What the repair loop returns: its passes, first pass first, and (read only in a
    ``--restate`` run) what it restated and how the claims that ship got through."""

    @property
    def passes(self) -> Sequence[PassResult]: ...

    @property
    def restated(self) -> Sequence[Restatement]: ...

    def shipped_by(self) -> dict[str, int]: ...


#: ``(graph, narrator, variant, profile, repairs) -> RepairResult``
RepairFn = Callable[[EvidenceGraph, Narrator, str, str, int], RepairResult]


def _default_repair_fn(restate: bool = False) -> RepairFn:
    """:func:`verity.pipeline.narrate`, restating claims refused only by their words when
    ``restate``."""
    from verity.pipeline import narrate

    def run(
        graph: EvidenceGraph, narrator: Narrator, variant: str, profile: str, repairs: int
    ) -> RepairResult:
        result: RepairResult = narrate(graph, narrator, variant, profile, repairs, restate=restate)
        return result

    return run


# --- plan ------------------------------------------------------------------------------


@dataclass(frozen=True)
class BenchPlan:
    """What to run: narrator specs, variants, profiles, graph files and settings."""

    narrators: tuple[str, ...]
    variants: tuple[str, ...]
    profiles: tuple[str, ...]
    graphs: tuple[Path, ...]
    repairs: int = 1
    seed: int = 0
    concurrency: int = 1
    #: Ship a claim refused only by its words as its node's declared sentence (``--restate``).
    restate: bool = False

    def __post_init__(self) -> None:
        check_plan(self.narrators, self.variants, self.profiles, self.repairs, self.concurrency)
        if not self.graphs:
            raise InputError("no graphs to run")


def check_plan(
    narrators: Sequence[str],
    variants: Sequence[str],
    profiles: Sequence[str],
    repairs: int = 1,
    concurrency: int = 1,
) -> None:
    """Refuse a plan that cannot run, before any graph is found or solved: unknown or
    repeated variants and profiles, narrator specs that are unknown, repeated or lack
    their extra (:func:`verity.llm.narrators.check_spec`), repairs or concurrency out of
    range."""
    from verity.llm.narrators import check_spec

    _check_names("variant", variants, VARIANTS)
    _check_names("profile", profiles, PROFILES)
    if not narrators:
        raise InputError("no narrators to run")
    if len(set(narrators)) != len(narrators):
        raise InputError("a narrator is named twice")
    for spec in narrators:
        check_spec(spec)
    if not 0 <= repairs <= MAX_REPAIRS:
        raise InputError(f"repairs must be between 0 and {MAX_REPAIRS}")
    if concurrency < 1:
        raise InputError("concurrency must be at least 1")


def _check_names(what: str, given: Sequence[str], allowed: Sequence[str]) -> None:
    if not given:
        raise InputError(f"no {what}s to run")
    for name in given:
        if name not in allowed:
            raise InputError(f"unknown {what} {name!r}; expected one of {', '.join(allowed)}")
    if len(set(given)) != len(given):
        raise InputError(f"a {what} is named twice")


def default_graph_dir() -> Path | None:
    """``evidence_graphs/card_rewards`` of the working directory, else of the source checkout
    this verity was imported from; None when neither exists (an installed copy)."""
    if DEFAULT_GRAPHS.is_dir():
        return DEFAULT_GRAPHS
    root = Path(__file__).resolve().parents[2]
    checkout = root / DEFAULT_GRAPHS
    if (root / "pyproject.toml").is_file() and checkout.is_dir():
        return checkout
    return None


def card_rewards_graph_names() -> list[str]:
    """File names of every card-rewards graph (profile x goal), in name order."""
    from verity.backends.card_rewards import GOALS, graph_file_name, load_profiles

    return sorted(graph_file_name(p, g) for p in load_profiles() for g in GOALS)


def build_card_rewards_graphs(
    out_dir: str | Path, limit: int | None = None, *, log: TextIO | None = None
) -> Path:
    """Solve the first ``limit`` card-rewards graphs (name order) into ``out_dir``.

    The files are what ``verity optimize --all`` writes (and what a checkout holds); a
    file already holding the same bytes is left alone. They are solved into a hidden
    sibling of ``out_dir`` and moved in when all are written
    (:func:`verity.files.staged_dir`). Returns ``out_dir``.
    """
    from verity.backends.card_rewards import solved_graphs

    out = Path(out_dir)
    wanted = card_rewards_graph_names()
    chosen = set(wanted if limit is None else wanted[:limit])
    if log is not None:
        print(
            f"bench: solving {len(chosen)} card-rewards graphs into {out} (no "
            f"{DEFAULT_GRAPHS} here)",
            file=log,
            flush=True,
        )
    with staged_dir(out) as staging:
        for name, text in solved_graphs(names=chosen):
            if not _holds(out / name, text):
                write_file(staging / name, text)
    return out


def _holds(path: Path, text: str) -> bool:
    """True when ``path`` is a file holding ``text``."""
    try:
        return path.is_file() and path.read_text("utf-8") == text
    except (OSError, UnicodeDecodeError):
        return False


def find_graphs(
    directory: str | Path | None = None,
    limit: int | None = None,
    *,
    build_dir: str | Path | None = None,
    log: TextIO | None = None,
) -> list[Path]:
    """The ``*.json`` graph files of ``directory`` in name order, at most ``limit``.

    Without ``directory``: :func:`default_graph_dir`, else the graphs solved into
    ``build_dir`` (:func:`build_card_rewards_graphs`).
    """
    if limit is not None and limit < 1:
        raise InputError("limit must be at least 1")
    if directory is not None:
        d = Path(directory)
    else:
        found = default_graph_dir()
        if found is not None:
            d = found
        elif build_dir is not None:
            d = build_card_rewards_graphs(build_dir, limit, log=log)
        else:
            raise InputError(f"no {DEFAULT_GRAPHS} directory here; pass --graphs DIR")
    if not d.is_dir():
        raise InputError(f"graph directory {d} does not exist")
    files = sorted(p for p in d.glob("*.json") if p.is_file())
    if not files:
        raise InputError(f"graph directory {d} holds no .json files")
    return files[:limit] if limit is not None else files


_SEEDED_KINDS = ("local", "openai", "scripted")


def make_narrator(
    spec: str,
    seed: int,
    openai_options: Mapping[str, Any] | None = None,
    local_options: Mapping[str, Any] | None = None,
) -> Narrator:
    """Build a narrator from its spec; the run seed goes to every kind that takes one,
    ``openai_options`` to openai narrators and ``local_options`` to the local one."""
    from verity.llm.narrators import narrator_from_spec

    kind = spec.partition(":")[0]
    options: dict[str, Any] = {}
    if kind in _SEEDED_KINDS:
        options["seed"] = seed
    if kind == "openai" and openai_options:
        options.update(openai_options)
    if kind == "local" and local_options:
        options.update(local_options)
    return narrator_from_spec(spec, **options)


# --- one instance ----------------------------------------------------------------------


class _SharedFirstPass:
    """Narrator wrapper: narrates a first-pass prompt once and hands back the same attempt.

    The repair loop runs once per profile; each run starts from the same first pass. An
    optional lock serializes calls (the embedded model runs one narration at a time).
    """

    def __init__(self, inner: Narrator, lock: threading.Lock | None) -> None:
        self._inner = inner
        self._lock = lock
        self._first: dict[str, Attempt] = {}
        self.calls = 0

    @property
    def name(self) -> str:
        return self._inner.name

    def narrate(self, prompt: Prompt) -> Attempt:
        if prompt.pass_index == 0 and prompt.prompt_hash in self._first:
            return self._first[prompt.prompt_hash]
        self.calls += 1
        if self._lock is not None:
            with self._lock:
                attempt = self._inner.narrate(prompt)
        else:
            attempt = self._inner.narrate(prompt)
        if prompt.pass_index == 0:
            self._first[prompt.prompt_hash] = attempt
        return attempt

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def _status(attempt: Attempt) -> str:
    if attempt.api_error is not None:
        return "api_error"
    if attempt.parse_error is not None or attempt.narration is None:
        return "parse_error"
    return "ok"


def _error(err: Any) -> ErrorInfo | None:
    return None if err is None else ErrorInfo(code=str(err.code), message=str(err.message))


def _from_pass(
    base: Mapping[str, Any],
    pass_index: int,
    repair_profile: str | None,
    result: PassResult,
    verdicts: dict[str, list[VerdictRecord]],
    wall: float | None = None,
    headline: Mapping[str, bool | None] | None = None,
) -> BenchRecord:
    attempt = result.attempt
    opens = {p: v for p, v in (headline or {}).items() if v is not None}
    return BenchRecord(
        **base,
        pass_index=pass_index,
        repair_profile=repair_profile,
        status=_status(attempt),
        prompt_hash=attempt.prompt_hash,
        raw_response=attempt.raw_text,
        parse_error=_error(attempt.parse_error),
        error=_error(attempt.api_error),
        claims=list(result.claims),
        verdicts=verdicts,
        usage=TokenUsage(
            prompt_tokens=attempt.usage.prompt_tokens,
            completion_tokens=attempt.usage.completion_tokens,
        ),
        latency_s=max(0.0, attempt.latency_s),
        finish_reason=attempt.finish_reason,
        instance_wall_s=wall,
        opens_with_headline=opens,
    )


def _carried(previous: BenchRecord, pass_index: int, profile: str) -> BenchRecord:
    return previous.model_copy(
        update={
            "pass_index": pass_index,
            "repair_profile": profile,
            "status": "carried",
            "prompt_hash": "",
            "raw_response": "",
            "parse_error": None,
            "error": None,
            "verdicts": {profile: previous.verdicts[profile]},
            "opens_with_headline": {
                k: v for k, v in previous.opens_with_headline.items() if k == profile
            },
            "usage": TokenUsage(),
            "latency_s": 0.0,
            "finish_reason": None,
            "instance_wall_s": None,
        }
    )


def instance_records(
    graph: EvidenceGraph,
    narrator: Narrator,
    variant: str,
    profiles: Sequence[str],
    repairs: int,
    seed: int,
    repair_fn: RepairFn,
    *,
    lock: threading.Lock | None = None,
    restate: bool = False,
) -> list[BenchRecord]:
    """Run one instance under every profile and return its records (pass 0 first).

    A pass the repair loop did not run is recorded as ``carried`` (the previous pass
    repeated), so every instance has ``1 + repairs * len(profiles)`` records. With
    ``restate`` (``repair_fn`` restated), every record says so and the record ending each
    profile's loop holds its ``shipped_by`` counts and restatements
    (:func:`_with_restated`).
    """
    started = time.perf_counter()
    shared = _SharedFirstPass(narrator, lock)
    results = {p: repair_fn(graph, shared, variant, p, repairs) for p in profiles}
    wall = time.perf_counter() - started
    firsts = [results[p].passes[0].attempt for p in profiles]
    if any(a != firsts[0] for a in firsts):
        raise RuntimeError("the repair loop did not start every profile from the shared first pass")
    base = {
        "graph_id": graph.graph_id,
        "cluster": cluster_of(graph.graph_id),
        "narrator": narrator.name,
        "variant": variant,
        "simulated": any(p.attempt.simulated for r in results.values() for p in r.passes),
        "profiles": list(profiles),
        "repairs": repairs,
        "seed": seed,
        "restate": restate,
    }
    verdicts0 = {p: verdict_records(results[p].passes[0].report) for p in profiles}
    heads0 = {p: opens_with_headline(graph, results[p].passes[0].report) for p in profiles}
    records = [_from_pass(base, 0, None, results[profiles[0]].passes[0], verdicts0, wall, heads0)]
    for p in profiles:
        passes = results[p].passes
        previous = records[0]
        for k in range(1, repairs + 1):
            if k < len(passes):
                rec = _from_pass(
                    base,
                    k,
                    p,
                    passes[k],
                    {p: verdict_records(passes[k].report)},
                    headline={p: opens_with_headline(graph, passes[k].report)},
                )
            else:
                rec = _carried(previous, k, p)
            records.append(rec)
            previous = rec
    return _with_restated(records, results, repairs) if restate else records


def _with_restated(
    records: list[BenchRecord], results: Mapping[str, RepairResult], repairs: int
) -> list[BenchRecord]:
    """``records`` with each profile's ``shipped_by`` counts and restatements on the record
    that ends its repair loop: pass ``repairs`` of that profile (pass 0, shared by every
    profile, when ``repairs`` is 0)."""
    out = list(records)
    for i, rec in enumerate(out):
        profiles = [p for p in rec.verdicts if rec.pass_index == repairs]
        if not profiles:
            continue
        shipped_by = {p: ShippedBy(**results[p].shipped_by()) for p in profiles}
        restated = {
            p: [RestatedClaim(**r.to_dict()) for r in results[p].restated]
            for p in profiles
            if results[p].restated
        }
        out[i] = rec.model_copy(update={"shipped_by": shipped_by, "restated": restated})
    return out


# --- the results file ------------------------------------------------------------------


def _atomic_write(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def _read_results(path: Path) -> bytes | None:
    """The results file's bytes, or None when there is no file."""
    if not path.exists():
        return None
    try:
        return path.read_bytes()
    except OSError as exc:
        raise InputError(f"results file {path} cannot be read: {exc.strerror or exc}") from None


@dataclass(frozen=True)
class ResumeDecision:
    """What to do with the results file found at the start of a run.

    ``complete`` holds the complete instances to skip. ``rewrite`` is the file's new
    content when something must be dropped (None: leave the file as it is), and ``note``
    says what was dropped.
    """

    complete: dict[InstanceKey, list[BenchRecord]]
    rewrite: bytes | None = None
    note: str | None = None


def _dropped_note(
    path: Path, data: bytes, loaded: LoadedRecords, kept: int, incomplete: int
) -> str:
    torn = len(data) - loaded.valid_bytes
    dropped = [f"a partial last line ({torn} bytes, a write cut short)"] * bool(loaded.partial_tail)
    if len(loaded.records) != kept:
        dropped.append(
            f"{len(loaded.records) - kept} records of "
            f"{incomplete} incomplete instance(s), to be rerun"
        )
    return f"bench: --resume dropped {' and '.join(dropped)} from {path}"


def decide_resume(data: bytes | None, path: Path, *, resume: bool) -> ResumeDecision:
    """Decide, from the results file's bytes (None: no file), what a run starts from.

    Pure: ``path`` only names the file in messages. No file or an empty one starts
    afresh; a non-empty one needs ``resume`` (else :class:`InputError`), and then a
    partial last line and the records of incomplete instances are dropped.
    """
    if data is None or not data.strip():
        return ResumeDecision({})
    if not resume:
        raise InputError(
            f"{path} already holds results; pass --resume to continue that run "
            "or choose another --out"
        )
    loaded = parse_record_lines(data, f"results file {path}")
    complete, incomplete = complete_instances(loaded.records)
    kept_records = sum(map(len, complete.values()))
    if not (loaded.partial_tail or incomplete or kept_records != len(loaded.records)):
        return ResumeDecision(complete)
    kept = "".join(record_line(r) for group in complete.values() for r in group)
    note = _dropped_note(path, data, loaded, kept_records, len(incomplete))
    return ResumeDecision(complete, kept.encode("utf-8"), note)


def prepare_results(
    path: Path, *, resume: bool, log: TextIO | None = None
) -> dict[InstanceKey, list[BenchRecord]]:
    """Ready the results file; return the complete instances already in it.

    Without ``resume`` the file must be absent or empty. With it, a partial last line
    and the records of incomplete instances are removed (the file is rewritten
    atomically when anything is removed, and ``log`` is told what was dropped); the
    decision is :func:`decide_resume`.
    """
    decision = decide_resume(_read_results(path), path, resume=resume)
    if decision.rewrite is not None:
        if log is not None and decision.note is not None:
            print(decision.note, file=log, flush=True)
        _atomic_write(path, decision.rewrite)
    return decision.complete


class _Appender:
    """Appends whole instances to the results file: one write, flushed and fsync'd."""

    def __init__(self, path: Path) -> None:
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def write(self, records: Sequence[BenchRecord]) -> None:
        data = memoryview("".join(record_line(r) for r in records).encode("utf-8"))
        while data:
            written = os.write(self._fd, data)
            data = data[written:]
        os.fsync(self._fd)

    def close(self) -> None:
        os.close(self._fd)


# --- the run ---------------------------------------------------------------------------


@dataclass(frozen=True)
class RunOutcome:
    """What a run did."""

    results: Path
    planned: int
    skipped: int
    ran: int
    report: ReportFiles | None


@dataclass(frozen=True)
class _Unit:
    key: InstanceKey
    spec: str
    graph: EvidenceGraph


def _check_settings(
    done: Mapping[InstanceKey, list[BenchRecord]],
    settings: tuple[Sequence[str], int, int, bool],
    keys: set[InstanceKey] | None = None,
) -> None:
    """Refuse to resume records (of ``keys``; None: all) made with other profiles,
    repairs, seed or restate than ``settings``."""
    profiles, repairs, seed, restate = settings
    for key, group in done.items():
        if keys is not None and key not in keys:
            continue
        r = group[0]
        if (list(r.profiles), r.repairs, r.seed) != (list(profiles), repairs, seed):
            raise InputError(
                f"the results file was made with profiles {','.join(r.profiles)}, repairs "
                f"{r.repairs}, seed {r.seed}; resume with the same settings or use another --out"
            )
        if r.restate != restate:
            made = "with" if r.restate else "without"
            raise InputError(
                f"the results file was made {made} --restate; resume {made} it or use another --out"
            )


def _run_units(
    units: Iterator[_Unit],
    run_one: Callable[[_Unit], list[BenchRecord]],
    on_done: Callable[[list[BenchRecord]], None],
    concurrency: int,
) -> None:
    if concurrency == 1:
        for unit in units:
            on_done(run_one(unit))
        return
    with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="bench") as pool:
        pending: set[Future[list[BenchRecord]]] = set()
        for unit in units:
            pending.add(pool.submit(run_one, unit))
            if len(pending) >= concurrency:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for fut in done:
                    on_done(fut.result())
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for fut in done:
                on_done(fut.result())


def check_out_dir(
    out_dir: str | Path,
    *,
    resume: bool,
    profiles: Sequence[str],
    repairs: int,
    seed: int,
    restate: bool = False,
) -> None:
    """Refuse an output directory a run cannot use, writing nothing: a file of that
    name, results there without ``resume``, or results made with other profiles,
    repairs, seed or restate."""
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise InputError(f"output directory {out} is a file")
    results = out / RESULTS_FILE
    decision = decide_resume(_read_results(results), results, resume=resume)
    _check_settings(decision.complete, (profiles, repairs, seed, restate))


def _make_out_dir(out_dir: str | Path) -> Path:
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create output directory {out}: {exc.strerror or exc}") from None
    return out


def _load_graphs(paths: Sequence[Path]) -> list[EvidenceGraph]:
    graphs = [load_graph(p) for p in paths]
    if len({g.graph_id for g in graphs}) != len(graphs):
        raise InputError("two graph files share a graph_id")
    return graphs


def _build_narrators(
    plan: BenchPlan,
    ready: Mapping[str, Narrator] | None,
    openai_options: Mapping[str, Any] | None,
    local_options: Mapping[str, Any] | None = None,
) -> tuple[dict[str, Narrator], dict[str, str]]:
    """The narrator of every planned spec (``ready`` ones first) and each one's name."""
    built = dict(ready or {})
    for spec in plan.narrators:
        if spec not in built:
            built[spec] = make_narrator(spec, plan.seed, openai_options, local_options)
    names = {spec: built[spec].name for spec in plan.narrators}
    if len(set(names.values())) != len(names):
        raise InputError("two narrators report the same name")
    return built, names


def _plan_units(
    plan: BenchPlan, graphs: Sequence[EvidenceGraph], names: Mapping[str, str]
) -> list[_Unit]:
    """Every instance, in graph order, then narrator, then variant."""
    return [
        _Unit(InstanceKey(names[spec], variant, g.graph_id), spec, g)
        for g in graphs
        for spec in plan.narrators
        for variant in plan.variants
    ]


def _unit_runner(
    plan: BenchPlan, built: Mapping[str, Narrator], repair_fn: RepairFn | None
) -> Callable[[_Unit], list[BenchRecord]]:
    """Runs one instance; a local narrator's instances take turns on one lock."""
    fn = repair_fn if repair_fn is not None else _default_repair_fn(plan.restate)
    locks = {spec: threading.Lock() for spec in plan.narrators if spec.partition(":")[0] == "local"}

    def run_one(unit: _Unit) -> list[BenchRecord]:
        return instance_records(
            unit.graph,
            built[unit.spec],
            unit.key.variant,
            plan.profiles,
            plan.repairs,
            plan.seed,
            fn,
            lock=locks.get(unit.spec),
            restate=plan.restate,
        )

    return run_one


def _run_and_append(
    todo: Sequence[_Unit],
    run_one: Callable[[_Unit], list[BenchRecord]],
    results: Path,
    concurrency: int,
    progress: TextIO | None,
) -> int:
    """Run ``todo``, appending each instance's records as it finishes; return how many ran."""
    bar = Progress(len(todo), label="bench", stream=progress) if progress and todo else None
    if bar is not None:
        bar.start()
    appender = _Appender(results)
    ran = 0

    def on_done(records: list[BenchRecord]) -> None:
        nonlocal ran
        appender.write(records)
        ran += 1
        if bar is not None:
            bar.update()

    try:
        _run_units(iter(todo), run_one, on_done, concurrency)
    finally:
        appender.close()
        if bar is not None:
            bar.close()
    return ran


def run_bench(
    plan: BenchPlan,
    out_dir: str | Path,
    *,
    resume: bool = False,
    narrators: Mapping[str, Narrator] | None = None,
    repair_fn: RepairFn | None = None,
    openai_options: Mapping[str, Any] | None = None,
    local_options: Mapping[str, Any] | None = None,
    progress: TextIO | None = None,
    report: bool = True,
    resamples: int = DEFAULT_RESAMPLES,
    figures: bool = True,
    log: TextIO | None = None,
) -> RunOutcome:
    """Run every planned instance not already done, appending records as they finish.

    ``narrators`` maps specs to ready narrators (built from the specs otherwise, with
    ``openai_options`` and ``local_options``);
    ``progress`` is the stream for the progress bar (None: no bar). With ``report``, the
    report is rebuilt from the results file at the end. ``log`` gets one-line notes
    (what ``--resume`` dropped).
    """
    out = _make_out_dir(out_dir)
    results = out / RESULTS_FILE
    done = prepare_results(results, resume=resume, log=log)
    graphs = _load_graphs(plan.graphs)
    built, names = _build_narrators(plan, narrators, openai_options, local_options)
    units = _plan_units(plan, graphs, names)
    settings = (plan.profiles, plan.repairs, plan.seed, plan.restate)
    _check_settings(done, settings, {u.key for u in units})
    todo = [u for u in units if u.key not in done]
    if log is not None:
        print(
            f"bench: {len(graphs)} graphs x {len(plan.variants)} variants x "
            f"{len(plan.narrators)} narrator(s) = {len(units)} instances, "
            f"{len(units) - len(todo)} already done; results in {results}",
            file=log,
            flush=True,
        )
    run_one = _unit_runner(plan, built, repair_fn)
    ran = _run_and_append(todo, run_one, results, plan.concurrency, progress)
    files = build_report(results, out, resamples=resamples, figures=figures) if report else None
    return RunOutcome(results, len(units), len(units) - len(todo), ran, files)

"""`verity variants suggest GRAPH NARRATION...`: variants learned from refused sentences.

Reads the claims of narration files (``verity.narration/1``), verifies them under strict
and, for every sentence the text check alone refuses (every other gate passed), proposes
the template variant that would accept it (:mod:`verity.core.variants`): per template of
the graph, per query of the SQL spec the graph was built from (``--spec``), or per
template of an optimization graph in the ``variants`` of the labels file it was built
with (``--labels``). The proposals are printed as a unified diff of the graph's JSON (or
of the spec's, or of the labels') on standard output; each proposal, accepted or
refused with the reason, is one line on standard error. ``--write`` writes the changed
file in place (nothing is written without it).

Exit status: 0 every refused sentence has a proposal (or none was refused), 1 some have
one, 3 none has; 2 unusable input.
"""

from __future__ import annotations

import argparse
import difflib
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from verity.cli.commands._output import EXIT_ALL_VERIFIED, EXIT_REFUSED, EXIT_TRIMMED
from verity.cli.commands.verify import read_json_arg
from verity.core.graph import load_graph
from verity.core.variants import Proposal, Suggestions, add_variants, suggest_variants
from verity.errors import InputError
from verity.files import write_file
from verity.jsonio import dumps, read_json
from verity.text.display import one_line

__all__ = ["add_arguments", "add_label_variants", "add_spec_variants", "run"]

_PROG = "verity variants suggest"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    suggest = actions.add_parser(
        "suggest",
        help="propose the template variants that would accept the sentences strict refuses "
        "by the text check alone, as a unified diff",
        description="Verify the narrations under strict and, for each sentence refused by "
        "the text check alone (gates 1-4 passed), propose the variant of its cited node's "
        "template that reads it (slot values put back as {slot}). A proposal that adds a "
        "number, an entity, a polarity or condition marker or a quantifier or superlative "
        "word, fails the loader's declaration checks or does not make the sentence pass "
        "is refused, with the reason. The diff goes to stdout, one line per proposal to "
        "stderr.",
        epilog="exit status: 0 every refused sentence has a proposal (or none was "
        "refused), 1 some have one, 3 none has, 2 unusable input",
    )
    suggest.add_argument("graph", metavar="GRAPH", help="the evidence graph (- for stdin)")
    suggest.add_argument(
        "narrations", metavar="NARRATION", nargs="+", help="narration files (verity.narration/1)"
    )
    source = suggest.add_mutually_exclusive_group()
    source.add_argument(
        "--spec",
        metavar="SPEC",
        help="the SQL spec (verity.sql_spec/1) GRAPH was built from: propose "
        "statement_variants of its queries and diff the spec instead of the graph",
    )
    source.add_argument(
        "--labels",
        metavar="FILE",
        help="the labels file (verity.lp_labels/1) the optimization graph GRAPH was built "
        "with (graph-from-lp --labels): propose its variants (template id -> patterns) and "
        "diff the labels instead of the graph",
    )
    suggest.add_argument(
        "--write",
        action="store_true",
        help="write the accepted variants into the file the diff is of (SPEC or the labels "
        "FILE, else GRAPH)",
    )


def run(args: argparse.Namespace) -> int:
    if args.write and args.spec is None and args.labels is None and args.graph == "-":
        raise InputError(
            "--write needs GRAPH to be a file (not -), or --spec SPEC or --labels FILE"
        )
    graph_data = read_json_arg(args.graph, "graph")
    graph = load_graph(graph_data)
    narrations = [_narration(path) for path in args.narrations]
    if args.spec is not None:
        target, before = args.spec, read_json(args.spec, "SQL spec file")
        extra, apply = _spec_mode(before, graph.graph_id)
    elif args.labels is not None:
        target, before = args.labels, read_json(args.labels, "labels file")
        extra, apply = _labels_mode(before, graph.graph_id)
    else:
        target, before = args.graph, graph_data
        extra, apply = None, add_variants
    found = suggest_variants(graph, narrations, extra=extra)
    _print_proposals(found.proposals)
    if found.additions:
        after = apply(before, found.additions)
        if args.spec is None:  # every proposal at once: the loader's checks hold
            load_graph(add_variants(graph_data, found.additions))
        _print_diff(before, after, "<stdin>" if target == "-" else target)
        if args.write:
            write_file(Path(target), dumps(after))
            print(f"{_PROG}: wrote {_count(found)} to {target}", file=sys.stderr)
    return _status(found)


def _narration(path: str) -> Mapping[str, Any]:
    data = read_json(path, "narration file")
    if not isinstance(data, dict):
        raise InputError(f"narration file {path}: not a JSON object with a claims array")
    return data


def _print_proposals(proposals: Sequence[Proposal]) -> None:
    if not proposals:
        print(f"{_PROG}: nothing to propose: no sentence is refused by the text check alone",
              file=sys.stderr)  # fmt: skip
    for p in proposals:
        where = f"claim {p.refused.claim_id!r} of narration {p.refused.narration + 1}"
        sentence = one_line(p.refused.sentence, 160)
        if p.accepted:
            print(f"{_PROG}: proposed for template {p.template!r} ({where}: {sentence!r}): "
                  f"{p.variant!r}", file=sys.stderr)  # fmt: skip
        else:
            node = f" (node {p.node_id!r})" if p.node_id else ""
            print(f"{_PROG}: refused{node} ({where}: {sentence!r}): "
                  f"{one_line(p.problem or '', 400)}", file=sys.stderr)  # fmt: skip


def _print_diff(before: Any, after: Any, name: str) -> None:
    diff = difflib.unified_diff(
        dumps(before).splitlines(keepends=True),
        dumps(after).splitlines(keepends=True),
        fromfile=f"a/{name}",
        tofile=f"b/{name}",
    )
    sys.stdout.writelines(diff)


def _count(found: Suggestions) -> str:
    n = sum(len(v) for v in found.additions.values())
    return f"{n} variant{'s' if n != 1 else ''}"


def _status(found: Suggestions) -> int:
    accepted = sum(p.accepted for p in found.proposals)
    if accepted == len(found.proposals):
        return EXIT_ALL_VERIFIED
    return EXIT_TRIMMED if accepted else EXIT_REFUSED


# --- the SQL spec ----------------------------------------------------------------------------


def add_spec_variants(spec: Mapping[str, Any], additions: Mapping[str, Sequence[str]]) -> Any:
    """A copy of the spec data with ``additions`` (query name -> variants) appended to its
    queries' ``statement_variants`` (each once)."""
    import copy

    out = copy.deepcopy(dict(spec))
    for query in out.get("queries", []):
        new = additions.get(str(query.get("name")), ()) if isinstance(query, dict) else ()
        if new:
            have = query.setdefault("statement_variants", [])
            have.extend(v for v in new if v not in have)
    return out


def _spec_mode(
    spec: Any, graph_id: str
) -> tuple[Callable[[str, str], str | None], Callable[[Any, Mapping[str, Sequence[str]]], Any]]:
    """The spec's check of one variant, and how variants are added to it; the spec is
    checked first (it loads, and it names the graph)."""
    from verity.backends.sql.spec import load_spec

    loaded = load_spec(spec)
    if loaded.graph_id != graph_id:
        raise InputError(
            f"--spec builds the graph {loaded.graph_id!r}, but GRAPH is {graph_id!r}: give "
            "the spec the graph was built from"
        )
    names = {q.name for q in loaded.queries}

    def check(template: str, variant: str) -> str | None:
        if template not in names:
            return (
                f"template {template!r} is no query of the spec (a tie's template: declare "
                "the variant on its query's statement)"
            )
        try:
            load_spec(add_spec_variants(spec, {template: [variant]}))
        except InputError as exc:
            return f"the spec loader refuses it: {exc}"
        return None

    return check, add_spec_variants


# --- the labels of an optimization graph ------------------------------------------------------


def add_label_variants(labels: Mapping[str, Any], additions: Mapping[str, Sequence[str]]) -> Any:
    """A copy of the labels data with ``additions`` (template id -> variants) appended to
    its ``variants`` (each once)."""
    import copy

    out = copy.deepcopy(dict(labels))
    table = out.get("variants")
    if not isinstance(table, dict):
        table = out["variants"] = {}
    for template, new in additions.items():
        have = table.setdefault(template, [])
        have.extend(v for v in dict.fromkeys(new) if v not in have)
    return out


def _labels_mode(
    labels: Any, graph_id: str
) -> tuple[Callable[[str, str], str | None], Callable[[Any, Mapping[str, Sequence[str]]], Any]]:
    """The labels' check of one variant, and how variants are added to them; the labels
    are checked first (they load, and they name the graph when they name one)."""
    from verity.backends.pulp import load_labels
    from verity.backends.pulp._templates import TEMPLATES

    loaded = load_labels(labels)
    if loaded.graph_id is not None and loaded.graph_id != graph_id:
        raise InputError(
            f"--labels name the graph {loaded.graph_id!r}, but GRAPH is {graph_id!r}: give "
            "the labels the graph was built with"
        )

    def check(template: str, variant: str) -> str | None:
        if template not in TEMPLATES:
            return (
                f"template {template!r} is no template of the optimization graphs the labels "
                "can extend"
            )
        try:
            load_labels(add_label_variants(labels, {template: [variant]}))
        except InputError as exc:
            return f"the labels loader refuses it: {exc}"
        return None

    return check, add_label_variants

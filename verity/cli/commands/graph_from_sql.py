"""`verity graph-from-sql`: build an evidence graph from declarative SQL queries.

``--db`` takes ``sqlite:///relative/path.db`` (relative to the current directory),
``sqlite:////abs/path.db`` (absolute: four slashes) or
``postgresql://user:password@host:port/dbname``; the database is opened
read-only. ``--spec`` is a ``verity.sql_spec/1`` JSON file. Each defaults to the
embedded sample: no ``--db`` runs on the sample sales database (materialized
in a temporary directory and removed afterwards), no ``--spec`` uses the sample
spec. The graph is written to ``--out`` or to standard output.

A summary goes to standard error: the nodes made and every row a query left out (a
``skip_row`` NULL, a ranking's cut below ``top``), which the graph also states, one
``ROWS_LEFT_OUT`` node per such query. The inputs are checked before any query runs, and
``--out`` is replaced only by a complete graph: a build that fails or is interrupted
leaves it as it was.

``--query "SELECT ..." --write-spec FILE`` drafts a spec from the query's result instead
(:mod:`verity.backends.sql.draft`): a new file that builds as written on that data, for a
person to edit. It never overwrites a file.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from verity.backends.sql._graph import join_words, left_out
from verity.backends.sql.query import (
    Connection,
    graph_from_sample,
    graph_from_url,
    open_readonly,
    sample_database,
    sqlite_url,
)
from verity.backends.sql.spec import load_spec, sample_spec
from verity.cli.commands._output import until_stopped, write_or_print
from verity.core.graph import EvidenceGraph
from verity.errors import InputError
from verity.files import check_file_target, write_file
from verity.jsonio import dumps

#: The ``--help`` epilog: how a SQLite URL names its file.
SQLITE_URLS = """SQLite URLs:
  --db sqlite:///sales.db            sales.db in the current directory
  --db sqlite:///data/sales.db       data/sales.db, relative to the current directory
  --db sqlite:////srv/db/sales.db    /srv/db/sales.db (absolute: four slashes)"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = SQLITE_URLS
    parser.add_argument(
        "--db",
        metavar="URL",
        help="sqlite:///relative/path.db (relative to the current directory), "
        "sqlite:////abs/path.db (absolute: four slashes) or postgresql://... "
        "(default: the embedded sample database)",
    )
    parser.add_argument(
        "--spec", metavar="FILE", help="query spec JSON file (default: the sample spec)"
    )
    parser.add_argument("--out", metavar="FILE", help="write the graph here (default: stdout)")
    parser.add_argument(
        "--query", metavar="SQL", help="a read-only query to draft a spec from (--write-spec)"
    )
    parser.add_argument(
        "--write-spec",
        metavar="FILE",
        help="write a draft spec for --query to FILE (a new file) instead of a graph",
    )


@contextmanager
def _connection(url: str | None) -> Iterator[Connection]:
    if url is not None:
        with open_readonly(url) as connection:
            yield connection
        return
    with sample_database() as path, open_readonly(sqlite_url(path)) as connection:
        yield connection


def _draft(args: argparse.Namespace) -> int:
    from verity.backends.sql.draft import draft_spec

    if args.query is None or args.write_spec is None:
        raise InputError("--query and --write-spec go together: --query SQL --write-spec FILE")
    if args.spec is not None or args.out is not None:
        raise InputError(
            "--write-spec drafts a spec; it takes --db and --query, not --spec or --out"
        )
    target = Path(args.write_spec)
    if target.exists():
        raise InputError(f"{target} exists; --write-spec writes a new file and never overwrites")
    check_file_target(target, "--write-spec")
    with _connection(args.db) as connection:
        spec = draft_spec(connection, args.query, graph_id=_graph_id(target))
    write_file(target, dumps(spec))
    print(f"graph-from-sql: {_summary(spec)}; wrote {target}", file=sys.stderr)
    return 0


def _graph_id(target: Path) -> str:
    stem = "".join(c if c.isalnum() or c in "_.-" else "_" for c in target.stem).strip("_.-")
    return stem.removesuffix(".spec") or "draft"


def _summary(spec: dict[str, Any]) -> str:
    query = spec["queries"][0]
    nulls = len(query.get("nulls", {}))
    aliases = sum(len(e.get("alias_columns", [])) for e in query["entities"])
    return (
        f"drafted {len(query['entities'])} entity columns ({aliases} alias columns), "
        f"{len(query['numbers'])} number columns and a NULL policy for {nulls} columns; "
        "it builds as written on this data"
    )


def build_summary(graph: EvidenceGraph, queries: int) -> str:
    """What a build made, and every row it left out: ``35 nodes from 9 queries; left out
    4 of the 105 rows of query 'dests' (4 for a NULL in dest_name)``."""
    counts = left_out(graph)
    nodes = len(graph.model.nodes) - len(counts)
    made = f"{_plural(nodes, 'node')} from {_plural(queries, 'query', 'queries')}"
    if not counts:
        return f"{made}; no row left out"
    parts = [
        f"{c.count} of the {c.returned} rows of query {c.query!r} ({join_words(c.reasons())})"
        for c in counts
    ]
    return f"{made}; left out {'; '.join(parts)}"


def _plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else many or one + 's'}"


def run(args: argparse.Namespace) -> int:
    if args.query is not None or args.write_spec is not None:
        return until_stopped("graph-from-sql", "no spec was written", lambda: _draft(args))
    unchanged = "nothing was written" if args.out is None else f"{args.out} is unchanged"
    return until_stopped("graph-from-sql", unchanged, lambda: _build(args))


def _build(args: argparse.Namespace) -> int:
    spec = sample_spec() if args.spec is None else load_spec(Path(args.spec))
    if args.out is not None:
        check_file_target(Path(args.out), "--out")
    graph = graph_from_sample(spec) if args.db is None else graph_from_url(args.db, spec)
    write_or_print(graph.dumps(), args.out)
    print(f"graph-from-sql: {build_summary(graph, len(spec.queries))}", file=sys.stderr)
    return 0

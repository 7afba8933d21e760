"""`verity graph-from-sql`: build an evidence graph from declarative SQL queries.

``--db`` takes ``sqlite:///relative/path.db`` (relative to the current directory),
``sqlite:////abs/path.db`` (absolute: four slashes) or
``postgresql://user:password@host:port/dbname``; the database is opened
read-only. ``--spec`` is a ``verity.sql_spec/1`` JSON file. Each defaults to the
embedded sample: no ``--db`` runs on the sample sales database (materialized
in a temporary directory and removed afterwards), no ``--spec`` uses the sample
spec. The graph is written to ``--out`` or to standard output.

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

from verity.backends.sql.query import (
    Connection,
    graph_from_sample,
    graph_from_url,
    open_readonly,
    sample_database,
    sqlite_url,
)
from verity.backends.sql.spec import load_spec, sample_spec
from verity.cli.commands._output import check_output, write_or_print
from verity.errors import InputError
from verity.files import write_file
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
    return (
        f"drafted {len(query['entities'])} entity columns, {len(query['numbers'])} number "
        f"columns and a NULL policy for {nulls} columns; it builds as written on this data"
    )


def run(args: argparse.Namespace) -> int:
    if args.query is not None or args.write_spec is not None:
        return _draft(args)
    check_output(args.out)
    spec = sample_spec() if args.spec is None else load_spec(Path(args.spec))
    graph = graph_from_sample(spec) if args.db is None else graph_from_url(args.db, spec)
    write_or_print(graph.dumps(), args.out)
    return 0

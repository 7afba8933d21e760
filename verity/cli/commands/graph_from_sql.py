"""`verity graph-from-sql`: build an evidence graph from declarative SQL queries.

``--db`` takes ``sqlite:///path`` (``sqlite:////abs/path`` for an absolute path)
or ``postgresql://user:password@host:port/dbname``; the database is opened
read-only. ``--spec`` is a ``verity.sql_spec/1`` JSON file. Each defaults to the
embedded sample: no ``--db`` runs on the sample sales database (materialized
in a temporary directory and removed afterwards), no ``--spec`` uses the sample
spec. The graph is written to ``--out`` or to standard output.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from verity.backends.sql.query import graph_from_sample, graph_from_url
from verity.backends.sql.spec import load_spec, sample_spec
from verity.cli.commands._output import write_or_print


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--db",
        metavar="URL",
        help="sqlite:///path or postgresql://... (default: the embedded sample database)",
    )
    parser.add_argument(
        "--spec", metavar="FILE", help="query spec JSON file (default: the sample spec)"
    )
    parser.add_argument("--out", metavar="FILE", help="write the graph here (default: stdout)")


def run(args: argparse.Namespace) -> int:
    spec = sample_spec() if args.spec is None else load_spec(Path(args.spec))
    graph = graph_from_sample(spec) if args.db is None else graph_from_url(args.db, spec)
    write_or_print(graph.dumps(), args.out)
    return 0

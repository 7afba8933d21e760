"""SQL backend: read-only query specs over SQLite or PostgreSQL become evidence graphs.

``query`` runs a spec, ``spec`` reads and checks spec files, ``sample`` is the embedded sample
sales database. ``left_out`` reads the rows each query of a built graph left out.
"""

from verity.backends.sql._graph import LEFT_OUT_TYPE, LeftOut, left_out
from verity.backends.sql.query import (
    MAX_ROWS_PER_QUERY,
    MAX_STATEMENT_CHARS,
    POLARITY_MARKERS,
    Connection,
    Cursor,
    SqlBackendError,
    cell_text,
    format_number,
    graph_dict_from_queries,
    graph_from_queries,
    graph_from_sample,
    graph_from_url,
    open_readonly,
    sample_database,
    slugify,
    sqlite_url,
)

__all__ = [
    "LEFT_OUT_TYPE",
    "MAX_ROWS_PER_QUERY",
    "MAX_STATEMENT_CHARS",
    "POLARITY_MARKERS",
    "Connection",
    "Cursor",
    "LeftOut",
    "SqlBackendError",
    "cell_text",
    "format_number",
    "graph_dict_from_queries",
    "graph_from_queries",
    "graph_from_sample",
    "graph_from_url",
    "left_out",
    "open_readonly",
    "sample_database",
    "slugify",
    "sqlite_url",
]

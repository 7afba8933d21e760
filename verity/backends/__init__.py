"""Backends: programs whose results become evidence graphs (an optimizer, SQL queries)."""

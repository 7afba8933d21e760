"""Card-rewards optimizer: a pulp MILP whose optimal plan becomes an evidence graph.

Typical use::

    from verity.backends.card_rewards import optimize, graph_json
    graph = optimize(7, "max_value")          # profile 7 of the shipped profiles
    text = graph_json(graph)                  # canonical, byte-stable JSON

The catalog (``verity/data/card_rewards/catalog.json``) is illustrative; the 50
profiles (``profiles.json``) come from :mod:`.make_profiles` with a fixed seed.
"""

from __future__ import annotations

import typing as _typing
from typing import Any

from verity.backends.card_rewards._alloc import Piece, Segment, allocate
from verity.backends.card_rewards._catalog import (
    CATEGORIES,
    Cap,
    Card,
    Catalog,
    load_catalog,
    parse_catalog,
)
from verity.backends.card_rewards._graph import (
    CATEGORY_ALIASES,
    MAX_THRESHOLD_SPEND,
    build_graph,
    card_forms,
    graph_json,
)
from verity.backends.card_rewards._model import (
    GOALS,
    SOLVERS,
    Solution,
    SolveError,
    card_limit,
    eligible_cards,
    solve,
)
from verity.backends.card_rewards._profiles import Profile, load_profiles, parse_profiles
from verity.errors import InputError

if _typing.TYPE_CHECKING:  # annotations only: the package namespace holds its public names
    from collections.abc import Collection, Iterator

__all__ = [
    "CATEGORIES",
    "CATEGORY_ALIASES",
    "GOALS",
    "MAX_THRESHOLD_SPEND",
    "SOLVERS",
    "Cap",
    "Card",
    "Catalog",
    "Piece",
    "Profile",
    "Segment",
    "Solution",
    "SolveError",
    "allocate",
    "build_graph",
    "card_forms",
    "card_limit",
    "eligible_cards",
    "graph_file_name",
    "graph_json",
    "load_catalog",
    "load_profiles",
    "optimize",
    "parse_catalog",
    "parse_profiles",
    "solve",
    "solved_graphs",
]


def graph_file_name(profile: Profile, goal: str) -> str:
    """File name of a checked-in graph, e.g. ``p07-max_value.json``."""
    return f"{profile.id}-{goal}.json"


def optimize(
    profile: int | Profile,
    goal: str,
    solver: str = "cbc",
    *,
    catalog: Catalog | None = None,
    profiles: tuple[Profile, ...] | None = None,
) -> dict[str, Any]:
    """Solve one profile (an index into the shipped profiles, or a Profile) and build its graph."""
    cat = load_catalog() if catalog is None else catalog
    if isinstance(profile, Profile):
        chosen = profile
    else:
        pool = load_profiles() if profiles is None else profiles
        if isinstance(profile, bool) or not 0 <= profile < len(pool):
            raise InputError(f"profile must be a number from 0 to {len(pool) - 1}, not {profile}")
        chosen = pool[profile]
    return build_graph(cat, solve(cat, chosen, goal, solver))


def solved_graphs(
    solver: str = "cbc",
    *,
    names: Collection[str] | None = None,
    profiles: tuple[Profile, ...] | None = None,
) -> Iterator[tuple[str, str]]:
    """(file name, canonical JSON) of every card-rewards graph, profile by profile and goal
    by goal, solved as they are yielded; only the file names in ``names`` when given.

    These are the bytes of the checked-in graphs (``verity optimize --all``).
    """
    catalog = load_catalog()
    for profile in load_profiles() if profiles is None else profiles:
        for goal in GOALS:
            name = graph_file_name(profile, goal)
            if names is None or name in names:
                yield name, graph_json(build_graph(catalog, solve(catalog, profile, goal, solver)))

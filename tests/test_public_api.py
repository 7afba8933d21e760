"""Every public name is exported from verity and documented."""

from __future__ import annotations

import verity


def test_all_names_exist_and_are_documented() -> None:
    for name in verity.__all__:
        obj = getattr(verity, name)
        if callable(obj) and not name.isupper():
            assert obj.__doc__, f"verity.{name} has no docstring"


def test_all_is_sorted_and_unique() -> None:
    assert len(set(verity.__all__)) == len(verity.__all__)


def test_refusal_is_pinned() -> None:
    assert verity.REFUSAL == "I can't answer that from the available evidence."


def test_no_private_names_exported() -> None:
    assert not [n for n in verity.__all__ if n.startswith("_") and n != "__version__"]

"""Every public name is exported from verity and documented."""

from __future__ import annotations

import verity


def test_all_names_exist_and_are_documented() -> None:
    for name in verity.__all__:
        obj = getattr(verity, name)
        if callable(obj) and not name.isupper():
            assert obj.__doc__, f"verity.{name} has no docstring"


def _isort_key(name: str) -> tuple[int, str]:
    # ruff's RUF022 order: CONSTANTS, then Classes, then everything else; each by name.
    return (0 if name.isupper() else 1 if name[:1].isupper() else 2, name)


def test_all_is_sorted_and_unique() -> None:
    assert len(set(verity.__all__)) == len(verity.__all__)
    assert verity.__all__ == sorted(verity.__all__, key=_isort_key)


def test_refusal_is_pinned() -> None:
    assert verity.REFUSAL == "I can't answer that from the available evidence."


def test_no_private_names_exported() -> None:
    assert not [n for n in verity.__all__ if n.startswith("_") and n != "__version__"]


def test_every_public_name_has_one_home_and_resolves() -> None:
    homes = verity._HOME  # the table the lazy attributes are read from
    assert set(homes) == set(verity.__all__) - {"__version__"}
    for name, home in homes.items():
        value = getattr(verity, name)
        assert value is getattr(__import__(home, fromlist=[name]), name)
        if isinstance(value, type) or callable(value):
            assert value.__module__ == home, name


def test_import_verity_loads_no_other_module_of_it() -> None:
    import subprocess
    import sys

    code = "import sys, verity; print(sorted(m for m in sys.modules if m.startswith('verity')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['verity']"


def _static_view() -> dict[str, str]:
    """Name -> module of the ``if TYPE_CHECKING:`` imports of ``verity/__init__.py``."""
    import ast
    from pathlib import Path

    tree = ast.parse(Path(verity.__file__).read_text("utf-8"))
    block = next(
        n for n in tree.body if isinstance(n, ast.If) and ast.unparse(n.test) == "TYPE_CHECKING"
    )
    out: dict[str, str] = {}
    for node in block.body:
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("verity"):
            for alias in node.names:
                assert alias.asname == alias.name, f"{alias.name}: re-export it as itself"
                out[alias.name] = node.module
    return out


def test_the_api_is_one_table_and_its_static_view_agrees() -> None:
    homes = {name: module for module, names in verity._API.items() for name in names}
    assert homes == verity._HOME
    assert len(homes) == sum(map(len, verity._API.values()))  # no name twice
    assert _static_view() == homes


def test_closed_sets_of_strings_are_str_enums_that_serialise_as_their_value() -> None:
    import json
    from enum import StrEnum

    for enum in (verity.OnFail, verity.StopReason):
        assert issubclass(enum, StrEnum)
        for member in enum:
            assert member == member.value and json.dumps(member) == json.dumps(member.value)
            assert f"{member}" == member.value


def test_the_old_predicates_constants_left_the_top_level() -> None:
    for name in ("MAX_SINGLE_GAP", "MAX_TOTAL_GAP", "POLARITY_LANGUAGES", "POLARITY_MARKERS"):
        assert name not in verity.__all__ and not hasattr(verity, name)
        assert hasattr(__import__("verity.text.align", fromlist=[name]), name)

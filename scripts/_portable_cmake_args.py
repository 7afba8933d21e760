"""Print verity.extras.PORTABLE_CMAKE_ARGS, the CMake flags that build llama.cpp for any
x86-64 machine, read from the source (not imported: it runs before verity is installed).

    CMAKE_ARGS="$(python scripts/_portable_cmake_args.py)" pip install ...
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

EXTRAS = Path(__file__).resolve().parents[1] / "verity" / "extras.py"


def portable_cmake_args(source: str) -> str:
    """The value assigned to ``PORTABLE_CMAKE_ARGS`` at the top level of ``source``."""
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "PORTABLE_CMAKE_ARGS"
            for target in node.targets
        ):
            value = ast.literal_eval(node.value)
            if isinstance(value, str):
                return value
    raise LookupError(f"no PORTABLE_CMAKE_ARGS string in {EXTRAS}")


def main() -> int:
    try:
        print(portable_cmake_args(EXTRAS.read_text("utf-8")))
    except (OSError, SyntaxError, ValueError, LookupError) as exc:
        print(f"verity: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

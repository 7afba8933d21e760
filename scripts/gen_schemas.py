"""Write the JSON Schemas of the file formats from the pydantic models.

    python scripts/gen_schemas.py          # rewrite verity/schemas/*.schema.json
    python scripts/gen_schemas.py --check  # exit 1 when a checked-in schema is stale

``schemas/`` at the top of the repository links to ``verity/schemas/``.
"""

from __future__ import annotations

import sys

from verity.schemas_gen import SCHEMA_DIR, render_schemas


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    for name, text in render_schemas().items():
        path = SCHEMA_DIR / f"{name}.schema.json"
        current = path.read_text("utf-8") if path.exists() else None
        if current != text:
            stale.append(path)
            if not check:
                path.write_text(text, "utf-8")
    for path in stale:
        print(("stale: " if check else "wrote: ") + str(path))
    return 1 if (check and stale) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

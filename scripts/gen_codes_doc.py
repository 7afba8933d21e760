"""Write docs/codes.md, the error-code table, from the catalogue (verity/core/codes.py).

python scripts/gen_codes_doc.py          # rewrite docs/codes.md
python scripts/gen_codes_doc.py --check  # exit 1 when docs/codes.md is stale
"""

from __future__ import annotations

import sys
from pathlib import Path

from verity.core.codes import render_doc

DOC = Path(__file__).resolve().parents[1] / "docs" / "codes.md"


def main(argv: list[str]) -> int:
    text = render_doc()
    current = DOC.read_text("utf-8") if DOC.exists() else None
    if current == text:
        return 0
    if "--check" in argv:
        print(f"stale: {DOC}")
        return 1
    DOC.write_text(text, "utf-8")
    print(f"wrote: {DOC}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Show a `pip install -v` on stderr as steps, and keep all of its output in a log.

    pip install -v ... 2>&1 | python scripts/_install_progress.py LOG

Every line pip writes is appended to LOG as it comes. On stderr: pip's own steps
(collecting, downloading, building a wheel, installing, errors) and, while a package
builds from source, how many of its compile steps are done, drawn by
:class:`verity.progress.StepLine` (live with the elapsed time on a terminal, one line per
step elsewhere; there the compile count every tenth of the way). It runs before verity is
installed: it imports ``verity.progress`` (standard library only) from this checkout.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from verity.progress import Note, Step, StepLine

_SHOWN = re.compile(
    r"^(Collecting|Obtaining|Downloading|Building wheel for|Building editable for|"
    r"Installing collected packages|Successfully installed|Successfully built|"
    r"Requirement already satisfied: pip|Created wheel for)\b"
)
# pip -v indents it: "  Building wheel for llama-cpp-python (pyproject.toml): started".
_BUILDING = re.compile(r"^\s*Building (?:wheel|editable) for (\S+)")
_COMPILE = re.compile(r"^\s*\[\s*(\d+)\s*/\s*(\d+)\]\s")
_ERROR = re.compile(r"^\s*(ERROR|error):")


def _steps(line: str, package: str, live: bool, shown_tenth: list[int]) -> Step | Note | None:
    """What a line of pip's output shows on stderr (None: it goes to the log only)."""
    if _ERROR.match(line):
        return Note(line.strip())
    compiled = _COMPILE.match(line)
    if compiled:
        done, total = int(compiled.group(1)), int(compiled.group(2))
        tenth = 10 * done // max(total, 1)
        if not live and tenth <= shown_tenth[0] and done < total:
            return None
        shown_tenth[0] = tenth
        return Step(f"building {package} from source: {done}/{total} compile steps")
    if _SHOWN.match(line.strip()):
        return Step(line.strip()[:160])
    return None


def main() -> int:
    log = Path(sys.argv[1])
    package = "a package"
    shown_tenth = [-1]
    with log.open("a", encoding="utf-8") as out, StepLine("install") as draw:
        live = sys.stderr.isatty()
        for raw in sys.stdin.buffer:
            text = raw.decode("utf-8", errors="replace").rstrip("\n")
            out.write(text + "\n")
            out.flush()
            line = text.rsplit("\r", 1)[-1]
            building = _BUILDING.match(line)
            if building:
                package, shown_tenth[0] = building.group(1), -1
            event = _steps(line, package, live, shown_tenth)
            if event is not None:
                draw(event)
    return 0


if __name__ == "__main__":
    sys.exit(main())

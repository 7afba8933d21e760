"""verify, narrate and check-answer --graph warn once, on stderr and in the JSON, when the
nodes a text rests on declare no variation (strict would refuse every paraphrase)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import EXAMPLES, FIXTURES, ROOT, load_json
from verity.cli.main import main

CASES = load_json(FIXTURES / "paraphrase" / "warnings.json")
CODE = "no_declared_variation"


def _argv(args: list[str], tmp: Path) -> list[str]:
    """Fixture names in the arguments as paths: ``@`` a shipped file, ``#`` a fixture
    narration, ``$`` a fixture answer (both written to ``tmp``)."""
    files = {
        "@example_graph": EXAMPLES / "graph.json",
        "@example_narration": EXAMPLES / "narration.json",
        "@card_graph": ROOT / "evidence_graphs" / "card_rewards" / "p00-max_value.json",
    }
    passages = tmp / "passages.json"
    passages.write_text(
        json.dumps([{"id": "p1", "text": "Gold Dining wins restaurants at 4x."}]), "utf-8"
    )
    files["@example_passages"] = passages
    out = []
    for arg in args:
        if arg[0] == "#":
            path = tmp / f"{arg[1:]}.json"
            path.write_text(json.dumps(CASES["narrations"][arg[1:]]), "utf-8")
        elif arg[0] == "$":
            path = tmp / f"{arg[1:]}.txt"
            path.write_text(CASES["answers"][arg[1:]], "utf-8")
        else:
            path = files.get(arg, Path(arg))
        out.append(str(path) if arg[0] in "@#$" else arg)
    return out


@pytest.mark.parametrize("case", CASES["cases"], ids=lambda c: c["name"])
def test_the_warning(
    case: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = _argv(case["args"], tmp_path)
    text_status = main(argv)
    text = capsys.readouterr()
    json_status = main([*argv, "--json"])
    shown = capsys.readouterr()
    assert text_status == json_status
    doc = json.loads(shown.out)
    lines = [line for line in shown.err.splitlines() if CODE in line]
    if case["warns"]:
        assert len(lines) == 1 and lines[0].startswith("verity: warning: ")
        assert [w["code"] for w in doc["warnings"]] == [CODE]
        assert "refuses every paraphrase" in doc["warnings"][0]["message"]
        assert sum(CODE in line for line in text.err.splitlines()) == 1
    else:
        assert lines == [] and "warnings" not in doc and CODE not in text.err

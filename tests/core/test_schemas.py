"""The checked-in JSON Schemas match the models; shipped data validates against them."""

from __future__ import annotations

import json

import pytest
from jsonschema import Draft202012Validator

from tests.helpers import EXAMPLES, GOLDEN, GRAPHS, ROOT, load_json
from verity.schemas_gen import SCHEMA_DIR, render_schemas


@pytest.mark.parametrize("name", sorted(render_schemas()))
def test_checked_in_schema_matches_model(name: str) -> None:
    path = SCHEMA_DIR / f"{name}.schema.json"
    assert path.read_text("utf-8") == render_schemas()[name], (
        f"{path} is stale: run python scripts/gen_schemas.py"
    )


def test_top_level_schemas_dir_is_the_package_dir() -> None:
    assert (ROOT / "schemas").resolve() == SCHEMA_DIR.resolve()


@pytest.mark.parametrize("name", sorted(render_schemas()))
def test_schema_is_valid_draft_2020_12(name: str) -> None:
    Draft202012Validator.check_schema(json.loads(render_schemas()[name]))


def test_graph_fixtures_and_rules_validate() -> None:
    graph_schema = Draft202012Validator(load_json(SCHEMA_DIR / "evidence_graph.schema.json"))
    for path in [*GRAPHS.glob("*.json"), EXAMPLES / "graph.json"]:
        graph_schema.validate(load_json(path))
    rules_schema = Draft202012Validator(load_json(SCHEMA_DIR / "rules.schema.json"))
    for path in (ROOT / "verity" / "data" / "rules").glob("*.json"):
        rules_schema.validate(load_json(path))


def test_example_narration_validates_against_narration_schema() -> None:
    schema = Draft202012Validator(load_json(SCHEMA_DIR / "narration.schema.json"))
    schema.validate(load_json(EXAMPLES / "narration.json"))
    for path in (GOLDEN / "narrations").glob("*.json"):
        narration = load_json(path)["narration"]
        if all(isinstance(c, dict) and len(c) == 6 for c in narration["claims"]):
            schema.validate(narration)

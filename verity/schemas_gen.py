"""Render the JSON Schemas of verity's file formats from the pydantic models."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel

from verity.backends.pulp import Labels
from verity.backends.sql.spec import SqlSpec
from verity.core.claims import Narration
from verity.core.models import GraphModel, RuleSet
from verity.core.report import Report
from verity.formats import (
    GRAPH_FORMAT,
    LP_LABELS_FORMAT,
    NARRATION_FORMAT,
    REPORT_FORMAT,
    RULES_FORMAT,
    SPEC_FORMAT,
)
from verity.jsonio import dumps

__all__ = ["SCHEMA_DIR", "SCHEMA_MODELS", "render_schemas"]

SCHEMA_DIR = Path(__file__).parent / "schemas"

SCHEMA_MODELS: dict[str, tuple[type[BaseModel], str]] = {
    "evidence_graph": (GraphModel, GRAPH_FORMAT),
    "lp_labels": (Labels, LP_LABELS_FORMAT),
    "narration": (Narration, NARRATION_FORMAT),
    "report": (Report, REPORT_FORMAT),
    "rules": (RuleSet, RULES_FORMAT),
    "sql_spec": (SqlSpec, SPEC_FORMAT),
}


def _schema(model: type[BaseModel], fmt: str) -> dict[str, Any]:
    body = model.model_json_schema(mode="validation")
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"urn:verity:schema:{fmt}",
        **body,
    }


def render_schemas() -> dict[str, str]:
    """File stem -> the schema's canonical JSON text."""
    return {
        name: dumps(_schema(model, fmt), sort_keys=True)
        for name, (model, fmt) in SCHEMA_MODELS.items()
    }

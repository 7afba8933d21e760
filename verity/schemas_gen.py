"""Render the JSON Schemas of verity's file formats from the pydantic models."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from verity.backends.sql.spec import SqlSpec
from verity.core.claims import Narration
from verity.core.models import GraphModel, RuleSet
from verity.core.report import Report

__all__ = ["SCHEMA_DIR", "SCHEMA_MODELS", "render_schemas"]

SCHEMA_DIR = Path(__file__).parent / "schemas"

SCHEMA_MODELS: dict[str, tuple[type[BaseModel], str]] = {
    "evidence_graph": (GraphModel, "verity.evidence_graph/1"),
    "narration": (Narration, "verity.narration/1"),
    "report": (Report, "verity.report/1"),
    "rules": (RuleSet, "verity.rules/1"),
    "sql_spec": (SqlSpec, "verity.sql_spec/1"),
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
        name: json.dumps(_schema(model, fmt), indent=2, ensure_ascii=False, sort_keys=True) + "\n"
        for name, (model, fmt) in SCHEMA_MODELS.items()
    }

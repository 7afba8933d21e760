"""The error a gate reports about a claim, as data."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

__all__ = ["GateError"]


class GateError(BaseModel):
    """Why a gate rejected a claim: gate name, stable code, message, expected and actual."""

    model_config = ConfigDict(frozen=True)

    gate: str
    code: str
    message: str
    expected: Any = None
    actual: Any = None

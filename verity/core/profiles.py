"""Custom gates: derive a profile that runs domain checks after a built-in profile's gates.

In the style of ``jsonschema.validators.extend``: a custom gate is a pure generator
``(claim, graph) -> Iterator[Finding]`` that declares the error codes it may report;
:func:`extend` derives a :class:`Profile` from ``strict`` or ``paper`` (or from another
derived profile) and :func:`verity.verify` takes it wherever it takes a profile name.

Errors stay data. A custom gate may only report the codes it declared, with JSON values
for ``expected`` and ``actual``; anything else, and any exception inside the gate,
rejects the claim with ``internal.error`` (fail closed). A profile's on-fail policy is
data too: ``filter`` (drop failing claims, the default) or ``raise``
(:class:`VerificationFailed`, carrying the report, when any claim fails).
"""

from __future__ import annotations

import importlib
import json
import os
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from verity.core.claims import Claim
from verity.core.gates import (
    ERROR_CODES,
    GATE_NAMES,
    INTERNAL_ERROR,
    PROFILES,
    Finding,
    Gate,
    GateCheck,
    gates_for,
)
from verity.core.graph import EvidenceGraph
from verity.core.report import Report
from verity.errors import InputError

__all__ = [
    "ON_FAIL",
    "CustomGate",
    "OnFail",
    "Profile",
    "VerificationFailed",
    "custom_gate",
    "extend",
    "load_gates",
    "resolve_profile",
]


class OnFail(StrEnum):
    """What verify does when a claim fails: drop it (``filter``) or raise
    :class:`VerificationFailed`. A member is its string (``OnFail.RAISE == "raise"``)."""

    FILTER = "filter"
    RAISE = "raise"


#: The values of :class:`OnFail`.
ON_FAIL: tuple[str, ...] = tuple(OnFail)

_GATE_NAME = re.compile(r"[a-z][a-z0-9_]{0,39}")
_CODE_SUFFIX = re.compile(r"[a-z0-9][a-z0-9_]{0,59}")
_PROFILE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]{0,79}")
#: Gate names a custom gate may not take: the built-in gates and the fail-closed code's.
_RESERVED = frozenset(GATE_NAMES) | {INTERNAL_ERROR.partition(".")[0]}


def _import_attr(module: str, qualname: str) -> Any:
    obj: Any = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


@dataclass(frozen=True, eq=False)
class CustomGate:
    """A domain gate: ``check(claim, graph)`` yields :class:`verity.Finding` objects whose
    codes are among ``codes`` (code -> meaning), each code ``NAME.something``."""

    name: str
    check: GateCheck
    codes: Mapping[str, str]

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not _GATE_NAME.fullmatch(self.name):
            raise InputError(
                f"custom gate name {self.name!r}: use lower-case letters, digits and _ "
                "(at most 40, starting with a letter)"
            )
        if self.name in _RESERVED:
            raise InputError(f"custom gate name {self.name!r} is a built-in gate's")
        if not callable(self.check):
            raise InputError(f"custom gate {self.name!r}: check is not callable")
        if not isinstance(self.codes, Mapping) or not self.codes:
            raise InputError(f"custom gate {self.name!r} declares no error codes")
        for code, meaning in self.codes.items():
            prefix, _, suffix = code.partition(".") if isinstance(code, str) else ("", "", "")
            if prefix != self.name or not _CODE_SUFFIX.fullmatch(suffix):
                raise InputError(
                    f"custom gate {self.name!r}: error code {code!r} must be "
                    f"'{self.name}.<lower_case_suffix>'"
                )
            if not isinstance(meaning, str) or not meaning.strip():
                raise InputError(f"custom gate {self.name!r}: code {code!r} has no meaning")
        object.__setattr__(self, "codes", MappingProxyType(dict(self.codes)))

    def __call__(self, claim: Claim, graph: EvidenceGraph) -> Iterator[Finding]:
        return self.check(claim, graph)

    def __reduce__(self) -> tuple[Any, ...]:
        # A decorated gate sits in its module under the function's name: pickle it by
        # reference, so worker processes import it instead of needing the function alone.
        module = getattr(self.check, "__module__", None)
        qualname = getattr(self.check, "__qualname__", "")
        if module and "<" not in qualname:
            try:
                found = _import_attr(module, qualname)
            except Exception:
                found = None
            if found is self:
                return (_import_attr, (module, qualname))
        return (CustomGate, (self.name, self.check, dict(self.codes)))


def custom_gate(name: str, codes: Mapping[str, str]) -> Callable[[GateCheck], CustomGate]:
    """Decorator: turn a generator ``(claim, graph) -> Iterator[Finding]`` into a
    :class:`CustomGate` named ``name`` that may report ``codes`` (code -> meaning)."""

    def wrap(check: GateCheck) -> CustomGate:
        return CustomGate(name, check, codes)

    return wrap


def _json_value(value: Any) -> bool:
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return False
    return True


def _broken(gate: CustomGate, why: str, actual: Any) -> Finding:
    return Finding(
        INTERNAL_ERROR,
        f"the {gate.name} gate {why}; the claim is rejected (fail closed)"[:500],
        sorted(gate.codes),
        actual,
    )


@dataclass(frozen=True, eq=False)
class _Declared:
    """A custom gate's check, holding it to its declared codes and to JSON data."""

    gate: CustomGate

    def __call__(self, claim: Claim, graph: EvidenceGraph) -> Iterator[Finding]:
        gate = self.gate
        for found in gate.check(claim, graph):
            if not isinstance(found, Finding):
                yield _broken(gate, f"yielded a {type(found).__name__}, not a Finding", None)
                return
            if found.code not in gate.codes:
                yield _broken(gate, f"reported the undeclared code {found.code!r}", found.code)
                return
            if found.gate not in (None, gate.name) or not isinstance(found.message, str):
                yield _broken(gate, "reported under another gate or without a message", None)
                return
            if not (_json_value(found.expected) and _json_value(found.actual)):
                yield _broken(gate, f"reported non-JSON data with {found.code!r}", found.code)
                return
            yield found


@dataclass(frozen=True, eq=False)
class Profile:
    """A built-in profile (``base``) plus custom gates, run after its gates, in order."""

    name: str
    base: str
    custom: tuple[CustomGate, ...]
    on_fail: str = OnFail.FILTER
    gates: tuple[Gate, ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if self.base not in PROFILES:
            raise InputError(f"unknown base profile {self.base!r}; choose one of paper, strict")
        if not isinstance(self.name, str) or not _PROFILE_NAME.fullmatch(self.name):
            raise InputError(f"profile name {self.name!r}: use letters, digits and _ . + -")
        if self.name in PROFILES:
            raise InputError(f"a derived profile cannot be called {self.name!r}")
        if self.on_fail not in ON_FAIL:
            raise InputError(f"unknown on_fail {self.on_fail!r}; choose filter or raise")
        object.__setattr__(self, "on_fail", OnFail(self.on_fail))
        names = [g.name for g in self.custom]
        if len(set(names)) != len(names):
            raise InputError(f"profile {self.name!r} has two custom gates of one name")
        own = frozenset({self.name})
        added = tuple(Gate(g.name, _Declared(g), own, dict(g.codes)) for g in self.custom)
        object.__setattr__(self, "gates", gates_for(self.base) + added)

    @property
    def error_codes(self) -> dict[str, str]:
        """Every code a report under this profile can carry, with its meaning."""
        codes = dict(ERROR_CODES)
        for gate in self.custom:
            codes.update(gate.codes)
        return codes


def extend(
    base: str | Profile,
    gates: Iterable[CustomGate] = (),
    *,
    name: str | None = None,
    on_fail: str | None = None,
) -> Profile:
    """A profile that runs ``base``'s gates, then ``gates``. ``name`` defaults to
    ``BASE+GATE+...``; ``on_fail`` to the base's policy (``filter`` for a built-in one)."""
    if isinstance(base, Profile):
        root, earlier, policy = base.base, base.custom, base.on_fail
        prefix = base.name
    elif isinstance(base, str) and base in PROFILES:
        root, earlier, policy, prefix = base, (), OnFail.FILTER, base
    else:
        raise InputError(f"unknown profile {base!r}; choose one of {', '.join(PROFILES)}")
    if isinstance(gates, CustomGate):
        gates = (gates,)
    added = tuple(gates)
    for gate in added:
        if not isinstance(gate, CustomGate):
            raise InputError(f"not a custom gate: {type(gate).__name__} (use verity.custom_gate)")
    if name is None:
        name = "+".join([prefix, *(g.name for g in added)])
    return Profile(name, root, earlier + added, policy if on_fail is None else on_fail)


def resolve_profile(
    profile: str | Profile, on_fail: str | None = None
) -> tuple[str, tuple[Gate, ...], str]:
    """(name, gates, on_fail policy) of a profile name or :class:`Profile`."""
    if isinstance(profile, Profile):
        name, gates, policy = profile.name, profile.gates, profile.on_fail
    else:
        name, gates, policy = profile, gates_for(profile), OnFail.FILTER
    if on_fail is not None:
        if on_fail not in ON_FAIL:
            raise InputError(f"unknown on_fail {on_fail!r}; choose filter or raise")
        policy = OnFail(on_fail)
    return name, gates, policy


class VerificationFailed(Exception):
    """Raised by :func:`verity.verify` under ``on_fail="raise"`` when a claim fails;
    ``report`` is the full report (its answer, shipped claims and refusal as usual)."""

    def __init__(self, report: Report) -> None:
        s = report.summary
        super().__init__(
            f"{s.removed} of {s.claims} claims failed verification under profile {report.profile!r}"
        )
        self.report = report


def load_gates(spec: str, base: str | None = "strict") -> Profile:
    """The profile ``--gates MODULE:ATTR`` names: ATTR is a :class:`Profile` (whose base
    must be ``base`` unless it is None), a :class:`CustomGate` or a list of them (added to
    ``base``, or to ``strict`` when it is None)."""
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise InputError(f"--gates {spec!r}: expected MODULE:ATTR (e.g. mygates:profile)")
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        target = _import_attr(module_name, attr)
    except ModuleNotFoundError as exc:
        raise InputError(f"--gates {spec}: cannot import {exc.name!r}") from None
    except AttributeError:
        raise InputError(f"--gates {spec}: {module_name} has no attribute {attr!r}") from None
    except InputError as exc:
        raise InputError(f"--gates {spec}: {exc}") from None
    except Exception as exc:
        raise InputError(
            f"--gates {spec}: importing it failed: {type(exc).__name__}: {exc}"[:500]
        ) from None
    if isinstance(target, Profile):
        if base is not None and target.base != base:
            raise InputError(
                f"--gates {spec} extends profile {target.base!r}; pass --profile {target.base}"
            )
        return target
    if isinstance(target, CustomGate):
        return extend(base or "strict", (target,))
    if isinstance(target, (list, tuple)) and target:
        return extend(base or "strict", target)
    raise InputError(
        f"--gates {spec}: {type(target).__name__} is not a Profile, a CustomGate or a list of them"
    )

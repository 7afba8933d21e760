"""Reading an optimization model from a file into a :class:`pulp.LpProblem`.

- ``.mps``: read by pulp's own MPS reader, after a check of what that reader would
  misread or choke on: the objective sense (``OBJSENSE`` / ``OBJSENSE MAX`` or pulp's own
  ``*SENSE:Maximize`` line; pulp's reader takes the sense as an argument) is read here,
  blank lines are dropped, and sections and bound types it does not read (``RANGES``,
  ``SOS``, quadratic sections, ``UI``/``LI``/``SC`` bounds) are refused, never guessed.
- ``.lp``: the CPLEX LP format as pulp writes it (``problem.writeLP``): an objective
  (``Maximize``/``Minimize``, optionally named), ``Subject To`` named or unnamed linear
  constraints with ``<=``, ``>=`` or ``=`` and a number on the right, ``Bounds``
  (``x <= 5``, ``2 <= x <= 5``, ``x >= -3``, ``x = 4``, ``x free``, ``-inf``/``inf``),
  ``Generals`` and ``Binaries``, ``End``; ``\\`` comments. Ranged constraints, quadratic
  terms, ``SOS`` and semi-continuous sections are refused.

Every failure is a :class:`~verity.errors.InputError` with one line naming the file.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from verity.backends._pulp_support import variable
from verity.errors import InputError
from verity.jsonio import path_text, read_text

__all__ = ["MODEL_SUFFIXES", "read_model"]

#: The file suffixes :func:`read_model` reads.
MODEL_SUFFIXES = (".mps", ".lp")

_MPS_SECTIONS = {"NAME", "ROWS", "COLUMNS", "RHS", "BOUNDS", "ENDATA", "OBJSENSE", "OBJSENCE"}
_MPS_REFUSED = {
    "RANGES": "ranged rows",
    "SOS": "special ordered sets",
    "QUADOBJ": "a quadratic objective",
    "QSECTION": "a quadratic objective",
    "QMATRIX": "a quadratic objective",
    "QCMATRIX": "quadratic constraints",
    "INDICATORS": "indicator constraints",
}
_MPS_BOUNDS = {"LO", "UP", "FX", "FR", "MI", "PL", "BV"}
_MAX_WORDS = {"MAX", "MAXIMIZE", "MAXIMISE", "MAXIMUM"}
_MIN_WORDS = {"MIN", "MINIMIZE", "MINIMISE", "MINIMUM"}


def _fail(path: Path, problem: str) -> InputError:
    return InputError(f"model {path_text(path)}: {problem}")


def read_model(path: str | Path) -> Any:
    """The model in ``path`` (``.mps`` or ``.lp``) as an unsolved :class:`pulp.LpProblem`."""
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix not in MODEL_SUFFIXES:
        raise _fail(p, "is neither an .mps nor an .lp file")
    text = read_text(p, "model file")
    return _read_mps(p, text) if suffix == ".mps" else _read_lp(p, text)


# ---------------------------------------------------------------------------- MPS


def _mps_sense(path: Path, lines: list[str]) -> tuple[int, list[str]]:
    """The objective sense (pulp's 1 minimize, -1 maximize) and the lines pulp reads."""
    import pulp

    sense = pulp.LpMinimize
    kept: list[str] = []
    expect_sense = False
    for number, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("*"):
            if line.replace(" ", "").upper() == "*SENSE:MAXIMIZE":
                sense = pulp.LpMaximize
            continue
        words = line.split()
        head = words[0].upper()
        if expect_sense:
            expect_sense = False
            if head in _MAX_WORDS | _MIN_WORDS:
                sense = pulp.LpMaximize if head in _MAX_WORDS else pulp.LpMinimize
                continue
            raise _fail(
                path, f"line {number}: OBJSENSE is followed by {words[0]!r}, not MAX or MIN"
            )
        if not raw[0].isspace():
            if head in _MPS_REFUSED:
                raise _fail(
                    path, f"line {number}: section {head} ({_MPS_REFUSED[head]}) is not supported"
                )
            if head not in _MPS_SECTIONS:
                raise _fail(path, f"line {number}: unknown MPS section {words[0]!r}")
            if head in ("OBJSENSE", "OBJSENCE"):
                if len(words) == 1:
                    expect_sense = True
                elif words[1].upper() in _MAX_WORDS | _MIN_WORDS:
                    sense = pulp.LpMaximize if words[1].upper() in _MAX_WORDS else pulp.LpMinimize
                else:
                    raise _fail(path, f"line {number}: OBJSENSE {words[1]!r} is not MAX or MIN")
                continue
        elif head not in _MPS_BOUNDS and _in_bounds(kept):
            raise _fail(path, f"line {number}: bound type {words[0]!r} is not supported")
        kept.append(line if not raw[0].isspace() else " " + line)
    return sense, kept


def _in_bounds(kept: list[str]) -> bool:
    for line in reversed(kept):
        if not line.startswith(" "):
            return line.split()[0].upper() == "BOUNDS"
    return False


def _read_mps(path: Path, text: str) -> Any:
    import pulp

    sense, lines = _mps_sense(path, text.splitlines())
    if not any(line.split()[0].upper() == "ENDATA" for line in lines if not line.startswith(" ")):
        raise _fail(path, "has no ENDATA line")
    with tempfile.TemporaryDirectory(prefix="verity-mps-") as tmp:
        clean = Path(tmp) / "model.mps"
        clean.write_text("\n".join(lines) + "\n", encoding="utf-8")
        try:
            _variables, problem = pulp.LpProblem.fromMPS(str(clean), sense=sense)
        except Exception as exc:  # pulp's reader raises KeyError, IndexError, ValueError...
            detail = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise _fail(
                path, f"pulp cannot read it as MPS ({type(exc).__name__}: {detail})"
            ) from None
    return problem


# ---------------------------------------------------------------------------- LP

_SECTION_WORDS: dict[str, str] = {
    "maximize": "max", "maximise": "max", "maximum": "max", "max": "max",
    "minimize": "min", "minimise": "min", "minimum": "min", "min": "min",
    "subject to": "st", "such that": "st", "st": "st", "s.t.": "st", "st.": "st",
    "bounds": "bounds", "bound": "bounds",
    "general": "gen", "generals": "gen", "gen": "gen", "integer": "gen", "integers": "gen",
    "binary": "bin", "binaries": "bin", "bin": "bin",
    "end": "end",
}  # fmt: skip
_SEMI = "semi-continuous variables"
_REFUSED_WORDS = {"sos": "special ordered sets", "semi-continuous": _SEMI, "semis": _SEMI}
_TOKEN = re.compile(
    r"\s*(?:(?P<num>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)"
    r"|(?P<inf>[+-]?(?:infinity|inf)\b)"
    r"|(?P<sense><=|>=|=<|=>|<|>|=)"
    r"|(?P<op>[+-])"
    r"|(?P<colon>:)"
    r"|(?P<name>[A-Za-z_!\"#$%&()/,.;?@`'{}|~][A-Za-z0-9_!\"#$%&()/,.;?@`'{}|~\[\]]*)"
    r"|(?P<bad>\S))",
    re.IGNORECASE,
)


@dataclass
class _Section:
    kind: str
    line: int
    text: list[str] = field(default_factory=list)


def _strip_comments(text: str) -> str:
    text = re.sub(r"\\\*.*?\*\\", " ", text, flags=re.DOTALL)
    return re.sub(r"\\[^\n]*", "", text)


def _sections(path: Path, text: str) -> list[_Section]:
    sections: list[_Section] = []
    for number, raw in enumerate(_strip_comments(text).splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        key = " ".join(line.lower().split())
        if key in _REFUSED_WORDS:
            raise _fail(path, f"line {number}: {_REFUSED_WORDS[key]} are not supported")
        if key in _SECTION_WORDS:
            sections.append(_Section(_SECTION_WORDS[key], number))
            continue
        if not sections:
            raise _fail(path, f"line {number}: expected Maximize or Minimize, found {line[:40]!r}")
        sections[-1].text.append(line)
    kinds = [s.kind for s in sections]
    if not kinds or kinds[0] not in ("max", "min"):
        raise _fail(path, "does not start with Maximize or Minimize")
    if "end" not in kinds:
        raise _fail(path, "has no End line")
    if kinds.count("max") + kinds.count("min") > 1:
        raise _fail(path, "has more than one objective")
    return sections


def _tokens(path: Path, text: str, line: int) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for match in _TOKEN.finditer(text):
        kind = match.lastgroup or "bad"
        value = match.group(kind)
        if kind == "bad":
            if value == "[":
                raise _fail(path, f"section at line {line}: quadratic terms are not supported")
            raise _fail(path, f"section at line {line}: unexpected {value!r}")
        out.append((kind, value))
    return out


class _Terms:
    """A linear expression being read: variable -> coefficient, and a constant."""

    def __init__(self) -> None:
        self.coefficients: dict[str, float] = {}
        self.constant = 0.0


def _expression(
    path: Path, tokens: list[tuple[str, str]], pos: int, line: int
) -> tuple[_Terms, int]:
    """Read ``[+|-] [number] [name] ...`` from ``pos`` up to a sense, colon or the end."""
    terms = _Terms()
    while pos < len(tokens) and tokens[pos][0] not in ("sense", "colon"):
        sign = 1.0
        while pos < len(tokens) and tokens[pos][0] == "op":
            sign = -sign if tokens[pos][1] == "-" else sign
            pos += 1
        coefficient: float | None = None
        if pos < len(tokens) and tokens[pos][0] == "num":
            coefficient = float(tokens[pos][1])
            pos += 1
        if pos < len(tokens) and tokens[pos][0] == "name":
            name = tokens[pos][1]
            pos += 1
            terms.coefficients[name] = terms.coefficients.get(name, 0.0) + sign * (
                1.0 if coefficient is None else coefficient
            )
        elif coefficient is not None:
            terms.constant += sign * coefficient
        else:
            found = tokens[pos][1] if pos < len(tokens) else "the end"
            raise _fail(path, f"section at line {line}: expected a term, found {found!r}")
        if pos < len(tokens) and tokens[pos][0] not in ("op", "sense", "colon"):
            if tokens[pos + 1 : pos + 2] and tokens[pos + 1][0] == "colon":
                break  # the next constraint's name
            raise _fail(path, f"section at line {line}: expected + or -, found {tokens[pos][1]!r}")
    return terms, pos


def _number(path: Path, tokens: list[tuple[str, str]], pos: int, line: int) -> tuple[float, int]:
    sign = 1.0
    while pos < len(tokens) and tokens[pos][0] == "op":
        sign = -sign if tokens[pos][1] == "-" else sign
        pos += 1
    if pos < len(tokens) and tokens[pos][0] == "num":
        return sign * float(tokens[pos][1]), pos + 1
    if pos < len(tokens) and tokens[pos][0] == "inf":
        text = tokens[pos][1].lower()
        return (-sign if text.startswith("-") else sign) * float("inf"), pos + 1
    found = tokens[pos][1] if pos < len(tokens) else "the end"
    raise _fail(path, f"section at line {line}: expected a number, found {found!r}")


_SENSES = {"<=": "<=", "=<": "<=", "<": "<=", ">=": ">=", "=>": ">=", ">": ">=", "=": "="}


@dataclass
class _Constraint:
    name: str | None
    terms: _Terms
    sense: str
    rhs: float


def _constraints(path: Path, section: _Section) -> Iterator[_Constraint]:
    tokens = _tokens(path, " ".join(section.text), section.line)
    pos = 0
    while pos < len(tokens):
        name = None
        if tokens[pos][0] == "name" and tokens[pos + 1 : pos + 2] == [("colon", ":")]:
            name, pos = tokens[pos][1], pos + 2
        terms, pos = _expression(path, tokens, pos, section.line)
        if pos >= len(tokens) or tokens[pos][0] != "sense":
            raise _fail(path, f"constraint {name or '?'}: expected <=, >= or =")
        sense = _SENSES[tokens[pos][1]]
        rhs, pos = _number(path, tokens, pos + 1, section.line)
        if pos < len(tokens) and tokens[pos][0] == "sense":
            raise _fail(path, f"constraint {name or '?'}: ranged constraints are not supported")
        if not terms.coefficients:
            raise _fail(path, f"constraint {name or '?'} has no variable")
        yield _Constraint(name, terms, sense, rhs - terms.constant)


@dataclass
class _Bounds:
    low: float | None = 0.0
    up: float | None = None


def _bound_error(path: Path, line: str) -> InputError:
    return _fail(path, f"bound {line!r} is not one of x <= 5, 2 <= x <= 5, x = 3, x free")


def _read_bounds(path: Path, section: _Section, bounds: dict[str, _Bounds]) -> None:
    for line in section.text:
        tokens = _tokens(path, line, section.line)
        if len(tokens) == 2 and tokens[0][0] == "name" and tokens[1][1].lower() == "free":
            bounds[tokens[0][1]] = _Bounds(None, None)
            continue
        if tokens and tokens[0][0] == "name":  # x <= 5, x >= 2, x = 3
            if len(tokens) < 3 or tokens[1][0] != "sense":
                raise _bound_error(path, line)
            value, end = _number(path, tokens, 2, section.line)
            _set_bound(bounds.setdefault(tokens[0][1], _Bounds()), _SENSES[tokens[1][1]], value)
        else:  # 2 <= x, 2 <= x <= 5
            value, pos = _number(path, tokens, 0, section.line)
            if pos + 1 >= len(tokens) or tokens[pos][0] != "sense" or tokens[pos + 1][0] != "name":
                raise _bound_error(path, line)
            entry = bounds.setdefault(tokens[pos + 1][1], _Bounds())
            _set_bound(entry, _FLIPPED[_SENSES[tokens[pos][1]]], value)
            end = pos + 2
            if end < len(tokens):
                if tokens[end][0] != "sense":
                    raise _bound_error(path, line)
                sense = _SENSES[tokens[end][1]]
                value, end = _number(path, tokens, end + 1, section.line)
                _set_bound(entry, sense, value)
        if end != len(tokens):
            raise _bound_error(path, line)


_FLIPPED = {"<=": ">=", ">=": "<=", "=": "="}


def _set_bound(entry: _Bounds, sense: str, value: float) -> None:
    finite = None if value in (float("inf"), float("-inf")) else value
    if sense in ("<=", "="):
        entry.up = finite
    if sense in (">=", "="):
        entry.low = finite


def _read_lp(path: Path, text: str) -> Any:
    import pulp

    sections = _sections(path, text)
    objective = sections[0]
    sense = pulp.LpMaximize if objective.kind == "max" else pulp.LpMinimize
    obj_tokens = _tokens(path, " ".join(objective.text), objective.line)
    obj_name = None
    if obj_tokens[1:2] == [("colon", ":")] and obj_tokens[0][0] == "name":
        obj_name, obj_tokens = obj_tokens[0][1], obj_tokens[2:]
    obj_terms, end = (
        _expression(path, obj_tokens, 0, objective.line) if obj_tokens else (_Terms(), 0)
    )
    if end != len(obj_tokens):
        raise _fail(path, "the objective holds a sense or a second name")
    constraints: list[_Constraint] = []
    bounds: dict[str, _Bounds] = {}
    integers: set[str] = set()
    binaries: set[str] = set()
    order: list[str] = list(obj_terms.coefficients)
    for section in sections[1:]:
        if section.kind == "st":
            found = list(_constraints(path, section))
            constraints.extend(found)
            order += [n for c in found for n in c.terms.coefficients]
        elif section.kind == "bounds":
            _read_bounds(path, section, bounds)
            order += list(bounds)
        elif section.kind in ("gen", "bin"):
            names = " ".join(section.text).split()
            (integers if section.kind == "gen" else binaries).update(names)
            order += names
        elif section.kind == "end" and section.text:
            raise _fail(path, f"line {section.line}: text after End")
    problem = pulp.LpProblem(_problem_name(path), sense)
    variables: dict[str, Any] = {}
    for name in dict.fromkeys(order):
        entry = bounds.get(name, _Bounds())
        if name in binaries:
            variables[name] = variable(problem, name, 0, 1, pulp.LpBinary)
        else:
            cat = pulp.LpInteger if name in integers else pulp.LpContinuous
            variables[name] = variable(problem, name, entry.low, entry.up, cat)
    expression = pulp.lpSum(c * variables[n] for n, c in obj_terms.coefficients.items())
    problem.setObjective(expression + obj_terms.constant)
    if obj_name:
        problem.objective.name = obj_name
    seen: set[str] = set()
    for i, constraint in enumerate(constraints):
        lhs = pulp.lpSum(c * variables[n] for n, c in constraint.terms.coefficients.items())
        rhs = constraint.rhs
        made = {"<=": lhs <= rhs, ">=": lhs >= rhs, "=": lhs == rhs}[constraint.sense]
        name = constraint.name or f"R{i + 1}"
        if name in seen:
            raise _fail(path, f"constraint {name!r} appears twice")
        seen.add(name)
        problem.addConstraint(made, name)
    return problem


def _problem_name(path: Path) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", path.stem) or "model"

"""Answer checking over passages (verity.answer) and `verity check-answer`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import ROOT, load_json
from verity import InputError
from verity.answer import AnswerResult, Passage, check_answer, coerce_passages
from verity.cli.main import main
from verity.formats import REFUSAL

DATA = load_json(ROOT / "benchmarks" / "adversarial" / "attacks.json")
PASSAGES = [{"id": p["id"], "text": p["text"]} for p in DATA["passages"]]

LEASE = Passage(
    "lease", "The tenant shall not sublet the flat without consent. Rent is $1,250.00 a month."
)
CARD = Passage("card", "The Gold card earns 4x points on groceries.")


def test_all_sentences_supported() -> None:
    answer = "Rent is $1,250 a month. The Gold card earns 4x points on groceries."
    result = check_answer(answer, [LEASE, CARD])
    assert result.all_claims_verified and not result.refused
    assert result.unsupported_claims_removed == 0
    assert [c.passage_id for c in result.claims] == ["lease", "card"]
    assert result.answer == answer


def test_unsupported_sentences_are_removed_with_reasons() -> None:
    answer = "The tenant shall sublet the flat. Rent is $1,250.00 a month. The moon is cheese."
    result = check_answer(answer, [CARD, LEASE])
    dropped, kept, unknown = result.claims
    assert (dropped.supported, dropped.reason, dropped.closest_passage_id) == (
        False, "marker_dropped", "lease"
    )  # fmt: skip
    assert dropped.detail == "drops 'not without'"
    assert kept.supported and kept.passage_id == "lease" and kept.span is not None
    # "the" and "is" both occur in the lease; only "the" in the card passage.
    assert unknown.reason == "not_contained" and unknown.closest_passage_id == "lease"
    assert result.unsupported_claims_removed == 2
    assert not result.all_claims_verified and not result.refused
    assert result.answer == "Rent is $1,250.00 a month."


def test_refusal_when_nothing_survives() -> None:
    result = check_answer("The flat may be sublet freely.", [LEASE])
    assert result.refused and result.answer == REFUSAL
    assert result.claims[0].closest_passage_id == "lease"


@pytest.mark.parametrize("answer", ["", "   \n  "])
def test_empty_answer_is_refused(answer: str) -> None:
    result = check_answer(answer, [LEASE])
    assert result.claims == () and result.refused and not result.all_claims_verified
    assert result.answer == REFUSAL


def test_no_passages_means_refusal() -> None:
    result = check_answer("Rent is $1,250.00 a month.", [])
    assert result.refused and result.claims[0].closest_passage_id is None


def test_punctuation_only_sentence_is_an_empty_claim() -> None:
    result = check_answer("Rent is $1,250.00 a month.\n...", [LEASE])
    assert [c.reason for c in result.claims] == ["supported", "empty_claim"]


def test_closest_is_none_without_shared_tokens() -> None:
    result = check_answer("Zebras gallop.", [LEASE, CARD])
    assert result.claims[0].closest_passage_id is None


def test_mappings_and_integer_ids_are_accepted() -> None:
    result = check_answer("Rent is $1,250.00 a month.", [{"id": 7, "text": LEASE.text}])
    assert result.claims[0].passage_id == "7"


def test_to_dict_is_json_serializable() -> None:
    result = check_answer("The tenant shall sublet the flat. Rent is $1,250.00 a month.", [LEASE])
    data = json.loads(json.dumps(result.to_dict()))
    assert data["format"] == "verity.answer_result/1"
    assert data["unsupported_claims_removed"] == 1
    assert data["claims"][0]["detail"] == "drops 'not without'"
    # The span is in v4 tokens of the supporting passage sentence (the second one).
    assert data["claims"][1]["passage_sentence"] == 1
    assert data["claims"][1]["span"] == {"start": 0, "end": 5}
    assert set(data) == {
        "format", "claims", "unsupported_claims_removed", "all_claims_verified", "answer",
        "refused",
    }  # fmt: skip


@pytest.mark.parametrize(
    ("passages", "message"),
    [
        ("not a list", "must be a list"),
        ([["id", "text"]], "expected an object"),
        ([{"text": "x"}], '"id" must be a non-empty string'),
        ([{"id": "", "text": "x"}], '"id" must be a non-empty string'),
        ([{"id": True, "text": "x"}], '"id" must be a non-empty string'),
        ([{"id": "a"}], '"text" must be a string'),
        ([{"id": "a", "text": 3}], '"text" must be a string'),
        ([{"id": "a", "text": "x", "url": "y"}], "unknown field 'url'"),
        ([{"id": "a", "text": "x"}, {"id": "a", "text": "y"}], "duplicate id 'a'"),
    ],
)
def test_bad_passages_raise_input_error(passages: Any, message: str) -> None:
    with pytest.raises(InputError, match=message):
        coerce_passages(passages)


# --- adversarial answers: attacks are trimmed, controls survive -----------------------


@pytest.mark.parametrize("attack", DATA["attacks"], ids=lambda a: a["id"])
def test_attack_sentence_is_trimmed_from_an_answer(attack: dict[str, Any]) -> None:
    control = next(c for c in DATA["controls"] if c["passage_id"] != attack["passage_id"])
    answer = control["answer"] + "\n" + attack["answer"]
    result = check_answer(answer, PASSAGES)
    assert [c.supported for c in result.claims] == [True, False]
    assert result.answer == control["answer"]


# --- the CLI ---------------------------------------------------------------------------


def _files(tmp_path: Path, passages: Any, answer: str | bytes) -> tuple[str, str]:
    p = tmp_path / "passages.json"
    a = tmp_path / "answer.txt"
    p.write_text(json.dumps(passages), encoding="utf-8")
    if isinstance(answer, bytes):
        a.write_bytes(answer)
    else:
        a.write_text(answer, encoding="utf-8")
    return str(p), str(a)


LEASE_JSON = [{"id": "lease", "text": LEASE.text}]


@pytest.mark.parametrize(
    ("answer", "code"),
    [
        ("Rent is $1,250.00 a month.", 0),
        ("Rent is $1,250.00 a month. The tenant shall sublet the flat.", 1),
        ("The tenant shall sublet the flat.", 3),
        ("", 3),
    ],
)
def test_cli_exit_codes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], answer: str, code: int
) -> None:
    paths = _files(tmp_path, LEASE_JSON, answer)
    assert main(["check-answer", *paths]) == code
    out = capsys.readouterr().out
    assert out.strip().splitlines()[-1].startswith("answer: ")


def test_cli_json_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    paths = _files(tmp_path, LEASE_JSON, "Rent is $1,250.00 a month. The flat is big.")
    assert main(["check-answer", *paths, "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["answer"] == "Rent is $1,250.00 a month."
    assert [c["reason"] for c in data["claims"]] == ["supported", "not_contained"]


def test_cli_readable_output_names_markers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = _files(tmp_path, LEASE_JSON, "The tenant shall sublet the flat.")
    main(["check-answer", *paths])
    out = capsys.readouterr().out
    assert "REMOVE [marker_dropped; closest lease]" in out
    assert "drops 'not without'" in out
    assert REFUSAL in out


@pytest.mark.parametrize(
    ("passages", "answer", "message"),
    [
        (None, "x", "does not exist"),
        ("{not json", "x", "not valid JSON"),
        ({"id": "a", "text": "b"}, "x", "expected a JSON list"),
        ([{"id": "a"}], "x", 'passage 0: "text" must be a string'),
        (LEASE_JSON, b"\xff\xfe bad", "not valid UTF-8"),
    ],
)
def test_cli_unusable_input(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    passages: Any,
    answer: str | bytes,
    message: str,
) -> None:
    p, a = _files(tmp_path, [], answer)
    if passages is None:
        p = str(tmp_path / "missing.json")
    elif isinstance(passages, str):
        Path(p).write_text(passages, encoding="utf-8")
    else:
        Path(p).write_text(json.dumps(passages), encoding="utf-8")
    assert main(["check-answer", p, a]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_result_type() -> None:
    assert isinstance(check_answer("x", []), AnswerResult)


def test_cli_names_swapped_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p, a = _files(tmp_path, LEASE_JSON, "Rent is $1,250.00 a month.")
    assert main(["check-answer", a, p]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"verity: error: the files look swapped: {a} is not JSON and {p} is a passages list; "
        f"the answer comes last: verity check-answer {p} {a}\n"
    )
    assert main(["check-answer", p, a]) == 0  # the order the hint gives works


def test_cli_two_json_files_are_no_swap(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p, a = _files(tmp_path, LEASE_JSON, json.dumps({"id": "x"}))
    Path(p).write_text("{not json", encoding="utf-8")
    assert main(["check-answer", p, a]) == 2
    err = capsys.readouterr().err
    assert "not valid JSON" in err and "swapped" not in err

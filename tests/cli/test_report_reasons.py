"""Reports that show the reason: every reason of a dropped claim with what it declares,
each repair linked to the claim it replaced (HTML and JSON), and a shortened claim text
that keeps in view what its reason names (terminal).

The claims come from the scripted narrator; the claims it is made to add are data
(``tests/fixtures/report/dropped_claims.json``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any

import pytest

from tests.helpers import FIXTURES, load_json
from verity.cli.commands.narrate import render_result
from verity.cli.main import main
from verity.cli.render import render_demo, render_demo_html
from verity.llm.narrators.base import Attempt, output_attempt
from verity.llm.narrators.scripted import ErrorMix, ScriptedNarrator
from verity.llm.prompts import Prompt
from verity.pipeline import DemoResult, run_demo
from verity.text.display import one_line, one_line_showing

ADDED = load_json(FIXTURES / "report" / "dropped_claims.json")["claims"]
LONG = ADDED[0]

# --- a small DOM, from html.parser -------------------------------------------------------

_VOID = frozenset({"meta", "br", "img", "hr", "input", "link"})


@dataclass
class _Node:
    tag: str
    attrs: dict[str, str]
    children: list[_Node | str] = field(default_factory=list)

    def text(self) -> str:
        parts = [c if isinstance(c, str) else c.text() for c in self.children]
        return " ".join(" ".join(parts).split())

    def walk(self) -> list[_Node]:
        out = [self]
        for c in self.children:
            if isinstance(c, _Node):
                out.extend(c.walk())
        return out

    def find_all(self, tag: str, cls: str | None = None) -> list[_Node]:
        return [
            n
            for n in self.walk()[1:]
            if n.tag == tag and (cls is None or cls in n.attrs.get("class", "").split())
        ]


class _Tree(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.root = _Node("#document", {})
        self._open = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = _Node(tag, {k: v or "" for k, v in attrs})
        self._open[-1].children.append(node)
        if tag not in _VOID:
            self._open.append(node)

    def handle_endtag(self, tag: str) -> None:
        if tag in _VOID:
            return
        assert self._open[-1].tag == tag, f"</{tag}> closes <{self._open[-1].tag}>"
        self._open.pop()

    def handle_data(self, data: str) -> None:
        self._open[-1].children.append(data)


def _dom(page: str) -> _Node:
    tree = _Tree()
    tree.feed(page)
    tree.close()
    assert tree._open == [tree.root], "the page leaves elements open"
    return tree.root


def _by_id(root: _Node) -> dict[str, _Node]:
    return {n.attrs["id"]: n for n in root.walk() if "id" in n.attrs}


# --- narrators ----------------------------------------------------------------------------


class _AddingNarrator:
    """The clean scripted narrator's claims, then the fixture's claims (the first pass only)."""

    name = "scripted:clean + fixture claims"

    def narrate(self, prompt: Prompt) -> Attempt:
        first = ScriptedNarrator("clean").narrate(prompt)
        if prompt.pass_index:
            return first
        claims = [{k: v for k, v in c.items() if k != "id"} for c in first.claims]
        return output_attempt(
            prompt,
            narrator=self.name,
            model="simulated",
            raw_text=json.dumps({"claims": [*claims, *ADDED]}),
            finish_reason="stop",
            usage=first.usage,
            latency_s=0.0,
            simulated=True,
        )


#: Every first-pass claim cites a made-up id; every repair is the closest valid claim.
_BROKEN_IDS = ErrorMix("broken-ids", unknown_id=1.0, repair_fix=1.0)


@pytest.fixture(scope="module")
def added(tmp_path_factory: pytest.TempPathFactory) -> DemoResult:
    out = tmp_path_factory.mktemp("added") / "demo"
    return run_demo(out, narrator=_AddingNarrator(), variant="extractive", repairs=0)


@pytest.fixture(scope="module")
def repaired(tmp_path_factory: pytest.TempPathFactory) -> DemoResult:
    out = tmp_path_factory.mktemp("repaired") / "demo"
    narrator = ScriptedNarrator(_BROKEN_IDS, seed=3)
    return run_demo(out, narrator=narrator, variant="grounded", repairs=1)


def _long_verdict(demo: DemoResult) -> Any:
    [verdict] = [v for v in demo.result.final.claims if v.text == LONG["text"]]
    return verdict


# --- the HTML report ---------------------------------------------------------------------


def test_the_html_report_shows_every_reason_and_what_the_claim_declares(
    added: DemoResult,
) -> None:
    verdict = _long_verdict(added)
    assert not verdict.passed and len(verdict.errors) >= 2
    root = _dom(render_demo_html(added))
    [item] = [
        li
        for li in root.find_all("li")
        if li.attrs.get("data-claim") == verdict.id and li.attrs.get("data-pass") == "0"
    ]
    reasons = [li.text() for li in item.find_all("ul", "reasons")[0].find_all("li")]
    assert len(reasons) == len(verdict.errors)
    for shown, error in zip(reasons, verdict.errors, strict=True):
        assert error.code in shown and f"gate {error.gate}" in shown
        assert " ".join(error.message.split()) in shown
        if isinstance(error.actual, str):
            assert f"actual: {error.actual}" in shown
    declared = item.find_all("dl", "declared")[0]
    terms = [n.text() for n in declared.find_all("dt")]
    values = [n.text() for n in declared.find_all("dd")]
    assert dict(zip(terms, values, strict=True)) == {
        "cites": "objective",
        "declared entities": "generic_bank",
        "declared numbers": "$98,765.43",
    }
    # the text never names the entity it is dropped for; the page shows it was declared
    assert "generic_bank" not in LONG["text"]
    assert any(e.actual == "generic_bank" for e in verdict.errors)


def test_report_json_carries_every_reason_of_a_dropped_claim(added: DemoResult) -> None:
    report = load_json(added.files["report"])
    verdict = _long_verdict(added)
    [stored] = [v for v in report["claims"] if v["id"] == verdict.id]
    assert stored["errors"] == [e.model_dump(mode="json") for e in verdict.errors]
    assert {"gate", "code", "message", "expected", "actual"} <= set(stored["errors"][0])


def test_a_repair_records_the_claim_it_replaced(repaired: DemoResult) -> None:
    first, repair = repaired.result.passes
    failing = [v.id for v in first.report.claims if not v.passed]
    assert failing and repair.replacement_ids
    # by position: the j-th replacement stands for the j-th failing claim sent back
    assert dict(repair.replaces) == dict(zip(repair.replacement_ids, failing, strict=False))
    assert repair.to_dict()["replaces"] == dict(repair.replaces)
    assert first.replaces == {} and first.to_dict()["replaces"] == {}


def test_the_html_report_links_each_repair_and_the_claim_it_replaced(
    repaired: DemoResult,
) -> None:
    root = _dom(render_demo_html(repaired))
    ids = _by_id(root)
    repair = repaired.result.passes[1]
    assert repair.replaces
    for new, old in repair.replaces.items():
        [dropped] = [
            n
            for n in ids.values()
            if n.attrs.get("data-claim") == old and n.attrs.get("data-pass") == "0"
        ]
        [forward] = [a for a in dropped.find_all("a") if a.text() == new]
        target = ids[forward.attrs["href"].removeprefix("#")]
        assert target.attrs["data-claim"] == new
        [back] = [a for a in target.find_all("a") if a.text() == old]
        assert back.attrs["href"] == f"#{dropped.attrs['id']}"
    shipped = {c.id for c in repaired.result.final.shipped}
    assert shipped & set(repair.replaces), "some repair ships, so a shipped sentence links back"


def test_narrate_json_carries_the_replaces_link(added: DemoResult, capsys: Any) -> None:
    graph = added.files["graph"]
    code = main(
        ["narrate", str(graph), "--narrator", "scripted:sloppy", "--variant", "grounded"]
        + ["--seed", "1", "--json", "--quiet"]
    )
    assert code in (0, 1)
    passes = json.loads(capsys.readouterr().out)["passes"]
    assert len(passes) == 2 and passes[0]["replaces"] == {}
    failing = [v["id"] for v in passes[0]["report"]["claims"] if not v["passed"]]
    replaces = passes[1]["replaces"]
    assert replaces and list(replaces) == passes[1]["replacement_ids"][: len(replaces)]
    assert set(replaces.values()) <= set(failing)


# --- the terminal ------------------------------------------------------------------------


def test_the_demo_keeps_a_long_dropped_claims_failing_number_in_view(added: DemoResult) -> None:
    verdict = _long_verdict(added)
    assert LONG["text"].endswith("$98,765.43") and len(LONG["text"]) > 150
    lines = render_demo(added).splitlines()
    [line] = [x for x in lines if f" {verdict.id} [" in x and x.startswith("  ")]
    assert line.endswith("$98,765.43") and "..." in line
    assert len(line) < len(LONG["text"])


def test_narrate_keeps_a_long_dropped_claims_failing_number_in_view(added: DemoResult) -> None:
    verdict = _long_verdict(added)
    [line] = [x for x in render_result(added.result).splitlines() if f"FAIL {verdict.id} " in x]
    assert line.endswith("$98,765.43") and "..." in line


def test_the_demo_names_the_repair_of_each_replaced_claim(repaired: DemoResult) -> None:
    lines = render_demo(repaired).splitlines()
    replaces = repaired.result.passes[1].replaces
    assert replaces
    for new, old in replaces.items():
        [at] = [n for n, x in enumerate(lines) if x.startswith(f"  pass 0 {old} [")]
        assert lines[at + 2] == f"      replaced at pass 1 by {new}"


@pytest.mark.parametrize(
    ("text", "keep", "shown"),
    [
        ("short text $5", ["$5"], "short text $5"),
        ("a b c d e f g h i j k l m n o p $12", ["$12"], "...h i j k l m n o p $12"),
        ("a b c d e f g h i j k $12 l m n o p q r s t u v", ["$12"], "...i j k $12 l m n o..."),
        ("$12 a b c d e f g h i j k l m n o p", ["$12"], "$12 a b c d e f g h i..."),
        ("a b c d e f g h i j k l m n o p $12", ["nowhere"], "a b c d e f g h i j k..."),
        (
            "a b c d e f g h i j k l m n o p $12",
            ["A B C D E F G H I J K L M N"],
            "a b c d e f g h i j k...",
        ),
        ("a b c d e f g h i j k l m n o p q r", ["K L M N O"], "...h i j k l m n o p q r"),
        (
            "a b c d e f g h i j k l m n o p q r s t u v w",
            ["k l m n o p q r s t u v"],
            "...k l m n o p q r s...",
        ),
    ],
)
def test_one_line_showing_keeps_the_named_part(text: str, keep: list[str], shown: str) -> None:
    got = one_line_showing(text, 24, keep)
    assert got == shown and len(got) <= 24
    if not any(k.casefold() in text.casefold() for k in keep):
        assert got == one_line(text, 24)

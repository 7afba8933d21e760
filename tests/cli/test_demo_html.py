"""`verity demo --html FILE`: the one-page report, checked in a real headless browser.

The page is opened in headless Chromium twice: once for a screenshot (it must not be a
single colour) and once for the DOM (every shipped sentence must be in its text), with
Chromium's log on stderr, where a console message of the page (an error, an uncaught
exception) shows up as a ``CONSOLE`` line: there must be none. A control page that logs
an error proves the check sees one.

The browser is ``$VERITY_TEST_BROWSER`` (CI sets it: ``.ci/browser.sh`` installs Debian's
``chromium``), else ``chromium`` or ``chromium-browser`` on the PATH. Outside CI, without
either, the browser tests skip saying so; with ``VERITY_TEST_BROWSER`` set, a browser that
cannot run fails them.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from verity import load_graph
from verity.cli.main import main
from verity.cli.render import headline_split, render_demo_html
from verity.llm.narrators.base import Attempt, output_attempt
from verity.llm.narrators.scripted import ScriptedNarrator
from verity.llm.prompts import Prompt
from verity.pipeline import run_demo

_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--enable-logging=stderr",
    "--v=0",
)


def _browser() -> str:
    given = os.environ.get("VERITY_TEST_BROWSER")
    if given:
        return given
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    pytest.skip(
        "no headless browser: install Debian's chromium (apt-get install -y chromium) or "
        "set VERITY_TEST_BROWSER to a Chromium binary"
    )


def _run_browser(page: Path, tmp: Path, action: str) -> subprocess.CompletedProcess[bytes]:
    profile = tmp / f"profile-{action.strip('-').split('=')[0]}"
    cmd = [_browser(), *_FLAGS, f"--user-data-dir={profile}", action, page.as_uri()]
    return subprocess.run(cmd, capture_output=True, timeout=180, check=True, cwd=tmp)


def _console(stderr: bytes) -> list[str]:
    return [line for line in stderr.decode("utf-8", "replace").splitlines() if ":CONSOLE" in line]


class _Text(HTMLParser):
    """The text a page shows (script and style contents left out)."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        self._skip += tag in ("script", "style")

    def handle_endtag(self, tag: str) -> None:
        self._skip -= tag in ("script", "style")

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.parts.append(data)


def _shown_text(dom: str) -> str:
    parser = _Text()
    parser.feed(dom)
    return " ".join(" ".join(parser.parts).split())


def _check_in_browser(page: Path, tmp: Path, sentences: list[str]) -> str:
    """Screenshot and DOM of ``page``; returns the text the page shows."""
    from PIL import Image

    shot = tmp / "shot.png"
    taken = _run_browser(page, tmp, f"--screenshot={shot}")
    with Image.open(shot) as image:
        colors = image.convert("RGB").getcolors(maxcolors=1 << 20)
        assert image.size[0] > 100 and image.size[1] > 100
    assert colors is None or len(colors) > 1, "the screenshot is a single colour"
    dumped = _run_browser(page, tmp, "--dump-dom")
    assert _console(taken.stderr) == [] and _console(dumped.stderr) == []
    text = _shown_text(dumped.stdout.decode("utf-8"))
    for sentence in sentences:
        assert " ".join(sentence.split()) in text, sentence
    return text


def test_the_html_report_renders_in_a_real_browser(tmp_path: Path) -> None:
    pytest.importorskip("PIL", reason="needs Pillow (it comes with the bench extra)")
    out = tmp_path / "demo"
    page = tmp_path / "report.html"
    code = main(
        ["demo", "--narrator", "scripted:clean", "--out-dir", str(out), "--html", str(page)]
    )
    assert code == 0
    report = (out / "report.json").read_text("utf-8")
    shipped = [c["text"] for c in json.loads(report)["shipped"]]
    assert len(shipped) == 5
    text = _check_in_browser(page, tmp_path, shipped)
    graph = load_graph(out / "graph.json")
    # the evidence beside each sentence: every cited statement, written with names
    for claim in json.loads(report)["shipped"]:
        for node_id in claim["cited_evidence_ids"]:
            assert graph.named(graph.nodes[node_id].statement) in text
    assert "Dropped claims" in text and "The verified answer" in text


def test_the_browser_check_sees_a_console_error(tmp_path: Path) -> None:
    page = tmp_path / "bad.html"
    page.write_text(
        '<!DOCTYPE html><html><body><p>shown</p><script>console.error("boom")</script>'
        "</body></html>",
        encoding="utf-8",
    )
    dumped = _run_browser(page, tmp_path, "--dump-dom")
    assert any('"boom"' in line for line in _console(dumped.stderr))


class _Injecting:
    """A narrator that adds a claim whose text is markup to the scripted narrator's."""

    name = "injecting"

    def narrate(self, prompt: Prompt) -> Attempt:
        first = ScriptedNarrator("clean").narrate(prompt)
        bad = {
            "type": "ALLOCATION",
            "cited_evidence_ids": ["objective"],
            "text": '<script>console.error("injected")</script><b>bold</b> & "quoted"',
            "entities": [],
            "numbers": [],
        }
        claims = [{k: v for k, v in c.items() if k != "id"} for c in first.claims]
        return output_attempt(
            prompt,
            narrator=self.name,
            model="fake",
            raw_text=json.dumps({"claims": [*claims, bad]}),
            finish_reason="stop",
            usage=first.usage,
            latency_s=0.0,
        )


def test_every_text_is_escaped_and_dropped_claims_show_their_reason(tmp_path: Path) -> None:
    demo = run_demo(tmp_path / "demo", narrator=_Injecting(), variant="extractive", repairs=0)
    page_text = render_demo_html(demo)
    assert "<script>" not in page_text and "<b>bold</b>" not in page_text
    assert html.escape('<script>console.error("injected")</script>', quote=True) in page_text
    assert re.search(r"<code>polarity\.markup</code>", page_text)
    graph = load_graph(demo.files["graph"])
    head, rest = headline_split(graph, demo.result.final.shipped)
    assert head is not None and head.cited_evidence_ids[0] == "objective" and len(rest) == 4
    if _browser_or_none() is None:
        return
    pytest.importorskip("PIL", reason="needs Pillow (it comes with the bench extra)")
    page = tmp_path / "report.html"
    page.write_text(page_text, encoding="utf-8")
    text = _check_in_browser(page, tmp_path, [c.text for c in demo.result.final.shipped])
    assert '<script>console.error("injected")</script><b>bold</b> & "quoted"' in text


def _browser_or_none() -> str | None:
    try:
        return _browser()
    except pytest.skip.Exception:
        return None

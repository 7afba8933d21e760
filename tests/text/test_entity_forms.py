"""Entity forms declared once per entity (``tests/fixtures/forms/forms.json``).

Attacks: a form of one entity used for another, a word that reads as another group, a
spending form that changes what a number means. Controls: true claims in the declared
forms over checked-in card graphs, the SQL sample and the public-data specs. Every attack
is refused under strict and every control ships. The card-rewards declarations are held
to their rules: over the whole catalog every form names one entity, no category form
holds a spending word (the templates read it, so the spend assumption keeps it), and no
card's short name holds a category's form or a marker word.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.helpers import FIXTURES, ROOT, load_json
from verity.backends.card_rewards import CATEGORIES, CATEGORY_ALIASES, card_forms, load_catalog
from verity.backends.card_rewards._graph import CATEGORY_NAMES
from verity.backends.card_rewards._templates import _CATEGORY, _SPENDING_WORD, TEMPLATES
from verity.bench import adversarial as harness
from verity.text.aliases import alias_key
from verity.text.variation import MARKERS

FORMS = load_json(FIXTURES / "forms" / "forms.json")
_ROOT = str(ROOT)


@pytest.mark.parametrize("case", FORMS["attacks"], ids=lambda c: c["id"])
def test_attack_in_an_entity_form_is_refused(case: dict[str, Any]) -> None:
    outcome = harness.judge(case, "strict", _ROOT, group_key="class")
    assert not outcome.escaped, outcome
    assert outcome.codes, outcome  # refused by a gate that says why


@pytest.mark.parametrize("case", FORMS["controls"], ids=lambda c: c["id"])
def test_true_claim_in_a_declared_form_ships(case: dict[str, Any]) -> None:
    outcome = harness.judge(case, "strict", _ROOT, group_key="style")
    assert outcome.all_shipped, outcome


def _catalog_forms() -> dict[str, list[str]]:
    """Entity id -> every form the card-rewards backend declares for it (whole catalog)."""
    forms = {card.id: [card.id, *card_forms(card)] for card in load_catalog().cards}
    for category in CATEGORIES:
        forms[category] = [category, CATEGORY_NAMES[category], *CATEGORY_ALIASES[category]]
    return forms


def test_every_card_rewards_form_names_one_entity() -> None:
    owner: dict[str, str] = {}
    for entity_id, forms in _catalog_forms().items():
        for form in forms:
            assert owner.setdefault(alias_key(form), entity_id) == entity_id, form
    assert len(owner) > 2 * len(_catalog_forms())


_SPENDING_WORDS = {"spend", "spending", "purchases"}


def test_no_category_form_swallows_a_spending_word() -> None:
    for category in CATEGORIES:
        for form in CATEGORY_ALIASES[category]:
            if category == "other_spend":  # its forms are the quantifier check's concern
                continue
            assert not _SPENDING_WORDS & set(alias_key(form).split()), form


def _stem(word: str) -> str:
    return word[:4]


def test_no_card_short_name_reads_as_a_category_or_a_marker() -> None:
    """A word of a short name never starts like a word of a category's forms (``Dine Out``
    and ``dining out``, ``Road Trip`` and ``trips`` are left out) and is no marker."""
    category_stems = {
        _stem(w)
        for c in CATEGORIES
        for f in (c, *CATEGORY_ALIASES[c])
        for w in alias_key(f).split()
        if len(w) >= 4
    }
    shorts = 0
    for card in load_catalog().cards:
        for alias in card.aliases:
            if alias_key(alias) == alias_key(card.name):
                continue
            shorts += 1
            words = alias_key(alias).split()
            assert not {_stem(w) for w in words} & category_stems, alias
            assert not set(words) & MARKERS, alias
    assert shorts > 0


def test_the_spending_word_is_read_in_the_templates_that_state_what_a_card_does() -> None:
    for tid, (canonical, variants) in TEMPLATES.items():
        for variant in variants:
            rest = variant.replace(_CATEGORY, "")
            if tid in _SPENDING_WORD:
                assert "{category}" not in rest, (tid, variant)
            elif tid == "spend":  # the spend assumption keeps its own spending word
                assert _CATEGORY not in variant, variant
        assert _CATEGORY not in canonical

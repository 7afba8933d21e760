"""Write the conformance vectors in this directory from the inputs listed below.

    .venv/bin/python tests/conformance/regen.py [--check]

The checked-in JSON files are the contract, not this script: after regenerating,
review the diff by hand (every expected value must be right on its own terms, not
merely what the code produced). ``--check`` exits 1 when a file would change.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from verity.text.aliases import AliasMatcher  # noqa: E402
from verity.text.align import (  # noqa: E402
    MAX_SINGLE_GAP,
    MAX_TOTAL_GAP,
    POLARITY_LANGUAGES,
    POLARITY_MARKERS,
    check_support,
    is_supported_v1,
    is_supported_v2,
)
from verity.text.segment import split_sentences  # noqa: E402
from verity.text.tokens import tokenize, tokenize_v1  # noqa: E402
from verity.text.variation import (  # noqa: E402
    EXTRA_MARKERS,
    check_free_sentence,
    free_sentences,
    is_supported,
    sentence_key,
)

ALIASES = {
    "amex_gold": "amex_gold",
    "Amex Gold": "amex_gold",
    "American Express Gold Card": "amex_gold",
    "citi_dc": "citi_dc",
    "Citi Double Cash": "citi_dc",
    "Citi": "citi_dc",
    "groceries": "cat_groceries",
}

TOKEN_TEXTS = [
    "",
    "   ",
    "Hello, world!",
    "The Amex Gold card earns 4x points on groceries.",
    "THE AMEX  GOLD card earns 4.0X points",
    "The American Express Gold Card beats Citi Double Cash.",
    "Citi's card and the Citi card",
    "amex_gold vs amex gold vs amex-gold",
    "Spend $6,250.00 or $6,250 or 6250 dollars.",
    "It rose 12% (12 percent), not 12x.",
    "-5 and −5 and 5- and 3-1",
    "1,000,000 1.000,50 1,2345 .5 0.50",
    "e.g. U.S. i.e. No. 5",
    "don't stop; well-known state-of-the-art rock'n'roll -- a--b",
    "Q4 2024 card_07 x2 3rd 1st",
    "Ｆｕｌｌ－ｗｉｄｔｈ １２３ ＡＢＣ",
    "ﬁnance ﬂow (ligatures)",
    "zero\u200bwidth soft\u00adhyphen",
    "Straße STRASSE",
    "हिन्दी भाषा ५०० रुपये",
    "مَرْحَبًا بالعالم ١٢٣",
    "東京は大きい。大阪も。",
    "$5k 5 cents 5¢ 3×",
]

SEGMENT_TEXTS = [
    "",
    " \n\t ",
    "One sentence without a terminator",
    "The total is $6,250.00 for the year. That is the cap.",
    "Spending reached 500.00 units.",
    "Use a card, e.g. the Citi card, for gas. I.e. not for groceries.",
    "The U.S. market grew. See No. 5 in the list.",
    "J. Smith signed. Dr. Lee and Mr. Park agreed.",
    "First line\nSecond line\r\nThird line\u2028Fourth",
    "Really?! Yes! No? Maybe.",
    'He said "stop." Then he left. "Why?" she asked.',
    "(Optional.) The plan stays.",
    "Wait... the numbers are off. Or... Not.",
    "Items:\n1. Groceries\n2. Gas",
    "Am 3. Oktober ist Feiertag. Das ist gut.",
    "Le taux est de 2,5 %. Est-ce possible ? Oui.",
    "Il a dit : « C'est fini. » Puis il est parti.",
    "¿Cuál es el límite? ¡Cinco mil! El Sr. García lo dijo.",
    "今天天气很好。我们去公园吧！你去吗？",
    "总额为１２３．５元。已支付．",
    "「これで終わりです。」と彼は言った。次へ。",
    "هل هذا ممكن؟نعم. انتهى الاجتماع.بدأ العمل۔ تم",
    "आज मौसम अच्छा है।हम पार्क चलें॥ ठीक है?",
    "." * 5,
    "a. b. c.",
    # company suffixes: a boundary before a capitalised sentence opener only
    "The cheapest carrier was Frontier Airlines Inc. The next one was Delta.",
    "Acme Co. It shipped 12 crates. Widgets Ltd. However, it lost.",
    "Frontier Airlines Inc. Flight 12 was late. Acme Co. Board members met.",
    "Frontier Airlines Inc. the carrier was late.",
    "Dr. The Lee clinic opened. Mr. A. Smith left.",
]

#: Texts segmented with an entity matcher of these aliases (forms -> entity id): the
#: period that ends a declared name.
SEGMENT_ALIASES = {
    "Frontier Airlines Inc.": "f9",
    "F9": "f9",
    "Endeavor Air Inc.": "9e",
    "9E": "9e",
    "A. B. Carter Ltd": "carter",
    "U.S. Steel": "x",
}

SEGMENT_ALIAS_TEXTS = [
    "The cheapest carrier was Frontier Airlines Inc. The next one was Endeavor Air Inc.",
    "Endeavor Air Inc. It flew 12 routes. Frontier Airlines Inc. Flight 12 was late.",
    "Endeavor Air Inc. flew 12 routes. A. B. Carter Ltd. The end.",
    "U.S. Steel. It rose. The U.S. economy grew.",
    "9E had 12 delays. F9 had 9E. In 2013, 9E led.",
]

ALIGN_CASES: list[tuple[str, str]] = [
    ("a b c", "a b c"),
    ("a c", "a b c"),
    ("a c", "a x x x x c"),  # single gap of exactly 4
    ("a c", "a x x x x x c"),  # single gap of 5: too wide
    ("a b c", "a x x x x b x x x x c"),  # two gaps of 4: total 8
    ("a b c d", "a x x x x b x x x x c x d"),  # total 9: over budget
    ("a b c", "a b y y b y y y c"),  # the earliest b fails, a later b works
    ("a b", "b a"),  # order matters
    ("a a", "a x a"),  # multiplicity: two a's needed
    ("a a", "a"),
    ("x a b", "x a not b x a b"),  # first start drops 'not'; a later start passes
    ("x a b", "x a not b"),  # only alignment drops 'not'
    ("a not b", "a not not b"),  # one of two 'not's dropped
    ("a not not b", "a not not b"),
    ("a b", "a no b no"),  # marker after the span does not count
    ("tenant sublet", "the tenant shall not sublet without consent"),
    ("", "a b c"),
    ("a", ""),
    ("a b c", "c b a a b c"),
]

PREDICATE_CASES: list[tuple[str, str]] = [
    (
        "The tenant shall not sublet the apartment.",
        "The tenant shall not sublet the apartment without written consent.",
    ),
    (
        "The tenant shall sublet the apartment.",
        "The tenant shall not sublet the apartment without written consent.",
    ),
    (
        "The landlord shall not sublet the apartment.",
        "The tenant shall not sublet the apartment, says the landlord.",
    ),
    (
        "The card earns 3x on travel and 2x on dining.",
        "The card earns 2x on travel and 3x on dining.",
    ),
    ("Spend $6,250 per year.", "You may spend $6,250.00 per year on it."),
    ("Spend $6,250 per year.", "You may spend 6,250 per year on it."),
    ("It earns 4X points!", "it earns 4.0x points"),
    ("Sound travels slower in water.", "Sound travels faster in water but slower in air."),
    ("", "Anything at all."),
    ("...", "Anything at all."),
    ("Nobody was hurt.", "Nobody was hurt in the fire."),
    ("The drug is safe.", "The drug is not safe."),
    ("The drug is safe.", "Nothing suggests the drug is safe."),
]

ALIAS_PREDICATE_CASES: list[tuple[str, str]] = [
    ("Amex Gold earns 4x on groceries.", "amex_gold earns 4x points on groceries"),
    ("The Amex Gold earns 4x on groceries.", "amex_gold earns 4x points on groceries"),
    ("Citi Double Cash earns 2%.", "The Citi card earns 2% on everything."),
    ("The Citi earns 4x on groceries.", "amex_gold earns 4x points on groceries"),
]


def _tokens() -> dict[str, Any]:
    matcher = AliasMatcher(ALIASES)
    return {
        "format": "verity.conformance.tokenize/1",
        "aliases": ALIASES,
        "cases": [
            {
                "text": text,
                "v1": tokenize_v1(text),
                "v2": tokenize(text),
                "v2_aliases": tokenize(text, matcher),
            }
            for text in TOKEN_TEXTS
        ],
    }


def _segments() -> dict[str, Any]:
    return {
        "format": "verity.conformance.segment/1",
        "cases": [{"text": t, "sentences": split_sentences(t)} for t in SEGMENT_TEXTS],
        "aliases": SEGMENT_ALIASES,
        "alias_cases": [
            {"text": t, "sentences": split_sentences(t, AliasMatcher(SEGMENT_ALIASES))}
            for t in SEGMENT_ALIAS_TEXTS
        ],
    }


def _align() -> dict[str, Any]:
    cases = []
    for claim, passage in ALIGN_CASES:
        claim_tokens, passage_tokens = claim.split(), passage.split()
        support = check_support(claim_tokens, passage_tokens)
        cases.append(
            {
                "claim": claim_tokens,
                "passage": passage_tokens,
                "span": None if support.span is None else [support.span.start, support.span.end],
                "supported": support.supported,
                "reason": support.reason,
                "dropped": [
                    [loss.marker, loss.claim_count, loss.span_count] for loss in support.dropped
                ],
            }
        )
    return {
        "format": "verity.conformance.align/1",
        "constants": {
            "MAX_SINGLE_GAP": MAX_SINGLE_GAP,
            "MAX_TOTAL_GAP": MAX_TOTAL_GAP,
            "POLARITY_MARKERS": sorted(POLARITY_MARKERS),
            "POLARITY_LANGUAGES": list(POLARITY_LANGUAGES),
        },
        "cases": cases,
    }


def _predicates() -> dict[str, Any]:
    matcher = AliasMatcher(ALIASES)
    plain = [
        {
            "claim": claim,
            "passage": passage,
            "v1": is_supported_v1(claim, passage),
            "v2": is_supported_v2(claim, passage),
            "reason": check_support(tokenize(claim), tokenize(passage)).reason,
        }
        for claim, passage in PREDICATE_CASES
    ]
    aliased = [
        {
            "claim": claim,
            "passage": passage,
            "v2": is_supported_v2(claim, passage, matcher),
            "reason": check_support(tokenize(claim, matcher), tokenize(passage, matcher)).reason,
        }
        for claim, passage in ALIAS_PREDICATE_CASES
    ]
    return {
        "format": "verity.conformance.predicates/1",
        "aliases": ALIASES,
        "cases": plain,
        "alias_cases": aliased,
    }


#: v4 free-text cases: (claim, passage, unused, with aliases). Every v2 predicate case is a
#: v4 case too, so the file shows where v4 is narrower.
V4_CASES: list[tuple[str, str, list[str], bool]] = [
    # reader view
    (
        "The tenant shall not\nsublet the apartment.",
        "The tenant shall not sublet the apartment.",
        [],
        False,
    ),
    ("The tenant shall n\u200bot sublet.", "The tenant shall not sublet.", [], False),
    ("The tenant shall ~~not~~ sublet.", "The tenant shall not sublet.", [], False),
    ("Rent is <!-- not --> due.", "Rent is not due.", [], False),
    ("Rent is \u0665%.", "Rent is 5%.", [], False),
    ("Rent is 5\u00b2.", "Rent is 52.", [], False),
    ("Rent is \uff15%.", "Rent is 5%.", [], False),
    # symbols and punctuation are tokens
    ("Doses > 40 mg need approval.", "Doses 40 mg need approval.", [], False),
    ("Doses above 40 mg need approval.", "Doses above 40 mg need approval.", [], False),
    ("The loss was ($50).", "The loss was $50.", [], False),
    ("A wins, ahead of B, at 3%.", "A wins at 4%, ahead of B at 3%.", [], False),
    ("A wins at 4%; ahead of B at 3%.", "A wins at 4%, ahead of B at 3%.", [], True),
    # barriers: a gap never skips a number, clause punctuation, conjunction or marker
    ("A wins ahead of B at 3%.", "A wins at 4% ahead of B at 3%.", [], False),
    ("Card A earns 5x on travel.", "Card A earns 5x on dining and travel.", [], False),
    ("We refund shipping costs.", "We don't refund shipping costs.", [], False),
    ("The dose is given every 8 hours.", "The dose is usually given every 8 hours.", [], False),
    # one passage sentence
    (
        "The fee is waived for everyone else.",
        "The fee is waived for students. It applies to everyone else.",
        [],
        False,
    ),
    # anchoring
    (
        "gold_dining wins dining at 4x.",
        "gold_dining wins dining at 4x, ahead of flat_two at 2x.",
        [],
        True,
    ),
    ("flat_two at 2x.", "gold_dining wins dining at 4x, ahead of flat_two at 2x.", [], True),
    (
        "Harbor Credit Union in 2019.",
        "Northwind Bank acquired Harbor Credit Union in 2019.",
        [],
        False,
    ),
    (
        "Cars may cross until midnight.",
        "The bridge is closed to trucks, and cars may cross until midnight.",
        [],
        False,
    ),
    (
        "The child dose is 250 mg.",
        "The adult dose is 500 mg and the child dose is 250 mg.",
        [],
        False,
    ),
    # required spans
    (
        "gold_dining gets $1,500.00 on dining at 5x.",
        "gold_dining gets $1,500.00 on dining at 5x within its cap.",
        ["within its cap"],
        True,
    ),
    (
        "gold_dining gets $1,500.00 on dining at 5x within its cap.",
        "gold_dining gets $1,500.00 on dining at 5x within its cap.",
        ["within its cap"],
        True,
    ),
    (
        "gold_dining would start to pay once dining reaches $900.00.",
        "Adding gold_dining would start to pay once dining reaches $900.00.",
        ["Adding gold_dining"],
        True,
    ),
    # the clause guard and a marker's object
    (
        "Refund is due unless the item is damaged.",
        "No refund is due unless the item is damaged.",
        [],
        False,
    ),
    ("The tenant shall not sublet.", "The tenant shall not sublet without consent.", [], False),
    (
        "The policy covers cargo except cargo.",
        "The policy covers cargo except cargo declared hazardous.",
        [],
        False,
    ),
    ("Refunds are issued.", "Refunds are issued if the item is returned.", [], False),
    ("The device overheats.", "The device rarely overheats.", [], False),
    (
        "The board meets on Friday.",
        "The board meets on Friday; the committee does not meet.",
        [],
        False,
    ),
    (
        "The committee does not meet.",
        "The board meets on Friday; the committee does not meet.",
        [],
        False,
    ),
    ("We don't refund shipping costs.", "We don't refund shipping costs.", [], False),
]


def _v4() -> dict[str, Any]:
    matcher = AliasMatcher(
        {
            "gold_dining": "gold_dining",
            "Gold Dining": "gold_dining",
            "flat_two": "flat_two",
            "dining": "dining",
        }
    )
    cases = []
    inputs = [(c, p, [], False) for c, p in PREDICATE_CASES] + V4_CASES
    for claim, passage, _unused, aliased in inputs:
        m = matcher if aliased else None
        key = sentence_key(claim, m)
        verdicts = [check_free_sentence(key, s) for s in free_sentences(passage, m)]
        best = next((v for v in verdicts if v.supported), verdicts[0] if verdicts else None)
        cases.append(
            {
                "claim": claim,
                "passage": passage,
                "aliases": aliased,
                "v2": is_supported_v2(claim, passage, m),
                "v4": is_supported(claim, passage, m),
                "reason": None if best is None else best.reason,
            }
        )
    return {
        "format": "verity.conformance.predicates_v4/1",
        "aliases": {"gold_dining": ["Gold Dining"], "flat_two": [], "dining": []},
        "extra_markers": sorted(EXTRA_MARKERS),
        "cases": cases,
    }


FILES = {
    "tokenize.json": _tokens,
    "segment.json": _segments,
    "align.json": _align,
    "predicates.json": _predicates,
    "predicates_v4.json": _v4,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="write the conformance vectors")
    parser.add_argument("--check", action="store_true", help="exit 1 if any file would change")
    args = parser.parse_args(argv)
    changed = []
    for name, build in FILES.items():
        text = json.dumps(build(), ensure_ascii=False, indent=1) + "\n"
        path = HERE / name
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            changed.append(name)
            if not args.check:
                path.write_text(text, encoding="utf-8")
    print(("would change: " if args.check else "written: ") + (", ".join(changed) or "nothing"))
    return 1 if args.check and changed else 0


if __name__ == "__main__":
    sys.exit(main())

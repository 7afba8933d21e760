"""The v4 predicate: a claim sentence may differ from its evidence only by declared variation.

There are no free gaps. A claim sentence is supported by an evidence node when its
tokens equal, one for one, the tokens of a sentence the node *declares*:

- the node's statement;
- the statement with any of its ``optional_spans`` cut out whole;
- a rendering of the node's statement template: its canonical form (which is the
  statement) or one of its variants, each a pattern with slots, alternatives
  ``(wins|leads)`` and optional parts ``[, ahead of {runner} at {runner_rate}]``.

Two compositions of declared sentences are accepted, each checked by taking it apart
into declared sentences:

- **aggregation**: ``X wins dining and groceries at 5%`` coordinates cited nodes of one
  template that differ in exactly one of the slots the sentence mentions; it is expanded
  into one sentence per conjunct (``X wins dining at 5%``, ``X wins groceries at 5%``),
  and each expansion must be a declared sentence of its own node;
- **clause joins**: two or more whole declared sentences joined by ``;`` or ``, and``.

Tokens (:func:`sentence_key`). The text is normalized (NFKC, case folding) and scanned
left to right; every character is part of a token or plain whitespace (the reader view,
:mod:`verity.text.reader`, refuses everything else before this runs):

- an entity mention (id or alias, longest first, whole words) is one token ``@id``;
- a number mention is one canonical token (``$6,250`` and ``$6,250.00`` are one value);
  a dash of any kind right before a number is read as its sign;
- a word is a run of letters, digits and combining marks with single interior hyphens or
  apostrophes;
- any other character (punctuation, symbols) is a token of its own.

The universal equivalences (:data:`CONTRACTIONS` and the normalizations above) are the
only differences the tokenizer forgives; each is argued in a comment where it is stated.
Anything whose meaning depends on context belongs in a template's variants.

Free text (:func:`check_free_sentence`, what ``check-answer`` calls) has no declared
variation: an answer sentence must equal a run of whole coordinate clauses of one
passage sentence (split at ``;`` and ``, and``); nothing inside may be deleted, and a
dropped clause may hold no polarity or condition marker (:data:`MARKERS`).

The predicate is split by concern; this module re-exports its public names from their
homes (the code under verity/ imports from the homes themselves):

- :mod:`verity.text.scan`: marker words, the universal equivalences, :func:`sentence_key`;
- :mod:`verity.text.patterns`: template patterns (:func:`parse_pattern`, :class:`Pattern`);
- :mod:`verity.text.declared`: what a node declares (:func:`declare`, :class:`Declared`);
- :mod:`verity.text.support`: the sentence support rule (:func:`support_sentence`);
- :mod:`verity.text.scopes`: the reader's scopes (:func:`read_scopes`);
- :mod:`verity.text.free`: free text, what ``check-answer`` calls (:func:`check_free_sentence`).
"""

from __future__ import annotations

from verity.text.declared import Declared, compile_canonical, declare
from verity.text.free import (
    FREE_PROGRESS,
    FreeReason,
    FreeSentence,
    FreeVerdict,
    check_free_sentence,
    free_sentences,
    is_supported,
)
from verity.text.patterns import Pattern, PatternError, optional_parts, parse_pattern
from verity.text.scan import (
    CONTRACTIONS,
    EXTRA_MARKERS,
    MARKERS,
    TokenSpan,
    cannot_hold,
    sentence_key,
    token_spans,
)
from verity.text.scopes import read_scopes
from verity.text.support import PROGRESS, Reason, SentenceVerdict, likeness, support_sentence

__all__ = [
    "CONTRACTIONS",
    "EXTRA_MARKERS",
    "FREE_PROGRESS",
    "MARKERS",
    "PROGRESS",
    "Declared",
    "FreeReason",
    "FreeSentence",
    "FreeVerdict",
    "Pattern",
    "PatternError",
    "Reason",
    "SentenceVerdict",
    "TokenSpan",
    "cannot_hold",
    "check_free_sentence",
    "compile_canonical",
    "declare",
    "free_sentences",
    "is_supported",
    "likeness",
    "optional_parts",
    "parse_pattern",
    "read_scopes",
    "sentence_key",
    "support_sentence",
    "token_spans",
]

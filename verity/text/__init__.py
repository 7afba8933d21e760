"""Pinned text predicates: normalization, numbers, entity aliases, tokens, sentences, alignment.

The tokenizer's names are re-exported here, where the single module ``verity.text`` had them.
"""

from verity.text.tokens import NUMBER_PATTERN, WORD_PATTERN, char_class, tokenize, tokenize_v1

__all__ = ["NUMBER_PATTERN", "WORD_PATTERN", "char_class", "tokenize", "tokenize_v1"]

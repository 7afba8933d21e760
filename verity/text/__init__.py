"""The pinned text layer: normalization, numbers, entity aliases, tokens, sentences, the v2
alignment and the v4 declared variation that strict and check-answer apply."""

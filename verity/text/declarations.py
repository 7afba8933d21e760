"""Declarations checked at load: template variants, coordinable slots, entity names.

A graph declares what a claim may say instead of a node's statement (a template's
variants), which slots a claim may coordinate (``coordinable``) and the names a reader
meets (display names and aliases). The text check trusts these declarations, so a false
one lets a false claim ship. Each rule below is stated once, as data and a small function
returning what is wrong (``None`` when nothing is); :mod:`verity.core.graph` calls them for
every template and entity of a graph, and the SQL spec calls them when it is loaded, so
that a spec is refused before its query runs.

1. A variant may not add a quantifier, superlative, exclusivity or scope word its
   canonical lacks (:data:`WIDENING`, compared word by word, slot values not read).
2. ``coordinable`` is refused on a template whose statement is a share or a total of one
   whole (:data:`SHARE_WORDS`, :data:`SHARE_PHRASES`, a percentage followed by ``of``).
3. A display name or alias that reads as a quantifier phrase is refused
   (:data:`NAME_WORDS` anywhere in it, :data:`NAME_ALONE` as all of it).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from itertools import pairwise

from verity.text.patterns import Pattern
from verity.text.scan import sentence_key

__all__ = [
    "ALSO_LICENSED_BY",
    "NAME_ALONE",
    "NAME_WORDS",
    "SHARE_PHRASES",
    "SHARE_WORDS",
    "WIDENING",
    "coordinable_message",
    "coordinable_problem",
    "name_problem",
    "percent_of",
    "variant_problem",
    "words_of",
]

# --- 1. variants ------------------------------------------------------------------------------
#
# A variant is a sentence the template's author declares to say what the canonical says. The
# words that most often make it say more are those that widen the set a statement is about
# or rank its subject above a set: "X wins dining" (among the cards held) becomes "X is the
# best card for dining" (among all cards); "a year" (a rate) becomes "every year" (a claim
# about years the model never saw); "worth $50" becomes "worth a total of $50" (a sum).
#
# The words are grouped in classes by what they add to a statement. A variant may use a word
# of a class only when its canonical holds a word of that class: a canonical that is itself
# superlative ("The optimal profit", "the best plan") may word its superlative otherwise
# ("The maximum profit", "The optimal plan"); one that is not ("X wins dining") may not
# gain one. A word in two classes is licensed by either ("maximum" is a superlative, and
# also a limit: "its maximum of 100 hours" says what "its upper limit of 100 hours" says).
# The classes are coarse on purpose: a widening is a new kind of claim, which is what a
# reader takes away; a swap within a kind that turns the claim around ("highest" for
# "lowest") is a different falsehood, which the attack fixtures of each backend hold.
#
# Every word of a hyphenated or possessive compound counts ("top-rated", "all-time",
# "best-in-class", "everyone's"): a compound keeps the reading of its parts.
#
# Left out, argued: plain negation ("not", "without", "cannot") is the polarity guard's (a
# claim keeps at least the markers of what it states); comparatives ("more", "higher",
# "better") name their comparison ("more than Y"), and "than any/all/every" is caught by
# the quantifier; verbs that rank within the comparison the canonical states ("wins",
# "leads", "tops") are the canonical's own relation; conditions ("if", "once", "when") are
# scope slots (a slot kind), not free words.
WIDENING: Mapping[str, frozenset[str]] = {
    # above or below every other member of a set
    "superlative": frozenset({
        "best", "worst", "top", "bottom", "leading", "leader", "optimal", "optimum", "ideal",
        "greatest", "highest", "lowest", "most", "least", "largest", "smallest", "biggest",
        "fewest", "maximum", "minimum", "max", "min", "finest", "strongest", "weakest",
        "cheapest", "costliest", "richest", "fastest", "slowest", "earliest", "latest",
        "newest", "oldest", "longest", "shortest", "first", "last", "premier", "foremost",
        "unmatched", "unrivaled", "unrivalled", "unbeaten", "unbeatable", "peerless", "record",
    }),
    # nothing else is (or does) so
    "exclusivity": frozenset({
        "only", "sole", "solely", "exclusive", "exclusively", "alone", "just", "unique",
        "uniquely", "merely", "purely",
    }),
    # every member of a set, or the set as one
    "universal": frozenset({
        "all", "every", "each", "any", "both", "either", "whole", "wholly", "entire",
        "entirely", "everything", "everyone", "everybody", "everywhere", "anything", "anyone",
        "anybody", "anywhere", "whatever", "whichever", "whenever", "wherever", "completely",
        "fully", "universally",
    }),
    # a sum over members
    "total": frozenset({
        "total", "totals", "totaled", "totalled", "totaling", "totalling", "combined",
        "altogether", "together", "overall", "sum", "sums", "summed", "aggregate",
        "aggregated", "cumulative", "cumulatively",
    }),
    # the members not named: a complement of the set the sentence names
    "complement": frozenset({"other", "others", "else", "rest", "remaining", "remainder"}),
    # none of a set ("-free" as in "fee-free" is "with no fee")
    "negative": frozenset({
        "no", "none", "nothing", "nobody", "neither", "nowhere", "never", "free",
    }),
    # at every time
    "always": frozenset({
        "always", "never", "ever", "forever", "constantly", "consistently", "invariably",
        "permanently", "continually", "continuously", "perpetually",
    }),
    # a share of the times or members
    "frequency": frozenset({
        "usually", "often", "mostly", "generally", "typically", "sometimes", "rarely",
        "seldom", "frequently", "occasionally", "normally", "many", "several", "few", "some",
        "majority", "minority", "half",
    }),
    # a multiple of another value ("double the 3%", "twice Y"): a relation the canonical never
    # states, true of the instance it was read from at most
    "ratio": frozenset({
        "double", "doubled", "doubles", "doubling", "twice", "triple", "tripled", "triples",
        "tripling", "treble", "trebled", "quadruple", "quadrupled", "halved", "halves",
        "halving", "times", "multiple", "multiples",
    }),
    # a limit stated as a value ("its maximum of 100 hours"): licenses maximum and minimum
    "limit": frozenset({
        "limit", "limits", "bound", "bounds", "cap", "caps", "ceiling", "floor", "maximum",
        "minimum", "max", "min",
    }),
}  # fmt: skip


#: Words of a canonical that license a class besides its own words: "across all islands" or
#: "of all regions" names a whole set, which is what "in total" sums over ("The study
#: sampled 344 penguins across all islands" / "In total, the study sampled 344 penguins").
#: "each" and "every" are distributive and license no sum ("Each point is worth 1 cent"
#: is no "points are worth 1 cent in total").
ALSO_LICENSED_BY: Mapping[str, frozenset[str]] = {"total": frozenset({"all"})}


def words_of(texts: Iterable[str]) -> frozenset[str]:
    """The words of ``texts`` as the text check reads them (case folded), each part of a
    hyphenated or possessive compound also as a word of its own; numbers and punctuation
    are not words."""
    out: set[str] = set()
    for text in texts:
        for token in sentence_key(text):
            if token[:1].isalpha() or token[:1].isdigit():
                out.add(token)
                out.update(p for p in token.replace("'", "-").split("-") if p)
    return frozenset(out)


#: Classes read from a word's ending, for the words no list holds: an "-est" adjective is a
#: superlative ("softest", "priciest", "slimmest") and an "-fold" word a multiple ("twofold").
#: A word of the ending that is no superlative (:data:`NOT_BY_ENDING`) keeps no class; one
#: missing there is refused in a variant its canonical lacks, which costs a variant, never a
#: false claim.
BY_ENDING: Mapping[str, tuple[str, int]] = {"est": ("superlative", 5), "fold": ("ratio", 6)}
NOT_BY_ENDING: frozenset[str] = frozenset({
    "interest", "interests", "harvest", "request", "requests", "suggest", "suggests",
    "honest", "modest", "forest", "invest", "invests", "manifest", "contest", "protest",
    "digest", "arrest", "conquest", "inquest", "midwest", "northwest", "southwest", "guest",
    "behest", "unrest", "pretest", "attest", "detest", "infest", "divest", "ingest", "quest",
    "crest", "chest", "nest", "jest", "vest", "test", "rest", "west", "zest", "pest",
    "manifold", "scaffold", "unfold", "enfold", "blindfold", "centerfold", "billfold",
})  # fmt: skip


def _classes(word: str) -> frozenset[str]:
    named = frozenset(name for name, words in WIDENING.items() if word in words)
    if named or word in NOT_BY_ENDING:
        return named
    return frozenset(
        kind
        for ending, (kind, shortest) in BY_ENDING.items()
        if word.endswith(ending) and len(word) >= shortest
    )


@cache
def variant_problem(canonical: Pattern, variant: Pattern) -> str | None:
    """What is wrong with ``variant`` of a template whose canonical is ``canonical``: the
    first word (in sorted order) of a class of :data:`WIDENING` that the canonical holds no
    word of, or None. Every literal word of every alternative counts; slot values do not."""
    words = words_of(canonical.literals())
    held = frozenset().union(*(_classes(w) for w in words))
    held |= {kind for kind, by in ALSO_LICENSED_BY.items() if words & by}
    for word in sorted(words_of(variant.literals())):
        classes = _classes(word)
        if classes and not classes & held:
            kind = sorted(classes)[0]
            return (
                f"the variant {variant.source[:80]!r} adds the {kind} word {word!r}, which "
                "its canonical pattern lacks (a variant may not say more than the canonical: "
                "drop the word or the variant)"
            )
    return None


# --- 2. coordinable --------------------------------------------------------------------------
#
# Coordination reads "A and B <predicate>" as "A <predicate>" and "B <predicate>". That holds
# for a predicate true of each member apart ("wins dining", "is worth 1 cent"), never for a
# share or a total of one whole: "A and B accounted for 18.1% of total revenue" reads as
# their joint share (36.2% if each holds 18.1%), "A and B earned $5,000 in total" as a sum.
# The rule is decidable from the template alone, so it can be tested word by word: the
# canonical's literal words hold a word of SHARE_WORDS or a phrase of SHARE_PHRASES, or a
# node states a percentage followed by "of" ("18.1% of", "5 per cent of": a part of a whole).
SHARE_WORDS: frozenset[str] = WIDENING["total"] | frozenset({
    "share", "shares", "percentage", "proportion", "fraction", "portion", "majority",
    "minority", "half", "whole", "entire", "accounted", "accounts", "comprised", "comprises",
    "constituted", "constitutes",
})  # fmt: skip
SHARE_PHRASES: tuple[tuple[str, ...], ...] = (
    ("of", "all"),
    ("in", "all"),
    ("percent", "of"),
    ("per", "cent", "of"),
    ("out", "of"),
    ("part", "of"),
)


def percent_of(tokens: Sequence[str]) -> bool:
    """True when the tokens of a statement hold a percentage followed by ``of`` (``18.1%
    of``, ``18.1 percent of``, ``5 per cent of``)."""
    key = tuple(tokens)
    if any(a.startswith("<") and a.endswith("%>") and b == "of" for a, b in pairwise(key)):
        return True
    return any(_holds(key, p) for p in (("percent", "of"), ("per", "cent", "of")))


def _holds(key: tuple[str, ...], phrase: tuple[str, ...]) -> bool:
    n = len(phrase)
    return any(key[i : i + n] == phrase for i in range(len(key) - n + 1))


@cache
def coordinable_problem(canonical: Pattern, coordinable: tuple[str, ...]) -> str | None:
    """What is wrong with making ``coordinable`` slots of a template whose canonical is
    ``canonical`` coordinable: a share or total word or phrase of its literal text, or
    None. (A node stating a percentage of a whole is checked with :func:`percent_of`.)"""
    if not coordinable:
        return None
    found = sorted(words_of(canonical.literals()) & SHARE_WORDS)
    if not found:
        keys = [sentence_key(text) for text in canonical.literals()]
        found = [" ".join(p) for p in SHARE_PHRASES if any(_holds(k, p) for k in keys)]
    if not found:
        return None
    return coordinable_message(coordinable[0], repr(found[0]))


def coordinable_message(slot: str, why: str) -> str:
    """Why a coordinable slot is refused on a share or total template."""
    return (
        f"makes {slot!r} coordinable, but its statement is a share or a total of one whole "
        f"({why}): 'A and B' would read as their sum; remove {slot!r} from coordinable"
    )


# --- 3. names --------------------------------------------------------------------------------
#
# A display name or alias is read as English by a reader, whatever it names. Some words take
# their set from the sentence around them: after "X wins dining", a category named
# "everything else" reads as every category but dining, "the rest" or "all other" as what
# the claim has not named, "None" as no member. A name holding one of NAME_WORDS is refused
# (complements, negative quantifiers, quantifier pronouns). A universal determiner before a
# noun fixes its own set ("all crates shipped", "All Regions": the crates, the regions),
# so it is refused only in a name made of nothing else (NAME_ALONE: "All", "any", "each").
# "total", "overall", "combined" name the sum they label and stay allowed ("total" is a
# common name of a sum constraint). The graph's author renames ("general purchases").
NAME_WORDS: frozenset[str] = WIDENING["complement"] | frozenset({
    "misc", "miscellaneous", "no", "none", "nothing", "nobody", "neither", "everything",
    "everyone", "everybody", "everywhere", "anything", "anyone", "anybody", "anywhere",
    "whatever", "whichever", "whenever", "wherever",
})  # fmt: skip
#: Words refused in a name made of them alone ("the" and "of" join them: "the whole").
NAME_ALONE: frozenset[str] = frozenset({
    "all", "every", "each", "any", "both", "either", "whole", "entire",
})  # fmt: skip
_JOINING = frozenset({"the", "of"})


def name_problem(name: str) -> str | None:
    """What is wrong with ``name`` as an entity's display name or alias: the words of it
    that read as a quantifier phrase, or None."""
    words = words_of([name])
    found = sorted(words & NAME_WORDS)
    if not found and words - _JOINING and words <= NAME_ALONE | _JOINING:
        found = sorted(words - _JOINING)
    if not found:
        return None
    listed = ", ".join(repr(w) for w in found)
    return (
        f"reads as a quantifier phrase ({listed}); give the entity a name that does not "
        "(in a graph, its name and aliases; from SQL, in the query, e.g. CASE WHEN ... "
        "THEN 'general purchases' ... END)"
    )

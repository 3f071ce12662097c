"""Focus a passage on the question: keep the run of whole sentences that shares the most words with it.

A retrieved chunk is a few hundred words; the answer to a question usually sits in one or two of its
sentences, and those share words with the question. Sending only that stretch (within a token budget)
makes the prompt several times shorter, so the first token comes sooner, and gives a small model less to
get lost in. Pure functions; bench/qa.py measured the budget.

Every script: words are compared as the keyword index reads them (ICU words and Han bigrams for Thai, Chinese
and Japanese, Arabic normalised and stemmed), sentences end where sentence_split says (a space between Thai
sentences, 。 ؟), and the budget counts content, not tokens: a Thai word costs a byte-level tokenizer several
times the tokens of an English one, so `script_cost` widens the budget for such text (bench/retrieval_languages:
with 96 tokens a Thai window held a few words and the answer reached the model for 0.16 of XQuAD's questions).
Latin-script text is focused as before (first five letters of each word, its own sentence rule).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

import regex

from desktop_app.core.chat.answer.gate.attribution import sentences
from desktop_app.core.chat.answer.quote.sentence_split import sentence_spans
from desktop_app.core.chat.answer.script_cost import cost_scale
from desktop_app.core.text.fields import units as index_units
from desktop_app.core.text.normalize import normalize
from desktop_app.core.text.segment import SEA
from desktop_app.core.text.word_units import units as word_units

CountTokens = Callable[[str], int]
ELLIPSIS = "…"
AFTER_SHARE = 0.5  # of a window's room around the question's words, the part after them (dev: 0.35 to 0.85 alike)
STEM = 5  # words compared by their first letters, so "invented" meets "invention" and "Normans" meets "Norman"
_WORD = re.compile(r"\w+")
_PHRASE = re.compile(r"\S+")
_SEA = regex.compile(f"[{SEA}]")
NON_LATIN = regex.compile(r"[^\P{L}\p{Latin}]")  # a letter of another script than Latin
STOPWORDS = frozenset(
    [
        "a",
        "about",
        "after",
        "all",
        "also",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "been",
        "before",
        "being",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "during",
        "each",
        "for",
        "from",
        "had",
        "has",
        "have",
        "he",
        "her",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "made",
        "make",
        "many",
        "may",
        "more",
        "most",
        "much",
        "must",
        "no",
        "not",
        "of",
        "on",
        "one",
        "or",
        "other",
        "our",
        "out",
        "over",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "to",
        "under",
        "up",
        "upon",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "whose",
        "why",
        "will",
        "with",
        "would",
        "you",
    ]
)


def key_words(text: str) -> set[str]:
    """The words of `text` that carry meaning: Latin-script words lower case, stop words dropped, long words cut
    to a stem; words of other scripts as the keyword index holds them (folded, stemmed, Han/Kana bigrams)."""
    out = {w[:STEM] for w in _WORD.findall(text.lower()) if not NON_LATIN.search(w) and w not in STOPWORDS}
    if NON_LATIN.search(text):
        out |= {token for _, token, _, _ in index_units(normalize(text).text) if NON_LATIN.search(token)}
    return out



def overlap(sentence: str, wanted: set[str]) -> int:
    """How many of the question's key words the sentence contains."""
    return len(key_words(sentence) & wanted)


def sentence_bounds(text: str) -> list[tuple[int, int]]:
    """Sentence spans: the English rule for Latin-script text (what focus was tuned with), sentence_split's for others
    (Thai sentences end at a space, Chinese at 。, Arabic at ؟ — none of which the English rule sees). Where Thai,
    Lao, Khmer or Myanmar is written, every space-separated phrase is a unit of its own: a space there ends a
    sentence or a clause, and a sentence the rule missed ("... ในปี 1895 เทสลา ...") is still cut."""
    if not NON_LATIN.search(text):
        return sentences(text)
    out: list[tuple[int, int]] = []
    for a, b in sentence_spans(text):
        if _SEA.search(text, a, b) is None:
            out.append((a, b))
            continue
        out += [(a + m.start(), a + m.end()) for m in _PHRASE.finditer(text[a:b])]
    return out


def focus(question: str, text: str, max_tokens: int, count_tokens: CountTokens) -> str:
    """The best-matching sentence of `text` and as many neighbours as fit in `max_tokens`, in order.

    The whole text when it fits. `max_tokens` is widened by `cost_scale` for text that costs more tokens per
    word than English. Neighbours are added one at a time, the one sharing more of the question's words first
    (ties: the following sentence, which tends to continue the statement). A cut is marked with an ellipsis at
    that end. A first sentence longer than the budget is cut after its last whole word that fits.
    """
    if max_tokens <= 0:
        return text
    total = count_tokens(text)
    max_tokens = int(max_tokens * cost_scale(text, total))
    if total <= max_tokens:
        return text
    spans = sentence_bounds(text)
    if not spans:
        return text
    keys = [key_words(text[a:b]) for a, b in spans]
    weight = _weights(key_words(question), keys)
    if NON_LATIN.search(text):
        lo, hi = _covering_window(text, spans, keys, weight, max_tokens, count_tokens)
    else:
        lo, hi = _grown_window(text, spans, keys, weight, max_tokens, count_tokens)
    window = _marked(text, spans[lo][0], spans[hi][1])
    return window if count_tokens(window) <= max_tokens else _cut_words(window, max_tokens, count_tokens)


def _grown_window(text: str, spans: list[tuple[int, int]], keys: list[set[str]], weight: dict[str, float],
                  max_tokens: int, count_tokens: CountTokens) -> tuple[int, int]:
    """English: the best sentence, then its neighbours one at a time while they fit (first and last index)."""
    scores = [sum(weight.get(w, 0.0) for w in k) for k in keys]
    best = max(range(len(spans)), key=lambda i: (scores[i], -i))
    lo = hi = best
    while True:
        options = [i for i in (hi + 1, lo - 1) if 0 <= i < len(spans)]
        if not options:
            break
        nxt = max(options, key=lambda i: (scores[i], i > hi))
        a, b = spans[min(lo, nxt)][0], spans[max(hi, nxt)][1]
        if count_tokens(_marked(text, a, b)) > max_tokens:
            break
        lo, hi = min(lo, nxt), max(hi, nxt)
    return lo, hi


def _covering_window(text: str, spans: list[tuple[int, int]], keys: list[set[str]], weight: dict[str, float],
                     max_tokens: int, count_tokens: CountTokens) -> tuple[int, int]:
    """Other scripts: the run of sentences that fits and covers the most of the question's words, each counted
    once by its weight (ties: the earliest), cut down to the sentences that hold those words and grown again
    around them (first and last index). A Thai question's words are spread over the short phrases of its answer,
    so the best single phrase is often not where the answer is (eight Thai XQuAD articles,
    tests/integration/core/embed/test_thai_retrieval.py: 41 of 51 windows held the paragraph asked about when
    grown from the best phrase); and a run filled forward from its first match ended at its last one, just before
    the answer that follows the question's words."""
    costs = [count_tokens(text[a:b]) + 1 for a, b in spans]  # +1: the space or mark between two sentences
    best, best_score = (0, 0), -1.0
    for lo in range(len(spans)):
        if lo and not any(weight.get(w, 0.0) > 0 for w in keys[lo]):
            continue  # a window starts at a sentence holding some of the question's words (or at the first)
        covered: set[str] = set()
        used, hi = costs[lo], lo
        while hi + 1 < len(spans) and used + costs[hi + 1] <= max_tokens:
            hi += 1
            used += costs[hi]
        for i in range(lo, hi + 1):
            covered |= keys[i]
        score = sum(weight.get(w, 0.0) for w in covered)
        if score > best_score:
            best, best_score = (lo, hi), score
    return _spread(_core(best, keys, weight), costs, max_tokens)


def _core(window: tuple[int, int], keys: list[set[str]], weight: dict[str, float]) -> tuple[int, int]:
    """`window` without the sentences at either end that add none of the question's words to the rest of it."""
    lo, hi = window

    def found(a: int, b: int) -> set[str]:
        return {w for i in range(a, b + 1) for w in keys[i] if weight.get(w, 0.0) > 0}

    whole = found(lo, hi)
    while lo < hi and found(lo + 1, hi) == whole:
        lo += 1
    while lo < hi and found(lo, hi - 1) == whole:
        hi -= 1
    return lo, hi


def _spread(core: tuple[int, int], costs: list[int], max_tokens: int) -> tuple[int, int]:
    """`core` grown by its neighbours while they fit, AFTER_SHARE of the room after it (the answer tends to follow
    the words of the question) and the rest before it; a side with nothing left to add leaves its room to the
    other."""
    lo, hi = core
    used = sum(costs[lo:hi + 1])
    after = before = 0
    while True:
        options = [i for i in (hi + 1, lo - 1) if 0 <= i < len(costs) and used + costs[i] <= max_tokens]
        if not options:
            return lo, hi
        if len(options) == 2:  # the side that is further below its share of the room grows
            options.sort(key=lambda i: (after / AFTER_SHARE) if i > hi else (before / (1 - AFTER_SHARE)))
        i = options[0]
        used += costs[i]
        if i > hi:
            hi, after = i, after + costs[i]
        else:
            lo, before = i, before + costs[i]


def _weights(wanted: set[str], keys: list[set[str]]) -> dict[str, float]:
    """What each of the question's key words counts for in a sentence: 1 for a Latin-script word (as focus was
    tuned on English); for other scripts, which have no stop list here (Thai ที่, การ, ใน; Chinese 的), the
    word's rarity among the passage's sentences, 1 for a word in one sentence down to 0 for one in every one."""
    n = len(keys)
    out: dict[str, float] = {}
    for w in wanted:
        if not NON_LATIN.search(w):
            out[w] = 1.0
            continue
        df = sum(w in k for k in keys)
        if df:
            out[w] = math.log((n + 1) / df) / math.log(n + 1)
    return out


def _marked(text: str, a: int, b: int) -> str:
    body = text[a:b].strip()
    return (ELLIPSIS + " " if text[:a].strip() else "") + body + (" " + ELLIPSIS if text[b:].strip() else "")


def _cut_words(text: str, max_tokens: int, count_tokens: CountTokens) -> str:
    """The longest start of `text` ending at a word end (of any script) that fits with an ellipsis."""
    ends = [e for _, e in word_units(text)]
    lo, hi = 0, len(ends)  # binary search on the number of words kept: O(log n) tokenizer calls
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if count_tokens(text[:ends[mid - 1]] + " " + ELLIPSIS) <= max_tokens:
            lo = mid
        else:
            hi = mid - 1
    return text[:ends[lo - 1]] + " " + ELLIPSIS if lo else ""

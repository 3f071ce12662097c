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

import re
from collections.abc import Callable

import regex

from desktop_app.core.chat.attribution import sentences
from desktop_app.core.chat.script_cost import cost_scale
from desktop_app.core.chat.sentence_split import sentence_spans
from desktop_app.core.text.fields import units as index_units
from desktop_app.core.text.normalize import normalize
from desktop_app.core.text.segment import SEA
from desktop_app.core.text.word_units import units as word_units

CountTokens = Callable[[str], int]
ELLIPSIS = "…"
STEM = 5  # words compared by their first letters, so "invented" meets "invention" and "Normans" meets "Norman"
COMMON_SHARE = 0.5  # a non-English word in more than this share of a passage's sentences tells them apart poorly
_WORD = re.compile(r"\w+")
_PHRASE = re.compile(r"\S+")
_SEA = regex.compile(f"[{SEA}]")
_NON_LATIN = regex.compile(r"[^\P{L}\p{Latin}]")  # a letter of another script than Latin
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
    out = {w[:STEM] for w in _WORD.findall(text.lower()) if not _NON_LATIN.search(w) and w not in STOPWORDS}
    if _NON_LATIN.search(text):
        out |= {token for _, token, _, _ in index_units(normalize(text).text) if _NON_LATIN.search(token)}
    return out


def overlap(sentence: str, wanted: set[str]) -> int:
    """How many of the question's key words the sentence contains."""
    return len(key_words(sentence) & wanted)


def sentence_bounds(text: str) -> list[tuple[int, int]]:
    """Sentence spans: the English rule for Latin-script text (what focus was tuned with), sentence_split's for others
    (Thai sentences end at a space, Chinese at 。, Arabic at ؟ — none of which the English rule sees). Where Thai,
    Lao, Khmer or Myanmar is written, every space-separated phrase is a unit of its own: a space there ends a
    sentence or a clause, and a sentence the rule missed ("... ในปี 1895 เทสลา ...") is still cut."""
    if not _NON_LATIN.search(text):
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
    wanted = key_words(question) - _common(keys)
    scores = [len(k & wanted) for k in keys]
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
    window = _marked(text, spans[lo][0], spans[hi][1])
    return window if count_tokens(window) <= max_tokens else _cut_words(window, max_tokens, count_tokens)


def _common(keys: list[set[str]]) -> set[str]:
    """Key words of scripts other than Latin found in more than COMMON_SHARE of the sentences (Thai and Chinese
    particles such as ที่, การ, 的 have no stop list here): they would favour long sentences, not the answer."""
    if len(keys) < 4:
        return set()
    counts: dict[str, int] = {}
    for k in keys:
        for w in k:
            if _NON_LATIN.search(w):
                counts[w] = counts.get(w, 0) + 1
    return {w for w, n in counts.items() if n > COMMON_SHARE * len(keys)}


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

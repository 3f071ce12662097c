"""The quoted answer: the sentence of the passages sent that answers the question, verbatim, with where it is.

A `QuoteSelector` scores every sentence of the passages (sentence_split.py, any script) against the question and
returns the best as a `Quote`: `text` is always `passage.content[start:end]`, so it is text the library holds,
never something a model wrote. `EmbedderQuoteSelector` is the fallback that always works: the library's own
embedder (question vs sentence cosine) mixed with the share of the question's terms, weighted by how rare they
are among the candidate sentences, that the sentence contains (terms from the text pipeline, so Thai, Chinese
and Arabic work the same). A better model (an extractive-QA or cross-encoder reader) plugs in behind the same
protocol; abstention reads `Quote.score` on the selector's own scale (`QuoteSelector.floor`).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

import numpy as np
import regex

from desktop_app.core.chat.answer.context import Passage, place_text, to_passage
from desktop_app.core.chat.answer.quote.answer_kind import answer_kind, offers
from desktop_app.core.chat.answer.quote.line_units import is_heading
from desktop_app.core.chat.answer.quote.sentence_split import MAX_SENTENCE, sentence_spans
from desktop_app.core.log import get_logger
from desktop_app.core.text.arabic import clitic_key, is_arabic
from desktop_app.core.text.fields import analyze
from desktop_app.core.text.query import build_query
from desktop_app.core.types import RetrievalResult

log = get_logger("chat")

Embed = Callable[[Sequence[str]], np.ndarray]
EmbedQuery = Callable[[str], np.ndarray]
ELLIPSIS = "…"  # how focus.py and context.py mark where they cut a passage
MAX_CANDIDATES = 200  # sentences scored by keywords per question (five whole chunks hold ~90)
SHORTLIST = 10  # of those, the best by keywords and rank that the embedder reads (~0.05 s each on a busy CPU)
# The unit beside the chosen one is quoted with it when it holds at least this share (rarity-weighted) of the
# question's terms that the chosen one lacks, and both together are at most SPREAD_MAX characters (with_spread).
# Chosen on the XQuAD dev articles (bench/qa_xquad_replay.py replay FILE --spread ...; 177 questions per language):
# 0.05 / 0.1 / 0.15 / 0.2 without a length bound: th +14 / +13 / +8 / +5, zh +8 / +5 / +3 / +1, ar +8 / +7 / +3 / +3,
# none lost; at 0.1, 450 characters keep th +10, zh +5, ar +6 with the longest tenth of Thai quotes at ~390
# characters instead of ~510.
SPREAD = 0.1
SPREAD_MAX = 450
# Scripts whose units the spread rule joins: a Thai space ends a clause as well as a sentence, and a Chinese or
# Arabic writer runs one statement over two sentences. English (+3 of 177 on the same articles) is left as it is:
# the abstention gate's weights were fitted on English quotes as they are chosen now (gate/abstain.py).
_SPREAD_SCRIPTS = regex.compile(r"[\p{Thai}\p{Han}\p{Arabic}]")
# A short Chinese or Arabic unit holds little beside the question's own words ("《神秘博士》在舞台上出现过很多次。"
# for "which Doctor Who play had no Doctor in it?"), yet its embedding sits close to the question's: when choosing
# (never in the score reported), a unit of these scripts shorter than its SHORT_UNIT characters counts up to
# SHORT_PENALTY less, in proportion to how much shorter it is. Thai units are >= MIN_SEA_UNIT already; English is
# left as it is (the gate). Chosen on the XQuAD dev articles (177 questions per language, the selector replayed):
# Chinese 45 characters at 0.08 / 0.1 / 0.15: +3 / +3 / +5-2 (40: +2-1, 55: +4-1); Arabic 60 at 0.05 / 0.1: +2 / +2,
# none lost (45 at 0.1: +2). Shipped: quote holds gold zh 0.814 -> 0.831, ar 0.802 -> 0.814, th and en unchanged.
# Question stop words, a restatement penalty by terms, a novelty count and a bonus for the question's terms near an
# answer of the kind asked for moved less or lost questions (docs/benchmarks.md, #45).
SHORT_PENALTY = 0.1
SHORT_UNIT = ((regex.compile(r"\p{Han}"), 45), (regex.compile(r"\p{Arabic}"), 60))
# A sentence longer than MAX_SENTENCE is cut into units at a comma or a space (sentence_split._cap): a chosen piece
# is quoted as its whole sentence when that holds at most WHOLE_MAX characters (a 900-character Arabic sentence with
# no mark before its end was quoted cut after "وعدد من", mid-sentence); a longer run (a page without a full stop)
# keeps the piece.
WHOLE_MAX = 2 * MAX_SENTENCE


@dataclass(frozen=True)
class Quote:
    """A verbatim stretch of passage `n`: `text == passage.content[start:end]`; `score` on the selector's scale."""

    text: str
    n: int
    start: int
    end: int
    score: float
    source: str = ""
    page: int | None = None
    place: str = ""
    selector: str = ""
    support: float = 1.0  # rarity-weighted share of the question's terms found in any passage sent
    margin: float = 0.0  # the score above the second-best sentence's (0 when there was no other)
    confidence: float | None = None  # the abstention gate's probability that it answers (abstain.py); None: no gate

    @property
    def where(self) -> str:
        """The place in its file, or "p. N", or ""."""
        return place_text(self.place, self.page)

    def cited(self) -> str:
        """The quote as an answer: its text (one line) and its citation marker."""
        return f"{' '.join(self.text.split())} [{self.n}]"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (stored with the answer, printed by `trove ask --json`)."""
        return {"text": self.text, "n": self.n, "start": self.start, "end": self.end, "score": self.score,
                "source": self.source, "page": self.page, "place": self.place, "selector": self.selector,
                "support": self.support, "margin": self.margin,
                "confidence": self.confidence}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Quote:
        """The inverse of to_dict."""
        return cls(text=d["text"], n=int(d["n"]), start=int(d["start"]), end=int(d["end"]),
                   score=float(d.get("score", 0.0)), source=d.get("source", ""), page=d.get("page"),
                   place=d.get("place", ""), selector=d.get("selector", ""), support=float(d.get("support", 1.0)),
                   margin=float(d.get("margin", 0.0)), confidence=d.get("confidence"))


@dataclass(frozen=True)
class Candidate:
    """One sentence of one passage."""

    passage: Passage
    rank: int  # the passage's position in the order sent (0 = first)
    start: int
    end: int

    @property
    def text(self) -> str:
        return self.passage.content[self.start:self.end]


class QuoteSelector(Protocol):
    """Picks the sentence that answers a question from the passages sent (None when there is no sentence)."""

    name: str
    floor: float  # below this score the selector says no passage answers (chosen on the dev questions)
    min_support: float  # below this share of the question's terms in the passages, no passage answers either

    def select(self, question: str, passages: Sequence[Passage]) -> Quote | None: ...


def cut_edges(content: str) -> tuple[bool, bool]:
    """Whether a passage was cut short at its start and at its end: a window focused on part of a chunk, or a
    passage cut to the prompt's budget, is marked there with an ellipsis (focus.py, context.py)."""
    body = content.strip()
    return body.startswith(ELLIPSIS), body.endswith(ELLIPSIS)


def candidates(passages: Sequence[Passage], limit: int = MAX_CANDIDATES) -> list[Candidate]:
    """Every unit (sentence, table row, list item, or a heading with the unit after it) of every passage with a word
    in it, passages in the order sent, at most `limit`. A unit at an edge where the passage was cut is not whole and
    is left out (the chunks themselves reach whole sentences: whole_units.py)."""
    out: list[Candidate] = []
    for rank, p in enumerate(passages):
        spans = sentence_spans(p.content)
        head_cut, tail_cut = cut_edges(p.content)
        for i, (start, end) in enumerate(spans):
            if (i == 0 and head_cut) or (i == len(spans) - 1 and tail_cut):
                continue
            if i + 1 < len(spans) and is_heading(p.content[start:end]):
                if i + 1 == len(spans) - 1 and tail_cut:
                    continue  # a heading alone answers nothing, and the unit after it was cut
                end = spans[i + 1][1]  # a heading is quoted with its line: alone it answers nothing
            if any(ch.isalnum() for ch in p.content[start:end]):
                out.append(Candidate(p, rank, start, end))
                if len(out) >= limit:
                    return out
    return out


def terms(text: str) -> set[str]:
    """The text pipeline's tokens of `text` (stems, words and CJK bigrams), as one set."""
    return {t for tokens in analyze(text).values() for t in tokens}


def question_terms(question: str) -> set[str]:
    """The question's search terms: stop words left out, as search leaves them out."""
    return {t.token for t in build_query(question, prefix_last=False).terms}


def matched(wanted: set[str], have: set[str], min_len: int = 4) -> set[str]:
    """The wanted terms `have` holds, exactly or (terms of `min_len`+) as a prefix either way: Porter stems
    "focuses" to "focus" but "Focus" to "focu". Arabic stems also match by their clitic keys (arabic.clitic_key:
    "لأطروحة" for a thesis and "أطروحته" his thesis are one word): on the XQuAD dev articles' 177 Arabic questions
    the quote held the gold answer 0.746 of the time with it, 0.723 without (the selector replayed over the passages
    chat found for them)."""
    out = wanted & have
    long = [h for h in have if len(h) >= min_len]
    for t in wanted - out:
        if len(t) >= min_len and any(h.startswith(t) or t.startswith(h) for h in long):
            out.add(t)
    arabic = [t for t in wanted - out if is_arabic(t)]
    if arabic:
        keys = {clitic_key(h) for h in have if is_arabic(h)}
        long_keys = [k for k in keys if len(k) >= min_len]
        for t in arabic:
            k = clitic_key(t)
            if k in keys or (len(k) >= min_len and any(h.startswith(k) or k.startswith(h) for h in long_keys)):
                out.add(t)
    return out


@dataclass(frozen=True)
class Matches:
    """The question's terms each text holds, and each term's weight: rarer among the texts, heavier (idf)."""

    wanted: frozenset[str]
    found: tuple[frozenset[str], ...]
    idf: dict[str, float]

    def share(self, held: set[str] | frozenset[str]) -> float:
        """The weighted share of the question's terms in `held` (0..1)."""
        total = sum(self.idf.values())
        return sum(self.idf[t] for t in held) / total if total else 0.0


def term_matches(question: str, texts: Sequence[str]) -> Matches:
    """The question's search terms found in each text, weighted by their rarity among `texts`."""
    wanted = question_terms(question)
    found = tuple(frozenset(matched(wanted, terms(t))) if wanted else frozenset() for t in texts)
    df = Counter(t for f in found for t in f)
    idf = {t: math.log(1 + (len(texts) + 1) / (df[t] + 0.5)) for t in wanted}
    return Matches(frozenset(wanted), found, idf)


def shares(matches: Matches, among: Sequence[str] = ()) -> tuple[list[float], float]:
    """keyword_scores from the matches already found."""
    if not matches.wanted or not matches.found:
        return [0.0] * len(matches.found), 1.0
    wanted = set(matches.wanted)
    anywhere = set().union(*(matched(wanted, terms(t)) for t in among)) if among else wanted
    return [matches.share(f) for f in matches.found], matches.share(anywhere)


def keyword_scores(question: str, texts: Sequence[str], among: Sequence[str] = ()) -> tuple[list[float], float]:
    """Per text, the rarity-weighted share of the question's terms it contains (0..1; idf over `texts`); and the
    share found in any of `among` (the whole passages): SQuAD 2.0's unanswerable questions mostly carry a term
    (a swapped name or date) that no passage holds."""
    return shares(term_matches(question, texts), among)


def to_quote(c: Candidate, score: float, selector: str) -> Quote:
    """The Quote for a candidate sentence."""
    p = c.passage
    return Quote(text=c.text, n=p.n, start=c.start, end=c.end, score=float(score), source=p.source, page=p.page,
                 place=p.place, selector=selector)


class EmbedderQuoteSelector:
    """Question vs sentence cosine from the library's embedder, plus keyword overlap and the passage's rank.

    `embed_query`/`embed` may be None (no embedder could load): keywords and rank alone then choose. Weights
    were picked on the dev questions (bench/data/qa/questions.jsonl), not on any held-out split.
    """

    name = "embedder"

    def __init__(self, embed: Embed | None, embed_query: EmbedQuery | None, *, semantic: float = 0.5,
                 rank_bonus: float = 0.05, floor: float = 0.0, min_support: float = 0.0,
                 kind_bonus: float = 0.0) -> None:
        self._embed, self._embed_query = embed, embed_query
        self.semantic = semantic if embed is not None and embed_query is not None else 0.0
        self.rank_bonus = rank_bonus
        self.kind_bonus = kind_bonus  # added, when choosing only, to a sentence offering the kind of answer asked for
        self.neighbours = True  # a unit lacking the kind asked for is quoted with the next or previous one offering it
        self.spread = SPREAD  # ... or holding enough of the question's terms it lacks (with_spread; 0: never)
        self.short_penalty = SHORT_PENALTY  # a short Chinese or Arabic unit counts this much less at most (0: off)
        self.matches: Matches | None = None  # of the last question scored
        self.floor = floor
        self.min_support = min_support
        self.support = 1.0  # of the last question scored

    def scores(self, question: str, found: Sequence[Candidate]) -> list[float]:
        """One score per candidate (higher answers better)."""
        texts = [c.text for c in found]
        passages = list({id(c.passage): c.passage.content for c in found}.values())
        self.matches = term_matches(question, texts)
        held, self.support = shares(self.matches, passages)
        keyword = np.asarray(held, dtype=np.float32)
        prior = np.asarray([self.rank_bonus / (1 + c.rank) for c in found], dtype=np.float32)
        lexical = (1 - self.semantic) * keyword + prior
        if not self.semantic:
            return [float(x) for x in lexical]
        # The embedder reads only the shortlist; a sentence off it cannot win (its cosine would be needed).
        short = np.argsort(-lexical, kind="stable")[:SHORTLIST]
        mixed = np.full(len(texts), -1.0, dtype=np.float32)
        try:
            q = np.asarray(self._embed_query(question), dtype=np.float32)  # type: ignore[misc]
            cosine = np.asarray(self._embed([texts[i] for i in short]), dtype=np.float32) @ q  # type: ignore[misc]
        except Exception as exc:  # noqa: BLE001 - an embedder that fails must not lose the answer
            log.warning("quote: embedder failed (%s); keywords only", exc)
            return [float(x) for x in lexical]
        mixed[short] = self.semantic * cosine + lexical[short]
        return [float(x) for x in mixed]

    def with_kind(self, question: str, found: Sequence[Candidate], scored: Sequence[float]) -> list[float]:
        """The scores a sentence is chosen by: its score plus the kind bonus, less the short-unit penalty (the score
        reported stays the selector's own, on the scale the abstention gate was fitted on)."""
        texts = [c.text for c in found]
        bonuses = kind_bonuses(question, texts, self.kind_bonus)
        shorts = short_penalties(texts, self.short_penalty)
        return [s + b - p if s > -1.0 else s for s, b, p in zip(scored, bonuses, shorts, strict=True)]

    def select(self, question: str, passages: Sequence[Passage]) -> Quote | None:
        """The best-scoring sentence as a Quote (None when the passages hold no sentence)."""
        found = candidates(passages)
        if not found:
            return None
        scored = self.scores(question, found)
        chosen = self.with_kind(question, found, scored)
        best = max(range(len(found)), key=lambda i: (chosen[i], -i))
        runner_up = max((s for i, s in enumerate(scored) if i != best), default=scored[best])
        quote = to_quote(self.widened(question, found, best), scored[best], self.name)
        return replace(quote, support=self.support, margin=scored[best] - runner_up)

    def widened(self, question: str, found: Sequence[Candidate], best: int) -> Candidate:
        """The chosen unit, with the unit beside it when that one offers the kind of answer asked for, or else holds
        the question's terms the chosen one lacks (neighbours off: the unit alone); whole when the length cap cut it
        out of a sentence (whole_sentence)."""
        if not self.neighbours:
            return whole_sentence(found[best])
        chosen = with_neighbour(question, found, best)
        if chosen is not found[best] or not self.spread:
            return whole_sentence(chosen)
        matches = self.matches if self.matches is not None and len(self.matches.found) == len(found) else (
            term_matches(question, [c.text for c in found]))
        return whole_sentence(with_spread(found, best, matches, self.spread))


def whole_sentence(c: Candidate, longest: int = WHOLE_MAX) -> Candidate:
    """The unit, or the whole sentence(s) it was cut from when the length cap cut it (a sentence longer than
    MAX_SENTENCE) and they hold at most `longest` characters and no ellipsis a window or the budget cut there."""
    text = c.passage.content
    spans = sentence_spans(text, limit=len(text) + 1)  # the sentences uncut
    start = next((a for a, b in spans if a <= c.start < b), c.start)
    end = next((b for a, b in spans if a < c.end <= b), c.end)
    start, end = min(start, c.start), max(end, c.end)
    if (start, end) == (c.start, c.end) or end - start > longest or ELLIPSIS in text[start:end].replace(c.text, ""):
        return c
    return Candidate(c.passage, c.rank, start, end)


def with_neighbour(question: str, found: Sequence[Candidate], best: int) -> Candidate:
    """The chosen unit, or it and the unit beside it in the same passage when the question asks for a kind of answer
    (answer_kind.py) the chosen unit does not offer and that one does: the question's words in one sentence, the
    answer in the next ("... However," / "William Smith ..."), or a pronoun standing for the answer the sentence
    before names. The next unit is tried first; both stay whole, so the quote does too. On the XQuAD dev articles
    (bench/qa_xquad_replay.py, the selector replayed over the passages chat found): quote holds gold th 0.771 -> 0.789
    (175 questions), ar 0.746 -> 0.768 (177), none lost; an answer-kind bonus on top of it lost as many as it gained."""
    kind = answer_kind(question)
    c = found[best]
    if kind is None or offers(kind, c.text, question):
        return c
    for j in (best + 1, best - 1):
        if 0 <= j < len(found) and found[j].passage is c.passage and offers(kind, found[j].text, question):
            return Candidate(c.passage, c.rank, min(c.start, found[j].start), max(c.end, found[j].end))
    return c


def with_spread(found: Sequence[Candidate], best: int, matches: Matches, least: float = SPREAD,
                longest: int = SPREAD_MAX) -> Candidate:
    """The chosen unit, or it and the unit beside it in the same passage (the next first) when that one holds at least
    `least` of the question's terms (rarity-weighted, `matches`) the chosen one does not, and the two together are at
    most `longest` characters: the question paraphrases a statement that runs over both, and its answer is as
    often in the one as in the other (a Thai space that ended a clause, not the sentence; a Chinese sentence whose
    subject is the one before). Only in Thai, Chinese and Arabic text (_SPREAD_SCRIPTS)."""
    c = found[best]
    if not _SPREAD_SCRIPTS.search(c.text):
        return c
    have = matches.found[best]
    beside = [j for j in (best + 1, best - 1) if 0 <= j < len(found) and found[j].passage is c.passage]
    if not beside:
        return c
    j = max(beside, key=lambda k: matches.share(matches.found[k] - have))  # the next one on a tie
    start, end = min(c.start, found[j].start), max(c.end, found[j].end)
    if matches.share(matches.found[j] - have) < least or end - start > longest:
        return c
    return Candidate(c.passage, c.rank, start, end)


def kind_bonuses(question: str, texts: Sequence[str], bonus: float) -> list[float]:
    """Per text, `bonus` when the question asks for a time, number, person or place (answer_kind.py, per language)
    and the text offers one; else 0."""
    kind = answer_kind(question) if bonus else None
    if kind is None:
        return [0.0] * len(texts)
    return [bonus if offers(kind, t, question) else 0.0 for t in texts]


def short_penalties(texts: Sequence[str], penalty: float = SHORT_PENALTY) -> list[float]:
    """Per text, what choosing it costs for being short: `penalty` x the share of its script's SHORT_UNIT characters
    it lacks, for a Chinese (Japanese) or Arabic unit; 0 for any other, and for one as long as that or longer."""
    out = []
    for text in texts:
        least = next((n for script, n in SHORT_UNIT if script.search(text)), 0) if penalty else 0
        out.append(penalty * max(0.0, 1.0 - len(text) / least) if least else 0.0)
    return out


def candidate_passages(results: Sequence[RetrievalResult], min_score: float) -> list[Passage]:
    """The retrieved chunks, whole, numbered as the prompt will number them (those under `min_score` left out)."""
    kept = [r for r in results if r.score >= min_score and r.content.strip()]
    return [to_passage(i, r) for i, r in enumerate(kept, 1)]


def place_quote(quote: Quote | None, passages: Sequence[Passage]) -> Quote | None:
    """`quote` (chosen from the whole chunks) inside the passages as sent, renumbered; None when it was cut out."""
    if quote is None:
        return None
    for p in passages:
        if p.source != quote.source:
            continue
        at = p.content.find(quote.text)
        if at >= 0:
            return replace(quote, n=p.n, start=at, end=at + len(quote.text), page=p.page, place=p.place)
    return None

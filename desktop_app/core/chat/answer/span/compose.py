"""Answers that span passages: whole-sentence quotes from several documents, each cited, grouped by document.

For a question span_question.py reads as a comparison, a list, a topic or a bridge, one sentence rarely answers:
"Compare keyword search and semantic search" needs a sentence about each, "What government position was held by
the woman who portrayed Corliss Archer …" one sentence naming the woman and another naming her post. The answer
starts from the quote the usual path chose (so it never holds less than the single quote did) and adds, from the
passages the search found and from a search per angle, the best sentence of each angle:

* a comparison: the best sentence about each subject (the question with the other subject left out);
* a bridge or a topic: the best sentence of another document for the question read with the first quote (the
  intermediate thing the first quote names is what the second passage is about), and for a topic every sentence
  that scores near the first quote (at most PER_DOCUMENT a document);
* a list: the list the first quote heads or stands in (its items, table rows or aligned lines, whole).

A sentence is added only when its score clears the selector's floor (`KEEP`, chosen on the dev part of
bench/multihop.py). Every bullet is `passage.content[start:end]`: text the library holds, never a model's words;
the model is not asked, so it works with the bundled one.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from desktop_app.core.chat.answer.context import Passage
from desktop_app.core.chat.answer.gate.citations import Citation
from desktop_app.core.chat.answer.quote.line_units import Kind, blocks, is_heading
from desktop_app.core.chat.answer.quote.selector import Candidate, Quote, QuoteSelector, candidates
from desktop_app.core.chat.answer.span.question import Shape, SpanQuestion

_RULE = re.compile(r"\s*(=+|-+)\s*$")  # a Markdown / plain-text heading's underline, or a rule
MAX_DOCUMENTS = 4  # documents quoted at most
PER_DOCUMENT = 3  # a topic's units quoted from one document at most
LIST_ITEMS = 20  # items of one list quoted at most
# KEEP and SECOND: chosen on bench/multihop.py's dev part (40 HotpotQA questions, every pick recorded at 0 and
# replayed): 0.30-0.45 keep the same supporting-fact recall (0.395) and answers holding the gold one (0.312), 0.45
# with the fewest words (44.6, against 57.9 at 0); 0.5 loses recall. A second sentence of the hop's document adds
# 0.009 recall at 0.45 for 5 words.
KEEP = 0.45  # an angle's best sentence is added when its score is at least this (the selector's scale)
SECOND = 0.0  # a hop document's second sentence needs this much more than KEEP
NEAR = 0.8  # a topic's unit is quoted at this share of the first quote's score (not tuned: HotpotQA has no topics)



@dataclass(frozen=True)
class Pick:
    """One quoted unit: a candidate sentence and why it was taken."""

    candidate: Candidate
    angle: str  # "question", "subject", "hop", "topic", "list"
    score: float = 0.0  # the selector's score for its angle's query (a list item: its list's first quote's)


def pool(found: Sequence[Passage], more: Sequence[Sequence[Passage]]) -> list[Passage]:
    """The passages found, then those the further searches found (each chunk once), numbered 1, 2, … in that order."""
    out: list[Passage] = []
    seen: set[tuple[str, int | None, str]] = set()
    for p in (*found, *(p for group in more for p in group)):
        key = (p.source, p.chunk_id, p.content if p.chunk_id is None else "")
        if key not in seen:
            seen.add(key)
            out.append(replace(p, n=len(out) + 1))
    return out


def angles(question: str, read: SpanQuestion, first: Quote) -> list[tuple[str, str]]:
    """(angle, query) pairs: what each further sentence is chosen for."""
    out: list[tuple[str, str]] = []
    if read.shape is Shape.COMPARE:
        for i, subject in enumerate(read.subjects):
            other = read.subjects[1 - i] if len(read.subjects) == 2 else ""
            query = " ".join(question.replace(other, " ").split()) if other else question
            if subject.casefold() not in first.text.casefold():
                out.append(("subject", query))
    if read.shape in (Shape.BRIDGE, Shape.ABOUT, Shape.COMPARE):
        out.append(("hop", f"{question} {' '.join(first.text.split())}"))
    return out


def choose(question: str, read: SpanQuestion, first: Quote, passages: Sequence[Passage],
           selector: QuoteSelector, keep: float | None = None) -> list[Pick]:
    """The units to quote: the first quote, then the best unit of each angle that clears `keep` (KEEP), then (a
    topic) the best of further documents, or (a list) the first quote's list."""
    keep = KEEP if keep is None else keep
    found = candidates(passages)
    start = next((c for c in found if c.passage.source == first.source and c.text == first.text), None)
    if start is None:
        return []
    picks = [Pick(start, "question", first.score)]
    if read.shape is Shape.LIST:
        return picks + [Pick(c, "list", first.score) for c in list_run(start)]
    for angle, query in angles(question, read, first):
        pool_ = [c for c in found if angle != "hop" or c.passage.source != first.source]
        best = _best(query, pool_, picks, selector)
        if best is not None and best[1] >= keep and len(_documents(picks + [Pick(best[0], angle)])) <= MAX_DOCUMENTS:
            picks.append(Pick(best[0], angle, best[1]))
            if angle == "hop":  # the second document's next best sentence: a bridge's answer often follows its name
                more = _best(query, [c for c in found if c.passage.source == best[0].passage.source], picks, selector)
                if more is not None and more[1] >= keep + SECOND:
                    picks.append(Pick(more[0], "hop2", more[1]))
    if read.shape is Shape.ABOUT:
        picks += _topic(question, found, picks, selector, first.score * NEAR)
    return picks


def _best(query: str, found: Sequence[Candidate], picks: Sequence[Pick], selector: QuoteSelector
          ) -> tuple[Candidate, float] | None:
    taken = {_key(p.candidate) for p in picks}
    left = [c for c in found if _key(c) not in taken and not _inside(c, picks)]
    if not left:
        return None
    scored = _scores(query, left, selector)
    i = max(range(len(left)), key=lambda j: (scored[j], -j))
    return left[i], scored[i]


def _scores(query: str, found: Sequence[Candidate], selector: QuoteSelector) -> list[float]:
    """The selector's score per candidate; a selector without per-candidate scores ranks its own choice first."""
    scores = getattr(selector, "scores", None)
    if scores is not None:
        return list(scores(query, found))
    quote = selector.select(query, list({id(c.passage): c.passage for c in found}.values()))
    return [quote.score if quote and c.passage.n == quote.n and c.start == quote.start else -1.0 for c in found]


def _topic(question: str, found: Sequence[Candidate], picks: list[Pick], selector: QuoteSelector,
           near: float) -> list[Pick]:
    """For a topic question, the units scoring at least `near`, best first: at most PER_DOCUMENT a document (the
    first quote's included) and MAX_DOCUMENTS documents in all."""
    out: list[Pick] = []
    scored = _scores(question, found, selector)
    for i in sorted(range(len(found)), key=lambda j: -scored[j]):
        c, s = found[i], scored[i]
        if s < near:
            break
        docs = _documents([*picks, *out])
        in_doc = sum(1 for p in (*picks, *out) if p.candidate.passage.source == c.passage.source)
        new_doc = c.passage.source not in docs
        if in_doc >= PER_DOCUMENT or (new_doc and len(docs) >= MAX_DOCUMENTS):
            continue
        if _key(c) not in {_key(p.candidate) for p in (*picks, *out)} and not _inside(c, [*picks, *out]):
            out.append(Pick(c, "topic", s))
    return out


def list_run(start: Candidate) -> list[Candidate]:
    """The list items, table rows or aligned lines of the first quote's passage that the quote heads or stands in:
    the first run of such units (headings and rules end a run) that ends after the quote starts, the quote itself
    left out, at most LIST_ITEMS."""
    text = start.passage.content
    runs: list[list[tuple[int, int]]] = [[]]
    for b in blocks(text):
        if b.kind is Kind.PROSE or not _item(text[b.start:b.end]):
            runs.append([])
        else:
            runs[-1].append((b.start, b.end))
    run = next((r for r in runs if r and r[-1][1] > start.start), [])
    inside = [(a, b) for a, b in run if not (start.start <= a and b <= start.end)]
    return [Candidate(start.passage, start.rank, a, b) for a, b in inside[:LIST_ITEMS]]


def _item(body: str) -> bool:
    stripped = body.strip()
    return any(ch.isalnum() for ch in stripped) and not is_heading(stripped) and len(set(stripped)) > 2


def _key(c: Candidate) -> tuple[str, int | None, int, int]:
    return c.passage.source, c.passage.chunk_id, c.start, c.end


def _inside(c: Candidate, picks: Sequence[Pick]) -> bool:
    """The same text as a picked unit (overlapping chunks hold the same sentence twice)."""
    text = " ".join(c.text.split())
    return any(" ".join(p.candidate.text.split()) == text and p.candidate.passage.source == c.passage.source
               for p in picks)


def _documents(picks: Sequence[Pick]) -> list[str]:
    return list(dict.fromkeys(p.candidate.passage.source for p in picks))


@dataclass(frozen=True)
class SpanAnswer:
    """The answer as shown: Markdown bullets grouped by document, its citations, the passages they cite."""

    text: str
    citations: tuple[Citation, ...]
    passages: tuple[Passage, ...]
    quote: Quote
    quotes: tuple[tuple[int, str], ...]  # every quoted unit, verbatim, with its passage's number, in the order shown


def render(picks: Sequence[Pick], first: Quote) -> SpanAnswer:
    """Bullets grouped by document (documents in the order first quoted, units in document order), each unit cited
    with its passage's number; passages renumbered 1, 2, … in the order shown."""
    groups: dict[str, list[Candidate]] = {}
    for p in shown(picks):
        groups.setdefault(p.candidate.passage.source, []).append(p.candidate)
    numbers: dict[int, int] = {}
    lines: list[str] = []
    quotes: list[tuple[int, str]] = []
    for source, units in groups.items():
        units.sort(key=lambda c: (c.passage.n, c.start))
        lines.append(f"**{_escape(_name(source))}**")
        for c in units:
            n = numbers.setdefault(c.passage.n, len(numbers) + 1)
            lines.append(f"- {bullet(c.text)} [{n}]")
            quotes.append((n, c.text))
        lines.append("")
    cited = {c.passage.n: c.passage for units in groups.values() for c in units}
    passages = tuple(sorted((replace(p, n=numbers[old]) for old, p in cited.items()), key=lambda p: p.n))
    citations = tuple(Citation(p.n, p.source, p.page, p.chunk_id, _first_unit(groups, p), p.place) for p in passages)
    start = picks[0].candidate
    quote = replace(first, n=numbers[start.passage.n], start=start.start, end=start.end)
    return SpanAnswer("\n".join(lines).strip(), citations, passages, quote, tuple(quotes))


def bullet(text: str) -> str:
    """A unit as one bullet line: its words on one line, less a heading's underline ('Title' over '=====' is shown
    'Title'); the quote itself keeps the document's text."""
    kept = " ".join(" ".join(line.split()) for line in text.splitlines() if line.strip() and not _RULE.match(line))
    return kept or " ".join(text.split())


def shown(picks: Sequence[Pick]) -> list[Pick]:
    """The picks less any whose text another pick of the same document holds (a title quoted with its first
    sentence, and that sentence alone): nothing shown is lost, nothing is shown twice. The first pick stays."""
    flat = [" ".join(p.candidate.text.split()) for p in picks]
    return [p for i, p in enumerate(picks)
            if i == 0 or not any(j != i and flat[i] in flat[j] and (len(flat[j]) > len(flat[i]) or j < i)
                                 and picks[j].candidate.passage.source == p.candidate.passage.source
                                 for j in range(len(picks)))]


def _first_unit(groups: dict[str, list[Candidate]], p: Passage) -> str:
    return next(" ".join(c.text.split()) for units in groups.values() for c in units
                if c.passage.source == p.source and c.passage.chunk_id == p.chunk_id)


def _name(source: str) -> str:
    return os.path.basename(source.rstrip("/\\")) or source


def _escape(name: str) -> str:
    return "".join(f"\\{ch}" if ch in "\\`*_[]<>#|~" else ch for ch in name)

"""Questions to start a chat with, drawn from the person's own library: no model, only titles and key terms.

A key term of a document is frequent in it and rare in the rest of the library (√tf·idf² over the documents
sampled), found with the text pipeline's own tokens (`core.text.fields.units`): stems for Latin and Arabic,
ICU's words for Thai, Chinese and Japanese. Each term is shown the way the document writes it most often, and
a question is phrased in the document's language where there are words for it (Chinese, Japanese, Thai;
English otherwise), so it retrieves the passages it was drawn from.

    docs = sample_documents(store)          # the newest indexed files: title + the start of their text
    suggest_questions(docs)                 # [Suggestion("What does “Sourdough bread” say about starter?", ...)]
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePath

import regex

from desktop_app.core.store.rows import DocStatus
from desktop_app.core.text.fields import units
from desktop_app.core.text.language import detect_language
from desktop_app.core.text.normalize import fold_word, normalize
from desktop_app.core.text.query import STOPWORDS
from desktop_app.core.text.segment import MAX_WORD
from desktop_app.core.text.stem import CACHE as STEM_CACHE
from desktop_app.core.text.stem import stem
from desktop_app.core.text.titles import title_from_path

SAMPLE_DOCUMENTS = 30  # the newest files read: enough for three questions, bounded whatever the library's size
SAMPLE_CHARS = 6_000  # of each document's text (its first chunks): a thousand words show what it is about
MAX_TITLE = 60  # characters of a title in a question
_DICTIONARY = regex.compile(r"[\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}\p{Thai}\p{Lao}\p{Khmer}\p{Myanmar}]")
_DIGIT = regex.compile(r"\p{N}")
_ASCII_WORD = regex.compile(r"[A-Za-z0-9]+")  # fields._ASCII_WORD, before lower-casing: the word as written
# Words that are frequent everywhere and say nothing about a document (STOPWORDS covers English's shortest).
_MORE_STOPWORDS = frozenset(
    "about above after again also always among another any back because before below between both came come "
    "each even every example first following found get gets give given goes going good here however just know "
    "last later less like long look made make makes many more most much must need needs never next often once "
    "one only other others over own part same says see seen shall since some something still take than that "
    "them then there these thing things those though three through thus time times too two under until upon "
    "use used uses using very want way ways well went when where whether while within without work works year "
    "years yes yet http https www com org html".split())
_CJK_STOPWORDS = frozenset(
    "我们 你们 他们 她们 它们 一个 一些 可以 这个 那个 这些 那些 没有 因为 所以 如果 什么 就是 以及 进行 通过 "
    "已经 还是 但是 其中 由于 不是 并且 或者 非常 之间 之后 包括 需要 使用 时候 自己 这样 那么 我的 你的 他的 "
    "これ それ あれ この その あの こと もの ため よう です ます した して いる ある なる".split())
_THAI_STOPWORDS = frozenset(
    "ที่ และ ของ ใน เป็น การ ได้ มี ให้ จะ ว่า กับ แต่ หรือ ซึ่ง นี้ ไม่ อยู่ จาก โดย ความ ทำ ไป มา แล้ว คือ "
    "เมื่อ ถ้า ก็ ยัง อีก ต้อง เพื่อ กัน ด้วย นั้น ทั้ง ตาม ขึ้น ออก หลาย บาง อาจ ต้องการ สามารถ เกี่ยวกับ "
    "ระหว่าง เช่น อย่าง ทุก เรา คุณ เขา ผม ฉัน มาก ใช้ เป็นต้น".split())
TEMPLATES = {  # (about a term in a titled document, about a term in the library, about a title)
    "en": ("What does “{title}” say about {term}?", "What do my documents say about “{term}”?",
           "What is “{title}” about?"),
    "zh": ("《{title}》中关于“{term}”说了什么？", "我的文档中关于“{term}”有哪些内容？", "《{title}》讲了什么？"),
    "ja": ("「{title}」には{term}について何と書かれていますか？", "文書には{term}について何と書かれていますか？",
           "「{title}」は何についての文書ですか？"),
    "th": ("เอกสาร “{title}” กล่าวถึง{term}ว่าอย่างไร", "เอกสารของฉันกล่าวถึง{term}ว่าอย่างไร",
           "เอกสาร “{title}” เกี่ยวกับอะไร"),
}


@dataclass(frozen=True)
class SampledDocument:
    """A document as the suggestions read it: its title, path and the start of its text."""

    title: str
    path: str
    text: str


@dataclass(frozen=True)
class Suggestion:
    """A question to offer, with the document and the key term it was drawn from ("" when from the title only)."""

    question: str
    title: str
    term: str
    path: str


def sample_documents(store, limit: int = SAMPLE_DOCUMENTS, max_chars: int = SAMPLE_CHARS) -> list[SampledDocument]:
    """The `limit` most recently indexed files the library shows, newest first, with their first chunks."""
    rows = [row for folder in store.all_folders() for row in store.documents_under(folder.id).values()
            if row.status == DocStatus.INDEXED]
    rows.sort(key=lambda row: row.id, reverse=True)
    rows = rows[:limit]
    titles = store.document_titles([row.id for row in rows])
    docs: list[SampledDocument] = []
    for row in rows:
        if row.id not in titles:
            continue  # removed meanwhile
        text, used = [], 0
        for _page, chunk in store.document_chunks(row.path):
            if used >= max_chars:
                break
            text.append(chunk[:max_chars - used])
            used += len(text[-1])
        docs.append(SampledDocument(titles[row.id], row.path, "\n".join(text)))
    return docs


def shown_title(title: str, path: str) -> str:
    """The title as a question quotes it: the document's own or one made from its file name, one line, cut short."""
    title = " ".join((title or title_from_path(PurePath(path))).split())
    return title if len(title) <= MAX_TITLE else title[:MAX_TITLE - 1].rstrip() + "…"


def _keep(surface: str, folded: str) -> bool:
    """Whether a word can be a key term: no digits, not a function word, long enough to mean something."""
    if _DIGIT.search(surface) or folded in STOPWORDS or folded in _MORE_STOPWORDS:
        return False
    if _DICTIONARY.search(surface):
        return len(surface) >= 2 and surface not in _CJK_STOPWORDS and surface not in _THAI_STOPWORDS
    return len(surface) >= 3


def document_terms(text: str) -> tuple[Counter[str], dict[str, Counter[str]]]:
    """Token counts of a text (the index's stem or word of each word) and the ways each token is written."""
    norm = normalize(text).text
    if norm.isascii():  # the pipeline's own fast path (fields.analyze): one findall, cached stems
        pairs = [(STEM_CACHE.get(w.lower()) or stem(w.lower()[:MAX_WORD]), w, n)
                 for w, n in Counter(_ASCII_WORD.findall(norm)).items() if _keep(w, w.lower())]
    else:  # overlapping CJK bigrams are left out: the ICU words of the same run are what a person reads
        found = Counter((token, norm[start:end]) for field, token, start, end in units(norm) if field != "grams")
        pairs = [(token, w, n) for (token, w), n in found.items() if _keep(w, fold_word(w))]
    counts: Counter[str] = Counter()
    written: dict[str, Counter[str]] = {}
    for token, surface, n in pairs:
        counts[token] += n
        written.setdefault(token, Counter())[surface] += n
    return counts, written


def _as_written(forms: Counter[str]) -> str:
    """The most common spelling, lower-case when the document also writes it so (a capital that starts a sentence
    is not a name's)."""
    lower = Counter({form: n for form, n in forms.items() if form == form.lower()})
    return min((lower or forms).items(), key=lambda item: (-item[1], item[0]))[0]


def key_terms(docs: Sequence[SampledDocument], per_document: int = 3) -> list[list[tuple[str, float]]]:
    """Each document's best terms as written, best first, with their score: frequent in it (twice at least when
    it has such words) and rare in the other documents (√tf·idf²); its title's own words are left out."""
    analysed = [document_terms(d.text) for d in docs]
    df: Counter[str] = Counter()
    for counts, _ in analysed:
        df.update(counts.keys())
    n = len(docs)
    out = []
    for doc, (counts, written) in zip(docs, analysed, strict=True):
        title_tokens = {token for _field, token, _s, _e in units(normalize(shown_title(doc.title, doc.path)).text)}
        candidates = {t: c for t, c in counts.items() if t not in title_tokens}
        if any(c >= 2 for c in candidates.values()):
            candidates = {t: c for t, c in candidates.items() if c >= 2}
        # rarity counts more than repetition: a word said twice in one document only beats one said often in many
        scored = sorted(((math.sqrt(c) * math.log(1 + n / df[t]) ** 2, t) for t, c in candidates.items()),
                        key=lambda s: (-s[0], -len(s[1]), s[1]))  # ties: the longer word says more
        out.append([(_as_written(written[t]), score) for score, t in scored[:per_document]])
    return out


def _templates(text: str) -> tuple[str, str, str]:
    return TEMPLATES.get(detect_language(text), TEMPLATES["en"])


def suggest_questions(docs: Sequence[SampledDocument], n: int = 3) -> list[Suggestion]:
    """Up to `n` questions from different documents where there are enough (the best-scored first), alternating
    between asking a document about its key term and asking the library about one; a document with no usable
    words gets a question about its title; a library of one document gets its next terms."""
    terms = key_terms(docs)
    order = sorted(range(len(docs)), key=lambda i: (-(terms[i][0][1] if terms[i] else 0.0), i))
    picks: list[tuple[int, str]] = [(i, terms[i][0][0] if terms[i] else "") for i in order[:n]]
    for i in order:  # fewer documents than questions: their next terms
        for term, _score in terms[i][1:]:
            if len(picks) < n and term not in {t for _, t in picks}:
                picks.append((i, term))
    out: list[Suggestion] = []
    for k, (i, term) in enumerate(picks):
        doc = docs[i]
        title = shown_title(doc.title, doc.path)
        about_title, about_library, title_only = _templates(doc.text or title)
        seen_doc = any(j == i for j, _ in picks[:k])
        if not term:
            question = title_only.format(title=title)
        elif k % 2 == 0 and not seen_doc:
            question = about_title.format(title=title, term=term)
        else:
            question = about_library.format(term=term)
        if question not in {s.question for s in out}:
            out.append(Suggestion(question, title, term, doc.path))
    return out

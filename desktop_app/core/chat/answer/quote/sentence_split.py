"""The units a quote is made of, in any text the pipeline handles: whole sentences, or whole lines that are
units of their own (a heading, a table row, a list item with its continuation lines, a line of code).

The line structure comes first (line_units.py): a line break that only wraps prose is read as a space, so a
sentence printed over two lines (hard-wrapped Markdown, a PDF's text layer) stays one sentence. Inside prose,
ICU (icu4py) breaks after . ! ? and their equivalents in other scripts (Chinese and Japanese 。！？, Arabic ؟ and
۔, Devanagari ।); the full-width semicolon ； and the Arabic one ؛ end a unit too (a Chinese or Arabic writer
puts one between two whole statements). Thai, Lao, Khmer and Myanmar end sentences with a space instead of a
mark, which ICU does not treat as a break: a space between two characters of those scripts ends a sentence
here, once the unit holds MIN_SEA_UNIT characters (the same space also sets off clauses and phrases), unless the
space is inside brackets or quotation marks, comes before the repetition mark ๆ, or follows a Thai word that
cannot end a sentence (a preposition or conjunction: "โดย" by, "ของ" of, "และ" and …).
English abbreviations ("Dr. Quell", "e.g. this") do not end a sentence (ICU's suppression list when the
wheel has it, and a short list of our own either way). Without ICU, a regular expression over the same marks
stands in. A unit longer than MAX_SENTENCE is cut at a comma (، 、 ，) or a space.

Spans are code-point offsets into the text itself, stripped of surrounding white space and of invisible
direction marks (U+200E/U+200F and their kin, which RTL text carries around its punctuation); pure functions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import regex

from desktop_app.core.chat.answer.quote.line_units import Kind, blocks
from desktop_app.core.log import get_logger
from desktop_app.core.text.segment import SEA, words

log = get_logger("chat")

Span = tuple[int, int]
MAX_SENTENCE = 600  # characters; a longer "sentence" (a page with no full stop) is cut at spaces or commas
# Characters a Thai (Lao, Khmer, Myanmar) unit holds at least before a space ends it: a space there ends a
# sentence, a clause or a phrase alike, and a phrase alone ("เกิดใหม่", "newly born") answers nothing. Chosen on
# the XQuAD dev split (bench/data/qa-xquad-dev; bench/quote_units.py --split xquad-dev --langs th --min-sea-unit N):
# the Thai quote holds the gold answer 0.22 at 0 (every space), 0.62 at 80, 0.80 at 120, where the median Thai
# quote is 173 characters, as long as the English one (164).
MIN_SEA_UNIT = 120
# Thai words that need what follows them (prepositions, conjunctions, relative and complement markers): a space
# after one is inside a sentence. With these, brackets and quotation marks kept whole and no cut before ๆ, the Thai
# quote held the gold answer for 0.774 of the XQuAD dev articles' 177 Thai questions (0.751 before; the selector
# replayed over the passages chat found), with units no longer than before (median 155 characters, as the English
# sentences of the same articles).
_THAI_GOES_ON = frozenset(
    "โดย ของ และ หรือ กับ ที่ ใน จาก เป็น คือ ว่า ซึ่ง เช่น รวมถึง รวมทั้ง ได้แก่ แก่ ต่อ ตาม สำหรับ เพื่อ ถึง ให้ "
    "อย่าง ระหว่าง แห่ง ด้วย จน บน ภายใน ชื่อ".split())
_REPEAT = "\u0e46"  # ๆ repeats the word before it: a space before it is inside the sentence
_OPEN_MARKS, _CLOSE_MARKS = "([{“‘«「『（", ")]}”’»」』）"
_SEA_SPACE = regex.compile(rf"(?<=[{SEA}][\p{{M}}]*)[ \u00a0]+(?=[{SEA}])")
_MARKS = "\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069\ufeff\u200b"  # direction marks, BOM, zero-width space
_INVISIBLE = regex.compile(f"[{_MARKS}]")
_FALLBACK_END = regex.compile(rf"[.!?。！？؟۔।]+[\"'”’)\]」』{_MARKS}]*(?=\s|$)|[。！？؟]+[」』”’)）{_MARKS}]*")
_SEMICOLON_END = regex.compile(rf"[；؛][」』”’)）{_MARKS}]*\s*")  # full-width and Arabic semicolons end a unit
_SEA_WRAP = regex.compile(rf"(?<=[{SEA}][\p{{M}}]*)(?:\r\n|[\r\n])(?=[{SEA}])")
_OPENERS = frozenset("（([{「『“‘«〈《【〔")
_LINE_BREAK = regex.compile(r"[\r\n\u2028\u2029\x0b\x0c\x1c-\x1e\x85]")
_ABBREVIATION = regex.compile(
    r"(?:^|[\s(])(?:[A-Z]|\p{Arabic}|Dr|Mr|Mrs|Ms|St|Jr|Sr|Prof|Mt|No|vs|etc|e\.g|i\.e|Fig|Inc|Ltd|Co)\.\s*$")
_SOFT_CUT = regex.compile(r"[,;:،、，；]\s+|\s+")


def _load_icu() -> Callable[[str], Iterator[str]] | None:
    try:
        from icu4py.breakers import SentenceBreaker
    except ImportError as exc:  # no wheel for this platform: marks and line breaks only
        log.warning("ICU sentence breaks unavailable (%s): quotes split at punctuation only", exc)
        return None
    return lambda text: iter(SentenceBreaker(text, "en"))


ICU_SENTENCES = _load_icu()


def _raw_spans(text: str) -> list[Span]:
    """Spans that together cover `text`, from ICU (its segment strings' lengths) or the fallback expression."""
    if ICU_SENTENCES is not None:
        spans, pos = [], 0
        for piece in ICU_SENTENCES(text):
            spans.append((pos, pos + len(piece)))
            pos += len(piece)
        if pos == len(text):
            return spans
    spans, start = [], 0
    for m in _FALLBACK_END.finditer(text):
        spans.append((start, m.end()))
        start = m.end()
    return [*spans, (start, len(text))] if start < len(text) else spans


def _move_openers(text: str, spans: list[Span]) -> list[Span]:
    """ICU counts an opening bracket or quote after a full stop as closing that sentence ("学院建筑。（例如…"): it
    opens the next one, so it moves there."""
    out = list(spans)
    for i in range(len(out) - 1):
        (a, b), (_, d) = out[i], out[i + 1]
        kept = b
        while kept > a and text[kept - 1].isspace():
            kept -= 1
        cut = kept
        while cut > a + 1 and text[cut - 1] in _OPENERS:
            cut -= 1
        if cut < kept:
            out[i], out[i + 1] = (a, cut), (cut, d)
    return out


def _join_abbreviations(text: str, spans: list[Span]) -> list[Span]:
    """Undo a break after "Dr." or "e.g." when the line goes on (a break at a line end stays), and after a full stop
    with no space behind it ("هربرت أ.سيمون": ICU breaks before a letter of a caseless script there)."""
    out: list[Span] = []
    for start, end in spans:
        previous = text[out[-1][0]:out[-1][1]] if out else ""
        glued = previous.endswith(".") and start < len(text) and text[start].isalpha()
        if out and (glued or (_ABBREVIATION.search(previous) and "\n" not in previous)):
            out[-1] = (out[-1][0], end)
        else:
            out.append((start, end))
    return out


def _split_sea(text: str, span: Span, min_len: int | None = None) -> Iterator[Span]:
    """The span cut at spaces between two letters of a script that ends its sentences with a space (Thai, Lao,
    Khmer, Myanmar). Such a space also ends a clause or sets off a phrase, so a piece shorter than `min_len`
    (MIN_SEA_UNIT) runs on to the next space: a piece and the rest are each at least that long, or not cut."""
    least = MIN_SEA_UNIT if min_len is None else min_len
    start, end = span
    for m in _SEA_SPACE.finditer(text, start, end):
        if m.start() - start >= least and end - m.end() >= least and _sea_sentence_end(text, start, m.start()):
            yield start, m.start()
            start = m.end()
    yield start, end


def _sea_sentence_end(text: str, start: int, space: int) -> bool:
    """Whether the space at `space` can end the unit begun at `start`: no bracket or quotation mark left open, no
    ๆ after it, and the word before it (ICU's word break) one that can end a sentence."""
    piece = text[start:space]
    if sum(map(piece.count, _OPEN_MARKS)) > sum(map(piece.count, _CLOSE_MARKS)) or piece.count('"') % 2:
        return False
    after = space
    while after < len(text) and text[after] in " \u00a0":
        after += 1
    if text.startswith(_REPEAT, after):
        return False
    tail = text[max(start, space - 24):space]
    last = list(words(tail))
    return not last or tail[last[-1][1]:last[-1][2]] not in _THAI_GOES_ON


def _cap(text: str, span: Span, limit: int) -> Iterator[Span]:
    """Cut a span longer than `limit` at the last comma or space before it (or hard, when there is none)."""
    start, end = span
    while end - start > limit:
        cut = max((m.end() for m in _SOFT_CUT.finditer(text, start + limit // 2, start + limit)), default=start + limit)
        yield start, cut
        start = cut
    yield start, end


def _split_semicolons(text: str, span: Span) -> Iterator[Span]:
    start, end = span
    for m in _SEMICOLON_END.finditer(text, start, end):
        if m.end() < end:
            yield start, m.end()
            start = m.end()
    yield start, end


def _blank(ch: str) -> bool:
    return ch.isspace() or bool(_INVISIBLE.match(ch))


def _strip(text: str, span: Span) -> Span | None:
    start, end = span
    while start < end and _blank(text[start]):
        start += 1
    while end > start and _blank(text[end - 1]):
        end -= 1
    return (start, end) if end > start else None


def _prose_spans(text: str, start: int, end: int) -> Iterator[Span]:
    """Sentences of the prose block `text[start:end]`, read with its wrapping line breaks as spaces."""
    # Same length, so offsets into the view are offsets into the block. A wrap between two Thai letters is no
    # space (Thai lines wrap between words written together): a zero-width space there, which ends nothing.
    view = _SEA_WRAP.sub(lambda m: "\u200b" * len(m.group()), text[start:end])
    view = _LINE_BREAK.sub(" ", view)
    for raw in _join_abbreviations(view, _move_openers(view, _raw_spans(view))):
        for part in _split_semicolons(view, raw):
            for a, b in _split_sea(view, part):
                yield start + a, start + b


def sentence_spans(text: str, *, limit: int = MAX_SENTENCE) -> list[Span]:
    """(start, end) of each unit of `text` (a sentence, or a heading / table row / list item / code line whole),
    in order, without surrounding white space; never overlapping, and together holding every visible character."""
    out: list[Span] = []
    for block in blocks(text):
        whole = block.kind is not Kind.PROSE and block.end - block.start <= limit
        pieces = [(block.start, block.end)] if whole else _prose_spans(text, block.start, block.end)
        for piece in pieces:
            for capped in _cap(text, piece, limit):
                stripped = _strip(text, capped)
                if stripped is not None:
                    out.append(stripped)
    return out

"""A retrieved chunk widened to whole units, so the quote taken from it is never a sentence the chunk edge cut.

Chunks are cut by word counts (ingest/chunking.py): a chunk after the first starts `chunk_overlap` words before
the previous one ended, mid-sentence, and one that fills `chunk_size` ends wherever the count ran out (in Thai,
whose paragraphs have few spaces, even mid-word). Before the chat quotes or sends a chunk, its edges are moved
out to the unit boundaries (sentence_split.py) of the document's text around it: the chunk and its neighbours,
read from the store (`Store.chunks_around`), stitched by their character spans. Only neighbours on the same page
that overlap or touch the chunk are used (text between two chunks is not stored), and an edge moves at most
MAX_SENTENCE characters, so a passage grows by at most one sentence at either end.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

import regex

from desktop_app.core.chat.answer.quote.sentence_split import MAX_SENTENCE, sentence_spans
from desktop_app.core.log import get_logger
from desktop_app.core.types import RetrievalResult

log = get_logger("chat")

REACH = 2 * MAX_SENTENCE  # characters split either side of a chunk edge to find the unit it cuts
_PARAGRAPH_BREAK = regex.compile(r"[ \t]*\n[ \t]*\n")  # at the edge: what follows is a new paragraph
_PARAGRAPH_END = regex.compile(r"\n[ \t]*\n[ \t]*$")  # or what precedes it ends one
Row = tuple[int | None, int, int, str]  # (page, start, end, text) of a chunk, as Store.chunks_around gives it
Around = Callable[[int], list[Row]]


def stitch(rows: Sequence[Row], at: int) -> tuple[int, str]:
    """(start offset, text) of the document stretch that rows[at] and its overlapping or touching neighbours on the
    same page cover, read by their spans."""
    page, start, end, _text = rows[at]
    lo = at
    while lo > 0 and rows[lo - 1][0] == page and rows[lo - 1][2] >= rows[lo][1]:
        lo -= 1
    text, reached = rows[lo][3], rows[lo][2]
    for r_page, r_start, r_end, r_text in rows[lo + 1:]:
        if r_page != page or r_start > reached:
            break
        if r_end > reached:
            text += r_text[reached - r_start:]
            reached = r_end
    return rows[lo][1], text


def unit_around(text: str, at: int) -> tuple[int, int] | None:
    """The unit of `text` that `at` falls inside (not at its edge), or None: `at` is a boundary. Only the stretch
    within REACH of `at` is split (a unit is at most MAX_SENTENCE long, so the one holding `at` lies inside it),
    and not even that where a blank line or the text's end meets `at`."""
    if at <= 0 or at >= len(text) or _PARAGRAPH_BREAK.match(text, at) or _PARAGRAPH_END.search(text, 0, at):
        return None
    lo = max(0, at - REACH)
    for a, b in sentence_spans(text[lo:at + REACH]):
        if lo + a < at < lo + b:
            return lo + a, lo + b
        if lo + a >= at:
            break
    return None


def widened(content: str, text: str, start: int) -> tuple[int, int]:
    """Where `content`, found at `start` of `text`, begins and ends once moved out to whole units of `text`."""
    end = start + len(content)
    head, tail = unit_around(text, start), unit_around(text, end)
    return head[0] if head else start, tail[1] if tail else end


def widen(result: RetrievalResult, around: Around) -> RetrievalResult:
    """`result` with its content moved out to whole units (unchanged when it is no chunk, or already whole)."""
    chunk_id = (result.metadata or {}).get("chunk_id")
    if chunk_id is None or not result.content:
        return result
    rows = around(int(chunk_id))
    at = next((i for i, r in enumerate(rows) if r[3] == result.content), None)
    if at is None:  # the chunk changed since it was found, or the content is not the chunk's own text
        return result
    base, text = stitch(rows, at)
    start = rows[at][1] - base
    if text[start:start + len(result.content)] != result.content:
        return result
    a, b = widened(result.content, text, start)
    if (a, b) == (start, start + len(result.content)):
        return result
    grown = shifted(result.metadata, start - a, b - start - len(result.content))
    return replace(result, content=text[a:b], metadata=grown)


def shifted(metadata: dict, before: int, after: int) -> dict:
    """The result's metadata for content grown by `before` characters in front and `after` behind: its document
    span and highlight spans moved with it."""
    out = {**metadata, "widened": (before, after)}
    if isinstance(out.get("start"), int) and isinstance(out.get("end"), int):
        out["start"], out["end"] = out["start"] - before, out["end"] + after
    if isinstance(out.get("highlights"), list):
        out["highlights"] = [(a + before, b + before) for a, b in out["highlights"]]
    return out


def whole_units(around: Around, results: Sequence[RetrievalResult]) -> list[RetrievalResult]:
    """Every result widened to whole units; a store that cannot say leaves the results as they were."""
    out = []
    for r in results:
        try:
            out.append(widen(r, around))
        except Exception as exc:  # noqa: BLE001 - a quote cut short is better than no answer
            log.warning("could not widen a passage to whole sentences (%s)", exc)
            out.append(r)
    return out

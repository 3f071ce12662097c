"""The search query language: what a person types, parsed once into a typed query and a row of chips.

`"exact phrase"`, `-word`, `-"phrase"`, `OR`, `type:pdf`, `folder:NAME`, `lang:th`, `tag:NAME`, `file:NAME`,
`after:2024-03`, `before:2024-05-01`, `date:2024` and the relative `last week` / `last month` / `last year` /
`this week` / `this month` / `this year` (against an injectable today). A value with spaces is quoted:
`folder:"Tax papers"`.

`parse_query` never raises. A part it cannot read as syntax (`after:banana`, `foo:bar`, `type:nothing`, an empty
`""`) is searched as the words it is and its chip says so (`Chip.plain` with a `note`): the person sees why their
filter did nothing instead of an error. Text in any script passes through untouched; only ASCII syntax is read.

Each chip is one span of the typed text: `without_chip` gives the query without that part, which parses to the
same chips less that one (property-tested), so removing a chip in the window is rewriting the query.

Dates are half-open ranges of calendar days: `after:P` keeps documents dated on or after the first day of the
period P, `before:P` those dated before its first day, `date:P` those within it; several date parts intersect.
Several values of one filter key are alternatives (`type:pdf type:docx` is either), as the filters menu's are.
"""

from __future__ import annotations

import datetime as dt
import enum
from dataclasses import dataclass, field
from pathlib import PurePath

import regex

from desktop_app.core.ingest.filetypes import DOCUMENT_TYPES, file_type

MAX_QUERY_CHARS = 4000  # a pasted page is parsed by its beginning, so the work stays bounded

# A quoted phrase (maybe excluded), a key with a quoted value, or any run of non-space characters.
_TOKEN = regex.compile(r'(?P<phrase>-?"[^"]*")|(?P<keyed>[A-Za-z]+:"[^"]*")|\S+')
_SPACE = regex.compile(r"\s+")  # the tokenizer's white space (Unicode's), not str.isspace's
_SPACE_AT_END = regex.compile(r"\s+\Z")
_SPACE_AT_START = regex.compile(r"\A\s+")
_KEY = regex.compile(r"([A-Za-z]+):(.*)", regex.DOTALL)
_DAY = regex.compile(r"(\d{4})(?:[-/.](\d{1,2})(?:[-/.](\d{1,2}))?)?")
_LANG = regex.compile(r"[A-Za-z]{2,3}")
_RELATIVE_FIRST = ("last", "this")
_RELATIVE_UNIT = ("week", "month", "year")
_NO_SPACES = regex.compile(r"[\p{Thai}\p{Lao}\p{Khmer}\p{Myanmar}\p{Han}\p{Hiragana}\p{Katakana}]")
_WORD_EDGE = regex.compile(r"[\p{L}\p{M}\p{N}]")
_TYPE_ALIASES = {"md": "markdown", "txt": "text", "doc": "docx", "word": "docx", "mail": "email", "eml": "email",
                 "excel": "xlsx", "powerpoint": "pptx", "ppt": "pptx", "xls": "xlsx", "htm": "html"}


class ChipKind(enum.StrEnum):
    """What one part of a query is."""

    WORD = "word"  # ranked, not required
    PHRASE = "phrase"  # required, as typed (words in this order)
    EXCLUDE = "exclude"  # a word or phrase no result may hold
    OR = "or"  # its neighbours are alternatives
    FILTER = "filter"  # key:value
    DATE = "date"  # a date filter, keyed or relative
    PLAIN = "plain"  # looked like syntax but is not: searched as words


@dataclass(frozen=True)
class Chip:
    """One part of a typed query: its span in the text, what it is, and (for a filter) its key and value."""

    kind: ChipKind
    text: str  # exactly as typed: text[start:end] of the query
    start: int
    end: int
    key: str = ""  # type, folder, lang, tag, file, after, before, date, relative
    value: str = ""  # the filter's value, the phrase's or excluded text, the word
    note: str = ""  # for PLAIN: why it was not read as syntax

    @property
    def label(self) -> str:
        """What the window's chip shows."""
        if self.kind == ChipKind.PLAIN:
            return f"{self.text} (searched as words: {self.note})"
        if self.kind == ChipKind.EXCLUDE:
            return f"not {self.value}"
        return self.text


@dataclass(frozen=True)
class DateRange:
    """Calendar days from `start` (inclusive) to `end` (exclusive); None leaves that side open."""

    start: dt.date | None = None
    end: dt.date | None = None

    def __bool__(self) -> bool:
        return self.start is not None or self.end is not None

    def meet(self, other: DateRange) -> DateRange:
        """Both ranges at once."""
        starts = [d for d in (self.start, other.start) if d is not None]
        ends = [d for d in (self.end, other.end) if d is not None]
        return DateRange(max(starts) if starts else None, min(ends) if ends else None)

    def holds(self, day: dt.date) -> bool:
        return (self.start is None or day >= self.start) and (self.end is None or day < self.end)


@dataclass(frozen=True)
class ParsedQuery:
    """A typed query: free text to rank by, what results must and must not hold, and the filters."""

    text: str
    chips: tuple[Chip, ...] = ()
    free_text: str = ""  # the words and phrases, for ranking (BM25 and the embedder); a final space: none typed
    required: tuple[tuple[str, ...], ...] = ()  # every group must match: one of its phrases (or words)
    excluded: tuple[str, ...] = ()  # no result holds any of these words or phrases
    types: tuple[str, ...] = ()
    folders: tuple[str, ...] = ()
    langs: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    files: tuple[str, ...] = ()  # substrings of the file's path
    dates: DateRange = field(default_factory=DateRange)

    @property
    def has_filters(self) -> bool:
        return bool(self.types or self.folders or self.langs or self.tags or self.files or self.dates)

    @property
    def checks_text(self) -> bool:
        """Whether results need their text checked after ranking (phrases or exclusions)."""
        return bool(self.required or self.excluded)

    def accepts(self, text: str) -> bool:
        """Whether a passage's text holds every required group and none of the excluded words or phrases."""
        folded = fold(text)
        return all(any(contains(folded, fold(p)) for p in group) for group in self.required) and \
            not any(contains(folded, fold(x)) for x in self.excluded)


# ---- parsing ---------------------------------------------------------------------------------------------------


def parse_query(text: str, *, today: dt.date | None = None) -> ParsedQuery:
    """The query `text` as a typed query (never raises)."""
    text = (text or "")[:MAX_QUERY_CHARS]
    today = today or dt.date.today()
    chips = tuple(_chips(text, today))
    return _assemble(text, chips, today)


def without_chip(text: str, chip: Chip) -> str:
    """The query with one chip's part taken out (the parts on either side stay apart)."""
    left, right = _SPACE_AT_END.sub("", text[: chip.start]), _SPACE_AT_START.sub("", text[chip.end :])
    return f"{left} {right}" if left and right else left or right


def _chips(text: str, today: dt.date) -> list[Chip]:
    tokens = [(m.group(0), m.start(), m.end(), m.lastgroup) for m in _TOKEN.finditer(text)]
    out: list[Chip] = []
    i = 0
    while i < len(tokens):
        word, start, end, group = tokens[i]
        if i + 1 < len(tokens) and _relative(word, tokens[i + 1][0], text[end : tokens[i + 1][1]]):
            nxt = tokens[i + 1]
            span = text[start : nxt[2]]
            out.append(Chip(ChipKind.DATE, span, start, nxt[2], "relative", " ".join(span.lower().split())))
            i += 2
            continue
        out.append(_chip(word, start, end, group))
        i += 1
    return out


def _relative(first: str, second: str, between: str) -> bool:
    return first.lower() in _RELATIVE_FIRST and second.lower() in _RELATIVE_UNIT and bool(_SPACE.fullmatch(between))


def _chip(word: str, start: int, end: int, group: str | None) -> Chip:
    if group == "phrase":
        excluded = word.startswith("-")
        inner = " ".join(word[2 if excluded else 1 : -1].split())
        if not inner:
            return Chip(ChipKind.PLAIN, word, start, end, value=word, note="an empty phrase")
        return Chip(ChipKind.EXCLUDE if excluded else ChipKind.PHRASE, word, start, end, value=inner)
    if word == "OR":
        return Chip(ChipKind.OR, word, start, end)
    if word.startswith("-") and len(word) > 1:
        return Chip(ChipKind.EXCLUDE, word, start, end, value=word[1:])
    keyed = _KEY.fullmatch(word)
    if keyed:
        return _filter_chip(word, start, end, keyed.group(1).lower(), _unquote(keyed.group(2)))
    return Chip(ChipKind.WORD, word, start, end, value=word)


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] == '"':
        return " ".join(value[1:-1].split())
    return value


def _filter_chip(word: str, start: int, end: int, key: str, value: str) -> Chip:
    def plain(note: str) -> Chip:
        return Chip(ChipKind.PLAIN, word, start, end, key, value, note)
    if key in ("after", "before", "date"):
        return Chip(ChipKind.DATE, word, start, end, key, value) if period(value) else plain("not a date")
    if key not in ("type", "folder", "lang", "tag", "file"):
        return plain(f"no filter called {key}")
    if not value:
        return plain("no value")
    if key == "type":
        kind = document_type(value)
        return Chip(ChipKind.FILTER, word, start, end, key, kind) if kind else plain("not a document type")
    if key == "lang":
        ok = _LANG.fullmatch(value)
        return Chip(ChipKind.FILTER, word, start, end, key, value.lower()) if ok else plain("not a language code")
    if key == "tag":
        value = value.lstrip("#")
        if not value:
            return plain("no value")
    return Chip(ChipKind.FILTER, word, start, end, key, value)


def document_type(value: str) -> str | None:
    """The stored document type a `type:` value names (a type, a common alias or a file suffix), or None."""
    value = value.lower().lstrip(".")
    if value in DOCUMENT_TYPES:
        return value
    if value in _TYPE_ALIASES:
        return _TYPE_ALIASES[value]
    if not value or not value.isascii() or not value.isalnum():
        return None
    return file_type(PurePath("x." + value))  # a file suffix: pdf, md, py, rst, yaml, ...


# ---- dates -----------------------------------------------------------------------------------------------------


def period(value: str) -> DateRange | None:
    """The calendar period `2024`, `2024-03` or `2024-03-05` names (also with / or .), or None."""
    m = _DAY.fullmatch(value)
    if not m:
        return None
    year, month, day = int(m.group(1)), m.group(2), m.group(3)
    try:
        if month is None:
            return DateRange(dt.date(year, 1, 1), dt.date(year + 1, 1, 1)) if year >= 1 and year < 9999 else None
        start = dt.date(year, int(month), int(day) if day else 1)
        if day:
            return DateRange(start, start + dt.timedelta(days=1))
        return DateRange(start, _next_month(start))
    except (ValueError, OverflowError):
        return None


def _next_month(day: dt.date) -> dt.date:
    return dt.date(day.year + day.month // 12, day.month % 12 + 1, 1)


def relative_period(phrase: str, today: dt.date) -> DateRange:
    """`last week` (Monday to Sunday before this week), `this month`, `last year`, ... around `today`."""
    which, unit = phrase.split()
    if unit == "week":
        start = today - dt.timedelta(days=today.weekday())
        if which == "last":
            start -= dt.timedelta(days=7)
        return DateRange(start, start + dt.timedelta(days=7))
    if unit == "month":
        start = today.replace(day=1)
        if which == "last":
            start = (start - dt.timedelta(days=1)).replace(day=1)
        return DateRange(start, _next_month(start))
    year = today.year - (which == "last")
    return DateRange(dt.date(year, 1, 1), dt.date(year + 1, 1, 1))


def _date_range(chip: Chip, today: dt.date) -> DateRange:
    if chip.key == "relative":
        return relative_period(chip.value, today)
    named = period(chip.value) or DateRange()
    if chip.key == "after":
        return DateRange(named.start, None)
    if chip.key == "before":
        return DateRange(None, named.start)
    return named


# ---- the typed query ------------------------------------------------------------------------------------------


def _assemble(text: str, chips: tuple[Chip, ...], today: dt.date) -> ParsedQuery:
    values: dict[str, list[str]] = {k: [] for k in ("type", "folder", "lang", "tag", "file")}
    dates = DateRange()
    words: list[str] = []
    excluded: list[str] = []
    for chip in chips:
        if chip.kind == ChipKind.FILTER:
            if chip.value not in values[chip.key]:
                values[chip.key].append(chip.value)
        elif chip.kind == ChipKind.DATE:
            dates = dates.meet(_date_range(chip, today))
        elif chip.kind == ChipKind.EXCLUDE:
            excluded.append(chip.value)
        elif chip.kind in (ChipKind.WORD, ChipKind.PHRASE, ChipKind.PLAIN):
            words.append(chip.value if chip.kind != ChipKind.PLAIN else chip.text)
    free_text = " ".join(words)
    last = chips[-1] if chips else None
    if free_text and not (last and last.kind in (ChipKind.WORD, ChipKind.PLAIN) and last.end == len(text)):
        free_text += " "  # the last word is not being typed: searched whole, not as a prefix (text/query.py)
    return ParsedQuery(
        text=text, chips=chips, free_text=free_text, required=_required(chips), excluded=tuple(excluded),
        types=tuple(values["type"]), folders=tuple(values["folder"]), langs=tuple(values["lang"]),
        tags=tuple(values["tag"]), files=tuple(values["file"]), dates=dates)


def _required(chips: tuple[Chip, ...]) -> tuple[tuple[str, ...], ...]:
    """Groups of search parts joined by OR; a group holding a phrase is required (any one of its parts)."""
    groups: list[list[Chip]] = []
    joined = False
    for chip in chips:
        if chip.kind == ChipKind.OR:
            joined = bool(groups)
            continue
        if chip.kind not in (ChipKind.WORD, ChipKind.PHRASE):
            continue  # filters and exclusions neither join nor break an OR
        if joined:
            groups[-1].append(chip)
        else:
            groups.append([chip])
        joined = False
    return tuple(tuple(c.value for c in g) for g in groups if any(c.kind == ChipKind.PHRASE for c in g))


# ---- matching text ---------------------------------------------------------------------------------------------


def fold(text: str) -> str:
    """Text as phrases are matched: case folded, runs of white space as one space."""
    return " ".join(text.casefold().split())


def contains(folded_text: str, folded_phrase: str) -> bool:
    """Whether a (folded) text holds a (folded) phrase as whole words; in scripts written without spaces between
    words (Thai, Chinese, Japanese) any occurrence counts, as there is no word edge to see."""
    if not folded_phrase:
        return True
    at = folded_text.find(folded_phrase)
    while at >= 0:
        end = at + len(folded_phrase)
        if _edge_ok(folded_text, at - 1, folded_phrase[0]) and _edge_ok(folded_text, end, folded_phrase[-1]):
            return True
        at = folded_text.find(folded_phrase, at + 1)
    return False


def _edge_ok(text: str, i: int, inner: str) -> bool:
    if i < 0 or i >= len(text) or not _WORD_EDGE.match(inner) or _NO_SPACES.match(inner):
        return True
    return not _WORD_EDGE.match(text[i]) or bool(_NO_SPACES.match(text[i]))

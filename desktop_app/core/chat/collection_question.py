"""Whether a chat question asks about the library as a whole (count, list or total over documents), and what it
asks for: the operation, the kind of document, the words each one must hold, and the query language's filters.

A small fixed rule, in English: an operation word (`how many`, `number of`, `count`; `list`, `show all`, `which`
/ `what` with a plural; `total`, `sum`, `how much … pay|spend`) next to a kind of document (`invoices`,
`meetings`, `mails`, `documents`, …). Without a kind of document the question is about something inside one
document ("How many people came to the launch?") and goes the usual way. The filters are the query language's
(`tag:budget`, `type:pdf`, `after:2026-03`, `this year`, `last month`) plus the same things said in words:
`#budget`, `tagged budget`, `in March 2026`, `in 2025`, `since January 2026`, `before 2026-05`, `in Q1 2026`.
What is left (`Acme`, `office supplies`) are words every counted document must hold.
"""

from __future__ import annotations

import datetime as dt
import enum
from dataclasses import dataclass, field

import regex

from desktop_app.core.search.query_language import ChipKind, DateRange, parse_query, period


class Operation(enum.StrEnum):
    """What is computed over the matching documents."""

    COUNT = "count"
    LIST = "list"
    TOTAL = "total"


# kind word (singular) -> the words that name it (singular forms; a plural adds s/es), and a document type
KINDS: dict[str, tuple[str, ...]] = {
    "invoice": ("invoice", "bill"), "receipt": ("receipt",), "meeting": ("meeting", "minutes"),
    "mail": ("mail", "email", "e-mail", "message"), "note": ("note",), "contract": ("contract",),
    "report": ("report",), "letter": ("letter",), "document": ("document", "file", "doc"), "pdf": ("pdf",)}
KIND_TYPES = {"mail": "email", "pdf": "pdf"}  # a kind that is a document type, not a word in the title
PAID_KINDS = ("invoice", "receipt")  # "how much did we pay …": the documents that record a payment

_WORD = regex.compile(r"#?[\p{L}\p{N}][\p{L}\p{N}'’&.-]*")
_POSSESSIVE = regex.compile(r"['’]s$", regex.IGNORECASE)  # "Initech's" is Initech, "what's" is what
_LIST_FIRST = frozenset(("list", "enumerate", "show", "give", "name"))
_PAY = frozenset(("pay", "paid", "spend", "spent", "owe", "owed", "billed", "charged"))
_NEAR = 4  # words after "how many" / "which" within which the kind of document is named
_PUNCT = regex.compile(r"[?!,;]|\.(?=\s|$)")  # sentence punctuation: not part of a filter or a word
_TAGGED = regex.compile(r"(?i)\b(?:tagged(?:\s+(?:with|as))?|with\s+(?:the\s+)?tag)\s+#?([\p{L}\p{N}_/-]+)")
_HASHTAG = regex.compile(r"(?<![\p{L}\p{N}&])#([\p{L}_][\p{L}\p{N}_/-]*)")
_MONTHS = ("january february march april may june july august september october november december").split()
_MONTH = r"(?:" + "|".join(_MONTHS) + r"|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?"
_WHEN = (rf"(?:(?P<month>{_MONTH})\s+(?P<my>\d{{4}})|(?P<q>q[1-4])\s+(?P<qy>\d{{4}})"
         rf"|(?P<iso>\d{{4}}(?:-\d{{1,2}}){{0,2}})|(?P<mo>{_MONTH}))")
_DATE_WORDS = regex.compile(rf"(?i)\b(?P<prep>in|during|from|since|after|before|until|on|of)\s+{_WHEN}(?![\w-])")
_BETWEEN = regex.compile(rf"(?i)\bbetween\s+(?P<a>{_WHEN.replace('?P<', '?P<a_')})\s+and\s+"
                         rf"(?P<b>{_WHEN.replace('?P<', '?P<b_')})(?![\w-])")
_STOP = frozenset(
    "a an the of in on at to for from by with and or about all every each any me us we i you they our my your "
    "their there here is are was were be been being do does did done have has had get got gets getting receive "
    "received send sent make made write wrote pay paid spend spent owe charge charged billed come came "
    "how many much what which whose who list show give name enumerate number count total sum add added up "
    "please tell it its this that these those so far overall altogether whole library tagged tag ever yet "
    "than more less over under per since until before after between during dated date dates mention mentions "
    "mentioning mentioned say says said contain contains containing".split())


@dataclass(frozen=True)
class CollectionQuestion:
    """A whole-library question, read: what to compute, over which documents."""

    operation: Operation
    kinds: tuple[str, ...]  # alternatives (KINDS keys); empty or "document": any document
    terms: tuple[str, ...] = ()  # words (as typed) every counted document holds
    query: str = ""  # the query language's filters, to list the documents with
    dates: DateRange = field(default_factory=DateRange)

    @property
    def types(self) -> tuple[str, ...]:
        return tuple(KIND_TYPES[k] for k in self.kinds if k in KIND_TYPES)


def read_question(question: str, today: dt.date | None = None) -> CollectionQuestion | None:
    """The whole-library question `question` asks, or None when it asks something else (the usual path)."""
    today = today or dt.date.today()
    text = " ".join(_PUNCT.sub(" ", question).split())
    rest, filters, dates = _filters(text, today)
    words = [_POSSESSIVE.sub("", w) for w in _WORD.findall(rest) if not w.startswith("#")]
    low = [w.casefold().strip(".'’-") for w in words]
    op = _operation(low)
    if op is None:
        return None
    kinds = _kinds(words)
    if not kinds:
        return None
    terms = tuple(dict.fromkeys(w.strip(".'’-") for w in words if _is_term(w)))
    types = dict.fromkeys(KIND_TYPES[k] for k in kinds if k in KIND_TYPES)
    query = " ".join([*filters, *(f"type:{t}" for t in types)])
    return CollectionQuestion(op, kinds, tuple(t for t in terms if t), query, dates)


def _operation(low: list[str]) -> Operation | None:
    """COUNT when a plural kind of document follows `how many` / `number of` / `count`; TOTAL with `total`, `sum`, `add
    up` or `how much` and a plural kind or a verb of paying (`how much did we pay`); LIST when the question starts
    with `list` / `show` / … and names a kind, or with `which` / `what` and a plural kind right after."""
    pairs = list(zip(low, [*low[1:], ""], strict=False))
    for i, (a, b) in enumerate(pairs):
        if (a, b) in (("how", "many"), ("number", "of")) and _names_kind(low[i + 2 : i + 2 + _NEAR], plural=True):
            return Operation.COUNT  # "how many invoices", not "how many file types" nor "how many minutes"
        if a == "count" and _names_kind(low[i + 1 : i + 1 + _NEAR], plural=True):
            return Operation.COUNT
    totalled = any(w in ("total", "sum", "totals") for w in low) or ("add", "up") in pairs or ("how", "much") in pairs
    if totalled and (_names_kind(low, plural=True) or _PAY.intersection(low)):
        return Operation.TOTAL
    if low and (low[0] in _LIST_FIRST or "list" in low) and _names_kind(low):
        return Operation.LIST
    if low and low[0] in ("which", "what") and _names_kind(low[1:3], plural=True):  # "what invoices …", not
        # "what did the notes say …" (content, the usual path)
        return Operation.LIST
    return None


def _names_kind(words: list[str], plural: bool = False) -> bool:
    return any(kind_of(w) and (not plural or singular(w) != w) for w in words)


def singular(word: str) -> str:
    """A plural's singular, by the few English rules kind words need (`invoices`, `minutes` stays)."""
    low = word.casefold()
    if low.endswith("ies") and len(low) > 4:
        return low[:-3] + "y"
    if low.endswith(("sses", "xes", "ches", "shes")):
        return low[:-2]
    if low.endswith("s") and not low.endswith(("ss", "us", "minutes")) and len(low) > 3:
        return low[:-1]
    return low


def kind_of(word: str) -> str | None:
    """The KINDS key a word names (`invoices` → invoice, `e-mails` → mail, `minutes` → meeting), or None."""
    one = singular(word)
    return next((k for k, names in KINDS.items() if one in names or word.casefold() in names), None)


def _kinds(words: list[str]) -> tuple[str, ...]:
    found = [k for w in words if (k := kind_of(w.strip(".'’-")))]
    if not found and _PAY.intersection(w.casefold() for w in words):
        return PAID_KINDS  # "how much did we pay Acme": what records a payment
    if "meeting" in found and "note" in found:
        found.remove("note")  # "meeting notes" are meetings
    return tuple(dict.fromkeys(found))


def _is_term(word: str) -> bool:
    low = word.casefold().strip(".'’-")
    return bool(low) and low not in _STOP and kind_of(low) is None and not low.isdigit()


def _filters(text: str, today: dt.date) -> tuple[str, list[str], DateRange]:
    """The question less its filters, the filters as query language, and the dates they keep."""
    parsed = parse_query(text, today=today)
    filters: list[str] = []
    dates = parsed.dates
    keep: list[str] = []
    for chip in parsed.chips:
        if chip.kind in (ChipKind.FILTER, ChipKind.DATE):
            filters.append(chip.text)
        else:
            keep.append(chip.text)
    rest = " ".join(keep)
    for pattern in (_TAGGED, _HASHTAG):
        for m in pattern.finditer(rest):
            filters.append(f"tag:{m.group(1)}")
        rest = pattern.sub(" ", rest)
    rest, said = _said_dates(rest, today)
    dates = dates.meet(said)
    if said:
        filters += [f"after:{said.start.isoformat()}"] if said.start else []
        filters += [f"before:{said.end.isoformat()}"] if said.end else []
    return rest, filters, dates


def _said_dates(text: str, today: dt.date) -> tuple[str, DateRange]:
    """Dates said in words: `in March 2026`, `since 2025`, `between Jan 2026 and March 2026`, …"""
    found = DateRange()
    m = _BETWEEN.search(text)
    if m:
        a, b = _when(m, today, "a_"), _when(m, today, "b_")
        if a and b:
            found = DateRange(a.start, b.end)
            text = text[: m.start()] + " " + text[m.end() :]
    for m in list(_DATE_WORDS.finditer(text))[::-1]:
        span = _when(m, today, "")
        if span is None:
            continue
        prep = m.group("prep").casefold()
        if prep in ("since", "after"):
            span = DateRange(span.start if prep == "since" else span.end, None)
        elif prep in ("before", "until"):
            span = DateRange(None, span.start if prep == "before" else span.end)
        found = found.meet(span)
        text = text[: m.start()] + " " + text[m.end() :]
    return text, found


def _when(m: regex.Match, today: dt.date, p: str) -> DateRange | None:
    """The period one matched date expression names (a month without a year: its latest not after today)."""
    g = m.groupdict()
    if g.get(p + "month"):
        return period(f"{g[p + 'my']}-{_month_number(g[p + 'month'])}")
    if g.get(p + "q"):
        first = 3 * int(g[p + "q"][1]) - 2
        start = period(f"{g[p + 'qy']}-{first}")
        end = period(f"{g[p + 'qy']}-{first + 2}")
        return DateRange(start.start, end.end) if start and end else None
    if g.get(p + "iso"):
        return period(g[p + "iso"])
    if g.get(p + "mo"):
        month = _month_number(g[p + "mo"])
        year = today.year if month <= today.month else today.year - 1
        return period(f"{year}-{month}")
    return None


def _month_number(name: str) -> int:
    low = name.casefold().rstrip(".")[:3]
    return next(i for i, full in enumerate(_MONTHS, 1) if full.startswith(low))

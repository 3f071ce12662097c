"""Whether a question's answer spans passages, and how: a comparison of two things, a list of every item, what the
documents say about a topic, or a question through an intermediate thing (a bridge: "the director of the film
that …").

A small fixed rule, in English, read before any passage is chosen (span.py answers it). A comparison names its two
subjects: `compare A and B`, `A vs B`, `difference(s) between A and B`, `how does A differ from B`, `… A or B?`
after `which` / `who` / `what`, `are A and B both …`. A list asks for every item (`list every …`, `list all …`,
`what are all the …`, `name every …`). A topic question asks what the documents say (`what do my notes say about
X`, `summarise what … say about X`). A bridge question holds a
relative clause (`who` / `which` / `that` / `whose` / `where` / `when` after a noun) or a `the <role> of <thing>`
chain: its answer is in a second passage reached through the first. Anything else: None, the single quote.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

import regex


class Shape(enum.StrEnum):
    """How an answer spans passages."""

    COMPARE = "compare"
    LIST = "list"
    ABOUT = "about"
    BRIDGE = "bridge"


@dataclass(frozen=True)
class SpanQuestion:
    """A question whose answer spans passages: its shape, and (for a comparison) its two subjects."""

    shape: Shape
    subjects: tuple[str, ...] = ()
    topic: str = ""  # what a list or topic question is about ("keyboard shortcut", "the launch")


_F = regex.IGNORECASE | regex.VERSION1
_END = r"\s*[?.!]*\s*$"
_COMPARE = [
    regex.compile(r"^\s*(?:please\s+)?(?:compare|contrast)\s+(?P<a>.+?)\s+(?:and|with|to|against|versus|vs\.?)\s+"
                  r"(?P<b>.+?)" + _END, _F),
    regex.compile(r"\b(?:differences?|similarit(?:y|ies)|distinction)\s+between\s+(?P<a>.+?)\s+and\s+(?P<b>.+?)"
                  + _END, _F),
    regex.compile(r"^\s*how\s+(?:does|do|is|are)\s+(?P<a>.+?)\s+(?:differ\s+from|compare\s+(?:to|with)|"
                  r"different\s+from)\s+(?P<b>.+?)" + _END, _F),
    regex.compile(r"^\s*(?P<a>[^,?]+?)\s+(?:vs\.?|versus)\s+(?P<b>[^,?]+?)" + _END, _F),
    # "Which magazine was started first, Arthur's Magazine or First for Women?"
    regex.compile(r"^\s*(?i:which|who|what)\b[^,?]*?(?:,\s*|\s+)(?P<a>(?:(?i:the)\s+)?\p{Lu}[^,?]*?|\d[^,?]*?)\s+or\s+"
                  r"(?P<b>[^,?]+?)" + _END, regex.VERSION1),
    # "Were Scott Derrickson and Ed Wood of the same nationality?", "Are X and Y both …?"
    regex.compile(r"^\s*(?i:are|were|is|was|do|did|does|have|had)\s+(?:both\s+)?(?P<a>(?:the\s+)?\p{Lu}.*?)\s+and\s+"
                  r"(?P<b>(?:the\s+)?\p{Lu}.*?)\s+(?:both|the\s+same|of\s+the\s+same|from\s+the\s+same|in\s+the\s+same"
                  r"|either|each|located|from|of)\b", regex.VERSION1),
]
# "Where are Teide National Park and Garajonay National Park located?", "What occupation do A and B share?": two
# capitalised names joined by "and" in a question that asks what they have in common
_NAME = r"(?:\p{Lu}|\d)[\w'’.&-]*(?:\s+(?:(?:of|the|de|and|for)\s+)?(?:\p{Lu}|\d)[\w'’.&-]*){0,5}"
_PAIR = regex.compile(rf"(?P<a>{_NAME}),?\s+and\s+(?P<b>{_NAME})", regex.VERSION1)
_COMMON = regex.compile(r"\b(?:both|same|share|shared|each|either|in\s+common|differ|different)\b", _F)
_LIST = regex.compile(r"^\s*(?:please\s+)?(?:(?:list|name|enumerate|give\s+me|show\s+me|tell\s+me)\s+(?:all|every|each"
                      r"|the\s+full\s+list\s+of)|what\s+are\s+all(?:\s+the)?|which\s+are\s+all(?:\s+the)?)\s+"
                      r"(?:of\s+)?(?:the\s+|my\s+)?(?P<topic>.+?)" + _END, _F)
_ABOUT = [
    regex.compile(r"\b(?:what|how)\s+(?:do|does|did)\s+(?:my|the|our|these|those|all\s+(?:my|the))?\s*"
                  r"(?:documents?|notes?|files?|library|sources?|papers?|texts?|pages?)\s+(?:\w+\s+)?"
                  r"(?:say|said|tell|mention|know)\s+(?:me\s+)?(?:about|on|of|regarding)\s+(?P<topic>.+?)" + _END, _F),
    # "Summarise what the notes say about the launch" (not "Summarise X" or "Tell me everything about X": those ask
    # the model to write, and go the usual way)
    regex.compile(r"^\s*(?:please\s+)?(?:summari[sz]e|sum\s+up)\s+what\s+.+?\s+(?:say|said|says)\s+(?:about|on)\s+"
                  r"(?P<topic>.+?)" + _END, _F),
]
# A noun followed by a relative word: "the woman who portrayed", "the film that", "the city where"
_RELATIVE = regex.compile(r"\b\p{L}{3,}\s+(?:who|whom|whose|which|that|where|when)\s+\p{L}", _F)
# "The director of the film X is …" (the chain is the subject), "the mother of the director of film X"
_CHAIN = regex.compile(r"^(?i:the)\s+(?:\p{Ll}+\s+){0,2}(?:of|for|by)\s+|\b(?:of|for|by)\s+the\s+(?:\p{Ll}+\s+){0,2}"
                       r"(?:of|for|by)\s+", regex.VERSION1)
_LEADING = regex.compile(r"^(?:the|a|an|my|our|both)\s+", _F)


def read_span_question(question: str) -> SpanQuestion | None:
    """The way `question`'s answer spans passages, or None (one quote answers it)."""
    text = " ".join(question.split())
    for pattern in _COMPARE:
        m = pattern.search(text)
        if m and _subject(m["a"]) and _subject(m["b"]):
            return SpanQuestion(Shape.COMPARE, (_subject(m["a"]), _subject(m["b"])))
    m = _PAIR.search(text)
    if m and _COMMON.search(text) and _subject(m["a"]) and _subject(m["b"]):
        return SpanQuestion(Shape.COMPARE, (_subject(m["a"]), _subject(m["b"])))
    m = _LIST.search(text)
    if m:
        return SpanQuestion(Shape.LIST, topic=_subject(m["topic"]))
    for pattern in _ABOUT:
        m = pattern.search(text)
        if m and _subject(m["topic"]):
            return SpanQuestion(Shape.ABOUT, topic=_subject(m["topic"]))
    body = regex.sub(r"^\s*\p{L}+\s+", "", text)  # the question word itself is no relative clause
    if _RELATIVE.search(body) or _CHAIN.search(text):
        return SpanQuestion(Shape.BRIDGE)
    return None


def _subject(text: str) -> str:
    """A subject as said, without a leading article and trailing punctuation ("" when nothing is left)."""
    return _LEADING.sub("", text.strip(" \t?.!,;:\"'“”")).strip()

"""A deterministic extractor of explicit self-statements, for chat models of any size.

English: "remember that …", "my X is Y", "the X is Y" (when Y looks like a value: a number, a path, a link),
"I prefer X (for Y)", "always answer in …", "I use X for Y", "I live in / work at / work as …", "call me X";
a leading "actually," / "no," / "correction:" marks a correction (the store supersedes the old value).
Thai (จำไว้ว่า …, X ของฉันคือ Y) and Arabic (تذكر أن …) "remember" statements become notes. Questions, negations and
hypotheticals are left alone. Never raises on any string.
"""

from __future__ import annotations

from dataclasses import dataclass

import regex

from desktop_app.core.text.fields import analyze

MAX_VALUE_CHARS = 160
MAX_SENTENCE_CHARS = 600
MAX_SCAN_CHARS = 8000
LANGUAGES = frozenset(
    "english british american french german spanish italian portuguese dutch thai arabic chinese japanese korean "
    "russian hindi polish swedish turkish vietnamese indonesian hebrew greek".split())

_SENTENCE = regex.compile(r"[^.!?\n。！？]+[.!?。！？]?")
_CORRECTION = regex.compile(r"^(?:actually|no|nope|correction|sorry|update|oh|wait|ok|okay)\b[,:;!]?\s+", regex.I)
_REMEMBER = regex.compile(
    r"^(?:please\s+)?(?:remember|note|don'?t forget|keep in mind)\s*(?:that\s+|:\s*)?(?P<rest>.+)", regex.I)
_REMEMBER_OTHER = regex.compile(r"^\s*(?:จำไว้ว่า|ช่วยจำว่า|จำไว้นะว่า|تذكّ?ر\s+أنّ?|تذكّ?ري\s+أنّ?)\s*(?P<rest>.+)")
_THAI_MY = regex.compile(r"^\s*(?P<key>[^\s]{1,30}?)ของ(?:ฉัน|ผม|เรา)\s*(?:คือ|เป็น|ชื่อ)\s*(?P<value>.+)")
_CUT = regex.compile(
    r"\s+(?:because|but|so that|since|although|though|which|and i|and my)\s+|[,;:]\s+(?:but|so)\s+|"
    r",\s*(?:by the way|btw|though|for now|please|thanks|thank you)\b", regex.I)
_TRAILING = regex.compile(r"\s+(?:now|these days|anymore|instead|from now on|too)$", regex.I)
_NEGATED = regex.compile(r"^(?:not|no longer|never)\b", regex.I)
_HYPOTHETICAL = regex.compile(r"\b(?:if|would|could|might|maybe|perhaps|wonder)\b", regex.I)
_VALUE_LIKE = regex.compile(r"\d|[/\\@]|://|\b[A-Z]{2,}-\d+|`")

_RULES: tuple[tuple[str, regex.Pattern[str]], ...] = (
    ("my", regex.compile(r"^(?:and\s+)?my\s+(?P<key>[\w' -]{1,48}?)\s+(?:is|are|was|=|:)\s+(?:now\s+|still\s+)?"
                         r"(?P<value>.+)$", regex.I)),
    ("the", regex.compile(r"^(?:and\s+)?(?:the|our)\s+(?P<key>[\w' -]{1,48}?)\s+(?:is|are|=|:)\s+(?:now\s+)?"
                          r"(?P<value>.+)$", regex.I)),
    ("prefer", regex.compile(r"^i\s+(?:really\s+)?prefer\s+(?P<value>.+?)(?:\s+for\s+(?P<key>.+))?$", regex.I)),
    ("always", regex.compile(r"^(?:please\s+)?(?P<mode>always|never)\s+(?P<verb>answer|reply|respond|write|talk|speak|"
                             r"use|call me|give me|show me|include|format)\s*(?:to me\s+)?(?P<value>.+)$", regex.I)),
    ("use", regex.compile(r"^i\s+(?:always\s+|mostly\s+)?use\s+(?P<value>[\w .+#-]{1,40}?)\s+(?:for|as my)\s+"
                          r"(?P<key>.+)$", regex.I)),
    ("live", regex.compile(r"^i\s+(?:live|am based|'m based)\s+in\s+(?P<value>.+)$", regex.I)),
    ("moved", regex.compile(r"^i\s+(?:just\s+|recently\s+)?moved\s+to\s+(?P<value>.+)$", regex.I)),
    ("work_at", regex.compile(r"^i\s+work\s+(?:at|for)\s+(?P<value>.+)$", regex.I)),
    ("work_as", regex.compile(r"^i\s+work\s+as\s+(?:an?\s+)?(?P<value>.+)$", regex.I)),
    ("name", regex.compile(r"^(?:please\s+)?call\s+me\s+(?P<value>.+)$", regex.I)),
)
_FIXED_KEYS = {"live": ("location", "person"), "moved": ("location", "person"), "work_at": ("employer", "work"),
               "work_as": ("occupation", "work"), "name": ("name", "person")}


@dataclass(frozen=True)
class Statement:
    """A fact someone stated about themselves or their work. `explicit`: they asked for it to be remembered."""

    key: str
    value: str
    category: str = ""
    explicit: bool = False
    correction: bool = False


def slug(words: str) -> str:
    """A fact key from words: lower case, articles and possessives dropped, joined by "_" (My Dog's name → dog_name)."""
    text = regex.sub(r"['’]s\b", "", words.casefold())
    parts = [w for w in regex.findall(r"[\w]+", text) if w not in {"my", "the", "our", "a", "an", "of"}]
    return "_".join(parts)[:60]


def _value(raw: str) -> str:
    value = _TRAILING.sub("", _CUT.split(raw, maxsplit=1)[0].rstrip(".!;:, "))
    return value.strip().strip("\"'“”«»").rstrip(".!;:, ")[:MAX_VALUE_CHARS].strip()


def extract_statements(text: str) -> list[Statement]:
    """Every explicit self-statement in `text` (one message), in order."""
    if not isinstance(text, str):
        return []
    out: list[Statement] = []
    for m in _SENTENCE.finditer(text[:MAX_SCAN_CHARS]):
        found = _sentence(m.group(0).strip()[:MAX_SENTENCE_CHARS])
        if found is not None and all((s.key, s.value) != (found.key, found.value) for s in out):
            out.append(found)
    return out


def _sentence(sentence: str) -> Statement | None:
    if not sentence or sentence.endswith(("?", "？")):
        return None
    other = _REMEMBER_OTHER.match(sentence) or _THAI_MY.match(sentence)
    if other is not None:
        return _other_script(other)
    correction = _CORRECTION.match(sentence) is not None
    body = _CORRECTION.sub("", sentence, count=1)
    remember = _REMEMBER.match(body)
    if remember is not None:
        rest = remember.group("rest").strip()
        found = _rules(_CORRECTION.sub("", rest, count=1), explicit=True)
        if found is not None:
            return Statement(found.key, found.value, found.category, True, correction)
        note = _value(rest)
        return Statement("note_" + _key_from_tokens(note), note, "note", True) if note else None
    found = _rules(body, explicit=False)
    if found is None or _HYPOTHETICAL.search(sentence):
        return None
    return Statement(found.key, found.value, found.category, False, correction)


def _rules(body: str, explicit: bool) -> Statement | None:
    body = body.rstrip(".!。！ ")
    for name, pattern in _RULES:
        m = pattern.match(body)
        if m is None:
            continue
        found = _apply(name, m, explicit)
        if found is not None:
            return found
    return None


def _apply(name: str, m: regex.Match[str], explicit: bool) -> Statement | None:
    raw = m.group("value")
    if _NEGATED.match(raw):
        return None
    value = _value(raw)
    if not value:
        return None
    if name in _FIXED_KEYS:
        key, category = _FIXED_KEYS[name]
        return Statement(key, value, category)
    if name == "always":
        return _instruction(m.group("mode").lower(), m.group("verb").lower(), value)
    if name == "prefer":
        target = m.group("key")
        key = slug(target) if target else "preference_" + slug(" ".join(value.split()[:3]))
        return Statement(key, value, "preference") if key.strip("_") else None
    key = slug(m.group("key"))
    if not key or len(key.split("_")) > 5:
        return None
    if name == "the" and not explicit and not _VALUE_LIKE.search(value):
        return None  # "the weather is nice": only value-like statements about "the X" are facts unprompted
    return Statement(key, value, "preference" if key.startswith(("favourite", "favorite", "preferred")) else "")


def _instruction(mode: str, verb: str, value: str) -> Statement:
    first = value.split()[0].casefold() if value.split() else ""
    if mode == "always" and verb in {"answer", "reply", "respond", "write", "talk", "speak"} and \
            value.casefold().startswith("in ") and value.split()[1:2] and value.split()[1].casefold() in LANGUAGES:
        return Statement("answer_language", value[3:].strip(), "instruction")
    if mode == "always" and verb == "call me":
        return Statement("name", value, "person")
    key = f"{mode}_{slug(verb)}_" + slug(" ".join(value.split()[:3]) if first not in {"in", "with"} else
                                         " ".join(value.split()[1:4]))
    return Statement(key.strip("_"), f"{mode} {verb} {value}", "instruction")


def _other_script(m: regex.Match[str]) -> Statement | None:
    if "key" in m.groupdict() and m.group("key"):
        value = _value(m.group("value"))
        key = _key_from_tokens(m.group("key"))
        return Statement(key, value) if key and value else None
    note = _value(m.group("rest"))
    return Statement("note_" + _key_from_tokens(note), note, "note", True) if note else None


def _key_from_tokens(text: str, words: int = 4) -> str:
    """A key from the first few index tokens of any script (Thai has no spaces to cut at)."""
    fields = analyze(text)
    tokens = [t for f in ("words", "stems") for t in fields[f]][:words]
    return "_".join(tokens)[:60] or "note"

"""A whole-library answer as the person sees it: one summary line, then a Markdown table whose every row cites its
document ([n] → path and passage), then the total. Made without the model: the numbers are computed
(collection.py), and the words around them are fixed, so the small bundled model never miscounts or misadds.

`collection_step` is the step ChatService.ask takes first: a ChatAnswer (stored in the chat like any other) when
the question is a whole-library one, else None and the usual path answers.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

import regex

from desktop_app.core.chat.answer.context import Passage
from desktop_app.core.chat.answer.gate.citations import Citation
from desktop_app.core.chat.answer.memory_step import acknowledged
from desktop_app.core.chat.answer.result import ChatAnswer
from desktop_app.core.chat.answer.span.prose import SETTINGS_MODEL, AskModel
from desktop_app.core.chat.answer.span.step import Searched, span_step
from desktop_app.core.chat.collection import Collected, CollectionRow, collect
from desktop_app.core.chat.collection_question import CollectionQuestion, Operation, read_question
from desktop_app.core.chat.collection_values import money
from desktop_app.core.chat.sessions import ChatSessions
from desktop_app.core.log import get_logger
from desktop_app.core.text.markup import strip_markup

log = get_logger("chat")

_MD_SPECIAL = regex.compile(r"([\\`*_\[\]<>#|~])")
_NOUN = {"invoice": "invoice", "receipt": "receipt", "meeting": "meeting", "mail": "mail", "note": "note",
         "contract": "contract", "report": "report", "letter": "letter", "document": "document", "pdf": "PDF"}


def collection_step(chats: ChatSessions, question: str, chat_id: int, scope: Sequence[str] = (),
                    today: dt.date | None = None) -> ChatAnswer | None:
    """The whole-library answer to `question`, stored in chat `chat_id`; None when it is not such a question."""
    read = read_question(question, today)
    if read is None:
        return None
    found = collect(chats.store, read, scope=scope, today=today)
    answer = chat_answer(found, chat_id)
    chats.add_exchange(chat_id, question, answer.text, answer.citations, answer.passages)
    log.info("chat %d: whole-library %s over %d documents read: %d rows", chat_id, read.operation, found.listed,
             found.count)
    return answer


def chat_answer(found: Collected, chat_id: int) -> ChatAnswer:
    """The answer value: the Markdown table as its text, one citation and one passage per row."""
    text = markdown(found)
    citations = tuple(Citation(n, r.path, r.page, r.chunk_id, r.evidence, r.place)
                      for n, r in enumerate(found.rows, 1))
    passages = tuple(Passage(n, r.passage, r.path, r.page, r.chunk_id, 1.0, place=r.place)
                     for n, r in enumerate(found.rows, 1))
    return ChatAnswer(text=text, chat_id=chat_id, citations=citations, passages=passages, raw_text=text,
                      generation_shown=False, rows=tuple(rows_dict(found)))


def markdown(found: Collected) -> str:
    """The summary line, the cited table (when any document matched) and, for a total, the sums."""
    q = found.question
    parts = [summary_line(found)]
    if found.rows:
        parts.append(table(found.rows, q.operation == Operation.TOTAL))
    if q.operation == Operation.TOTAL and found.rows:
        parts.append(total_line(found))
    return "\n\n".join(parts)


def summary_line(found: Collected) -> str:
    q = found.question
    what = _described(q)
    read = f"{found.listed} document{'s' * (found.listed != 1)} read"
    if found.truncated:
        read += ", the newest only: narrow the question to read them all"
    if not found.rows:
        return f"No {_nouns(q, 2)} found{what} ({read})."
    head = f"**{found.count}** {_nouns(q, found.count)}"
    return f"{head}{what} ({read})."


def _described(q: CollectionQuestion) -> str:
    parts = []
    if q.terms:
        parts.append("mentioning " + " and ".join(f"“{_cell(t)}”" for t in q.terms))
    tags = [p[4:] for p in q.query.split() if p.startswith("tag:")]
    if tags:
        parts.append("tagged " + " or ".join(f"\\#{_cell(t)}" for t in tags))
    if q.dates.start and q.dates.end:
        parts.append(f"dated {q.dates.start.isoformat()} to {(q.dates.end - dt.timedelta(days=1)).isoformat()}")
    elif q.dates.start:
        parts.append(f"dated {q.dates.start.isoformat()} or later")
    elif q.dates.end:
        parts.append(f"dated before {q.dates.end.isoformat()}")
    return (" " + ", ".join(parts)) if parts else ""


def _nouns(q: CollectionQuestion, n: int) -> str:
    names = [_NOUN.get(k, k) + ("s" if n != 1 else "") for k in q.kinds] or ["documents" if n != 1 else "document"]
    return " or ".join(names)


def table(rows: Sequence[CollectionRow], amounts: bool) -> str:
    """The Markdown table: one row per document, each with its citation marker."""
    head = ["", "Date", "Document", *(["Amount"] if amounts else []), "Quoted"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for n, r in enumerate(rows, 1):
        name = _cell(r.path.replace("\\", "/").rsplit("/", 1)[-1])
        cells = [f"[{n}]", r.date or "—", name, *([_cell(r.amount.shown()) if r.amount else "—"] if amounts else []),
                 _cell(" ".join(strip_markup(r.evidence)[0].split()))]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def total_line(found: Collected) -> str:
    sums = " + ".join(money(v, c) for c, v in found.sums.items()) or "nothing to add"
    counted = found.count - found.without_amount
    note = (f"; {found.without_amount} without a single total amount, not added" if found.without_amount else "")
    currencies = " (currencies are never added together)" if len(found.sums) > 1 else ""
    return f"**Total: {sums}** over {counted} {_nouns(found.question, counted)}{note}{currencies}."


def _cell(text: str) -> str:
    """Text shown literally inside a Markdown table cell."""
    return _MD_SPECIAL.sub(r"\\\1", text)


def rows_dict(found: Collected) -> list[dict[str, Any]]:
    """The rows as JSON-ready dictionaries (n, path, title, date, amount, currency, evidence)."""
    return [{"n": n, "path": r.path, "title": r.title, "date": r.date, "page": r.page, "chunk_id": r.chunk_id,
             "amount": str(r.amount.value) if r.amount else None, "currency": r.amount.currency if r.amount else None,
             "evidence": r.evidence} for n, r in enumerate(found.rows, 1)]


def early_answer(service: Any, chat_id: int, question: str, history_turns: int,
                 scope: Sequence[str] | None, model: AskModel = SETTINGS_MODEL) -> ChatAnswer | Searched | None:
    """What ChatService.ask answers before any retrieval, without the model: a remember request's acknowledgement
    (memory_step.acknowledged), else a whole-library question's table when `service.whole_library` is on, else
    quotes from several documents when the question's answer spans passages (span/step.py; `model`, the ask's, writes
    prose over them when it is larger than the bundled one), when the answer may come from the documents (`scope`
    None: asked without them; the context_enabled setting off). A span question that falls through hands its search
    to the usual path (`Searched`)."""
    ack = acknowledged(service._memory, service.store, chat_id, question, history_turns)
    if ack is not None or scope is None or not service._get_settings().context_enabled:
        return ack  # (answering from the documents is off: the model alone answers, as it always has)
    table = collection_step(service.store, question, chat_id, scope) if service.whole_library else None
    return table or span_step(service, chat_id, question, history_turns, scope, model)  # quotes from several documents

"""How one answer reads in the transcript: the quote first (verbatim, cited, with its place), then the model's
answer or a "Show the model's answer" link, or that the documents do not cover the question with the closest
passages. Pure functions over ChatAnswer values, returning Markdown for chat_markdown.answer_markdown (the
passage text is escaped, so a quote is always shown literally). No Qt here, so it is tested without a window.
"""

from __future__ import annotations

import re

from desktop_app.core.chat.conversation import Ending, Exchange
from desktop_app.core.library_tools import NOT_COVERED
from desktop_app.ui.chat.markdown import ShownExchange, escape_markdown

TOGGLE_SCHEME = "toggle"
SHOW_LABEL = "Show the model's answer"
HIDE_LABEL = "Hide the model's answer"
WRITING = "The model is writing its answer…"


def toggle_url(answer: int) -> str:
    return f"{TOGGLE_SCHEME}:{answer}"


def parse_toggle_url(url: str) -> int | None:
    """The answer index of a toggle link, or None for any other link."""
    m = re.fullmatch(rf"{TOGGLE_SCHEME}:(\d+)", url)
    return int(m.group(1)) if m else None


def quote_markdown(quote) -> str:
    """The quote as a block quote: its text escaped, then its citation marker and where it is."""
    body = escape_markdown(" ".join(quote.text.split()))
    name = escape_markdown(quote.source.replace("\\", "/").rsplit("/", 1)[-1] or quote.source)
    where = f", {escape_markdown(quote.where)}" if quote.where else ""
    return f"> {body} [{quote.n}]\n\n*From {name}{where}*"


def hidden_note(answer) -> str:
    reason = {"small model": "the model is small", "not supported by a passage": "its answer copies no passage",
              "cites another passage than the quote's": "the model's answer is taken from another passage"}
    because = reason.get(answer.hidden_because, answer.hidden_because)
    return f"*The quote is the answer ({escape_markdown(because)}).*" if because else ""


def answer_body(index: int, answer, expanded: bool) -> str:
    """The Markdown of a finished answer (`expanded`: the hidden model's answer is shown), then its hint (a
    question in a language the library's search model cannot read: core/chat/answer/language_hint.py)."""
    body = _answer_body(index, answer, expanded)
    return f"{body}\n\n*{escape_markdown(answer.hint)}*" if answer.hint else body


def _answer_body(index: int, answer, expanded: bool) -> str:
    if answer.abstained or (answer.refused and answer.text.startswith(NOT_COVERED)):
        return escape_markdown(answer.text)
    if answer.quote is None:
        return answer.text
    parts = [answer.text if answer.several else quote_markdown(answer.quote)]  # several: prose above the bullets
    if answer.generation_shown and answer.generation:
        parts += [] if answer.several else [answer.generation]
    elif answer.generation:
        parts.append(hidden_note(answer))
        label = HIDE_LABEL if expanded else SHOW_LABEL
        parts.append(f"[{label}]({toggle_url(index)})")
        if expanded:
            parts.append(f"**The model's answer:** {answer.generation}")
    return "\n\n".join(p for p in parts if p)


def streaming_body(quote, streamed: str) -> str:
    """The Markdown of an answer still streaming: the quote (once chosen), then what the model wrote so far."""
    if quote is None:
        return streamed
    return "\n\n".join([quote_markdown(quote), f"*{WRITING}*", streamed] if streamed.strip() else
                       [quote_markdown(quote), f"*{WRITING}*"])


def shown_exchange(index: int, exchange: Exchange) -> ShownExchange:
    """What the transcript shows of a Conversation's exchange `index`: a finished answer's quote and answer, or
    what streamed so far (also when asking failed), or a finished text (a summary, a past chat's answer)."""
    if exchange.answer is not None:
        body = answer_body(index, exchange.answer, exchange.expanded)
    elif exchange.ending in (Ending.STREAMING, Ending.FAILED):
        body = streaming_body(exchange.quote, exchange.streamed)
    else:
        body = exchange.text
    return ShownExchange(exchange.question, body, exchange.note)

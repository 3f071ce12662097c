"""What an answer is made of, as handed to the CLI and the UI: frozen, safe to pass across threads."""

from __future__ import annotations

from dataclasses import dataclass

from desktop_app.core.chat.answer.context import Passage
from desktop_app.core.chat.answer.gate.citations import Citation
from desktop_app.core.chat.answer.quote.selector import Quote


@dataclass(frozen=True)
class ChatToken:
    """One streamed piece of an answer (handed to on_token; safe to pass across threads)."""

    chat_id: int
    index: int
    text: str


@dataclass(frozen=True)
class ChatAnswer:
    """A finished (or cancelled) answer: what the person is shown (`text`), the quote it rests on, the model's
    own answer (`generation`, shown or kept behind "Show the model's answer"), citations and the passages sent."""

    text: str  # exactly what the person is shown as the answer; markers that name no passage removed
    chat_id: int
    citations: tuple[Citation, ...]
    passages: tuple[Passage, ...]
    cancelled: bool = False
    refused: bool = False  # the model was not asked: nothing relevant found, or no passage answers (abstained)
    check_score: float | None = None  # the check model's yes minus no for the quote (gate/check.py), when one read it
    raw_text: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    reused_prefix_tokens: int = 0
    history_turns: int = 0
    ttft_s: float | None = None
    total_s: float = 0.0
    model: str = ""
    quote: Quote | None = None
    generation: str = ""  # the model's answer as cited ("" when it was not asked)
    generation_shown: bool = True  # False: the quote is the answer, the generation waits behind a toggle
    hidden_because: str = ""  # why the generation is hidden: "small model", "not supported by a passage", …
    generation_citations: tuple[Citation, ...] = ()
    abstained: bool = False  # the quote selector (and the reranker, when loaded) said no passage answers
    quote_s: float | None = None  # seconds from the question to the quote being handed out
    memory: tuple[dict, ...] = ()  # what conversation memory put in the prompt (the fact list, recalled items)
    rows: tuple[dict, ...] = ()  # a whole-library answer's table rows (core/chat/collection_answer.py), JSON-ready
    several: bool = False  # quotes from several passages (span/step.py): `text` is the whole answer, prose and bullets
    hint: str = ""  # why the library found little for a question in its language (language_hint.py), "" when none

"""A larger model's prose over an answer of quotes from several passages (span.py), each sentence attributed.

The rule is the single quote's (shown.py): with a small model (the bundled one, under SMALL_MODEL_BYTES) the quotes
are the answer and the model is not asked, as before. A larger model is asked for a short answer written from
exactly the quotes shown: the prompt carries each cited passage's quoted units under its [n] label (the numbers the
bullets cite) and the question, nothing else of the documents, and every message is defused (template_tokens.py),
so a document holding `<|im_start|>` stays data. What the model writes is cited the way the single quote's
generation is (assemble.cite: markers naming no quote dropped, markers the sentence's words do not support moved or
dropped by verify.py); then each sentence must rest on a quote: share with it a run of at least VERIFY_RUN tokens
(verify.py's rule for a marker) that holds a word the question does not (a sentence that restates the question
rests on nothing). It keeps the quotes it cites that it rests on, or is cited by the one it shares the longest
such run with; a sentence resting on no quote is dropped. The sentences kept are shown above the quotes; the quotes
stay, verbatim, under them.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass

from desktop_app.core.chat.answer.assemble import cite
from desktop_app.core.chat.answer.context import Message, Passage
from desktop_app.core.chat.answer.gate.attribution import longest_common_run, sentences
from desktop_app.core.chat.answer.gate.citations import MARKER, cited_numbers, unmarked
from desktop_app.core.chat.answer.gate.verify import VERIFY_RUN
from desktop_app.core.chat.answer.prompt import ANSWER_STOPS, EXAMPLE_PASSAGES, PromptStyle
from desktop_app.core.chat.answer.shown import tokens
from desktop_app.core.chat.answer.span.compose import SpanAnswer
from desktop_app.core.chat.runtime.base import ChatRuntime, Generation
from desktop_app.core.chat.runtime.template_tokens import defuse_messages

PROSE_TOKENS = 192  # at most this many tokens of prose: three short sentences, well under answer_reserve_tokens
SPAN_SYSTEM = (
    "You answer questions using only the numbered quotes the user gives you. Answer in at most three short "
    "sentences with words from the quotes, and after each sentence put the number of the quote it uses in square "
    "brackets, like [1]. Say nothing the quotes do not say."
)
SPAN_STYLE = PromptStyle("span", SPAN_SYSTEM, header="Quotes from my documents:", stop=ANSWER_STOPS,
                         attribute=True, max_sentences=3)
EXAMPLE_QUESTION = "Compare green tea and coffee."
EXAMPLE_ANSWER = ("Green tea is made from the leaves of the tea plant and was first grown in China [1]. Coffee beans "
                  "are the roasted seeds of the coffee plant, and most coffee is grown in Brazil [2].")
# "… in China. [1]": a marker after the full stop belongs to the sentence before it
_TRAILING_MARKER = re.compile(r"([.!?]+)(\s*" + MARKER.pattern + r")")


@dataclass(frozen=True)
class AskModel:
    """The model an ask uses (its file, or None for the settings' one), its token limit and what stops it."""

    model_path: str | None = None
    max_tokens: int | None = None
    cancel: threading.Event | None = None


SETTINGS_MODEL = AskModel()  # the settings' model, its token limit, no way to stop it


@dataclass(frozen=True)
class Prose:
    """What the model wrote over the quotes: the sentences kept (each cited), and the whole answer as cited."""

    text: str  # the sentences that rest on a quote, each with its markers ("" when none does)
    generation: str  # the model's answer as cited, every sentence
    dropped: int  # sentences resting on no quote
    gen: Generation


def quote_passages(answer: SpanAnswer) -> list[Passage]:
    """The quotes as the model reads them: one passage per number the bullets cite, holding only its quoted units
    (one a line), with the cited passage's source and place for its label."""
    by_n = {p.n: p for p in answer.passages}
    units: dict[int, list[str]] = {}
    for n, text in answer.quotes:
        units.setdefault(n, []).append(" ".join(text.split()))
    return [Passage(n, "\n".join(texts), by_n[n].source, by_n[n].page, by_n[n].chunk_id, place=by_n[n].place)
            for n, texts in units.items() if n in by_n]


def prose_messages(question: str, passages: Sequence[Passage], style: PromptStyle = SPAN_STYLE) -> list[Message]:
    """The prompt: the system prompt, one worked example, then the quotes and the question; every text defused."""
    messages: list[Message] = [
        {"role": "system", "content": style.system},
        {"role": "user", "content": style.user_message(EXAMPLE_QUESTION, EXAMPLE_PASSAGES)},
        {"role": "assistant", "content": EXAMPLE_ANSWER},
        {"role": "user", "content": style.user_message(question, passages)},
    ]
    return defuse_messages(messages)


def new_run(sentence: str, quote: str, asked: frozenset[str] = frozenset()) -> int:
    """The longest run of tokens `sentence` (markers left out) shares with `quote` that holds a token the question
    does not (`asked`, its tokens): the question's own words found in a quote prove nothing the model wrote
    ("The woman who portrayed Corliss Archer in the film Kiss and Tell was held by …" shares "Kiss and Tell" with the
    film's quote, and says nothing it holds)."""
    return longest_common_run(tokens(unmarked(sentence)), tokens(quote), asked)


def rest_on(sentence: str, passages: Sequence[Passage], question: str = "", run: int = VERIFY_RUN) -> str | None:
    """`sentence` cited by the quotes it rests on, or None when it rests on none. A quote supports it when they share
    a run of at least `run` tokens (verify.py's rule) holding a token the question does not (`new_run`); the quotes
    it cites that support it are kept, else the one sharing the longest such run (the earliest on ties) cites it.
    The markers go at the end of the sentence."""
    bare = re.sub(r"[ \t]+([.,;:!?])", r"\1", MARKER.sub("", sentence)).strip()
    need = max(1, min(run, len(tokens(bare))))
    asked = frozenset(tokens(question))
    runs = {p.n: new_run(bare, p.content, asked) for p in passages}
    kept = [n for n in cited_numbers(sentence) if runs.get(n, 0) >= need]
    best = max(runs, key=lambda n: (runs[n], -n), default=None)
    if not kept and best is not None and runs[best] >= need:
        kept = [best]
    if not kept:
        return None
    end = len(bare) - len(bare.rstrip(".!?"))
    return f"{bare[:len(bare) - end].rstrip()} [{', '.join(map(str, kept))}]{bare[len(bare) - end:]}"


def attributed(raw: str, passages: Sequence[Passage], question: str = "") -> tuple[str, str, int]:
    """(the sentences resting on a quote, each cited; the whole answer as cited; sentences dropped)."""
    generation, _ = cite(raw, passages, SPAN_STYLE)
    generation = _TRAILING_MARKER.sub(lambda m: f"{m.group(2)}{m.group(1)}", generation)
    kept: list[str] = []
    dropped = 0
    for start, end in sentences(generation):
        sentence = generation[start:end].strip()
        if not tokens(unmarked(sentence)):
            continue  # a stray marker alone
        marked = rest_on(sentence, passages, question)
        if marked is None:
            dropped += 1
        else:
            kept.append(marked)
    return " ".join(kept), generation, dropped


def write_prose(runtime: ChatRuntime, question: str, answer: SpanAnswer, *, max_tokens: int, temperature: float,
                cancel: threading.Event | None = None) -> Prose | None:
    """The model's prose over `answer`'s quotes, or None when not even one quote fits the model's window."""
    passages = quote_passages(answer)
    max_tokens = min(max_tokens, PROSE_TOKENS)
    messages = prose_messages(question, passages)
    while runtime.prompt_tokens(messages) + max_tokens > runtime.n_ctx:
        if len(passages) <= 1:
            return None
        passages = passages[:-1]  # the last document's quotes go first: the first quote answers the question
        messages = prose_messages(question, passages)
    gen = runtime.generate(messages, max_tokens=max_tokens, temperature=temperature, cancel=cancel,
                           stop=SPAN_STYLE.stop, max_sentences=SPAN_STYLE.max_sentences)
    text, generation, dropped = attributed(gen.text, passages, question)
    return Prose(text, generation, dropped, gen)

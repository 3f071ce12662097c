"""Compaction that keeps meaning: turns that no longer fit the window become a summary in the system prompt.

Two ways to summarise: extractive (each old question with the first sentence of its answer; when they do
not all fit, the most repetitive lines go first; pure, instant, never invents anything) or by the model itself.
bench/chat.py --compaction measured both on SmolLM2-135M: the extractive summary kept far more of the facts (see the
README), so models below MODEL_SUMMARY_MIN_BYTES use it; larger models write their own summary.
"""

from __future__ import annotations

from collections.abc import Sequence

from desktop_app.core.chat.answer.context import CountTokens, truncate_to_tokens
from desktop_app.core.chat.answer.focus import key_words
from desktop_app.core.chat.answer.gate.attribution import sentences
from desktop_app.core.chat.runtime.base import ChatRuntime
from desktop_app.core.types import ChatBackend, Turn

ANSWER_WORDS = 40  # the first sentence of an answer, at most this many words
MODEL_SUMMARY_MIN_BYTES = 1_000_000_000  # about a 1.5B-parameter model at 4 bits; SmolLM2-135M is ~100 MB
MODEL_PROMPT = (
    "Summarise this conversation in a few sentences. Keep every name, number and fact that was "
    "asked or answered.\n\n{text}"
)


def first_sentence(text: str, max_words: int = ANSWER_WORDS) -> str:
    """The first sentence of `text`, cut to `max_words` words."""
    spans = sentences(text.strip())
    first = text.strip()[spans[0][0] : spans[0][1]].strip() if spans else ""
    words = first.split()
    return " ".join(words[:max_words]) + (" …" if len(words) > max_words else "")


def turn_line(turn: Turn) -> str:
    """One turn as a summary line: "Q: … A: …"."""
    return f"Q: {' '.join(turn.question.split())} A: {first_sentence(turn.answer)}"


def redundancy(line: str, others: Sequence[str]) -> float:
    """Share of the line's key words that other lines also have (1.0: it says nothing they don't)."""
    own = key_words(line)
    if not own:
        return 1.0
    rest = set().union(*(key_words(o) for o in others)) if others else set()
    return len(own & rest) / len(own)


def extractive_summary(turns: Sequence[Turn], previous: str, max_tokens: int, count_tokens: CountTokens) -> str:
    """The lines of `previous` (an older summary) and one line per turn, within `max_tokens`.

    When they do not all fit, the line whose key words the others repeat most goes first (the oldest on
    ties), so a name or number said once survives a run of similar turns.
    """
    lines = [line for line in previous.splitlines() if line.strip()] + [turn_line(t) for t in turns]
    while lines and count_tokens("\n".join(lines)) > max_tokens:
        if len(lines) == 1:
            return truncate_to_tokens(lines[0], max_tokens, count_tokens)
        scores = [redundancy(line, lines[:i] + lines[i + 1 :]) for i, line in enumerate(lines)]
        lines.pop(max(range(len(lines)), key=lambda i: (scores[i], -i)))
    return "\n".join(lines)


def model_summary(turns: Sequence[Turn], previous: str, runtime: ChatRuntime, max_tokens: int) -> str:
    """The model's own summary of `previous` and the turns (its input cut to fit the window)."""
    text = "\n".join(
        ([previous] if previous.strip() else []) + [f"User: {t.question}\nAssistant: {t.answer}" for t in turns]
    )
    per_message, generation = runtime.overheads()
    room = runtime.n_ctx - max_tokens - runtime.count_tokens(MODEL_PROMPT) - 2 * per_message - generation - 16
    if runtime.count_tokens(text) > room:
        text = truncate_to_tokens(text[::-1], room, runtime.count_tokens)[::-1]  # keep the newest part
    gen = runtime.generate(
        [{"role": "user", "content": MODEL_PROMPT.format(text=text)}], max_tokens=max_tokens, temperature=0.0
    )
    return gen.text.strip()


def uses_model_summary(runtime: ChatRuntime) -> bool:
    """Whether the model is big enough to write its own summary (a server-side model is assumed to be)."""
    info = runtime.info()
    return info.backend == ChatBackend.OPENAI or info.size_bytes >= MODEL_SUMMARY_MIN_BYTES


def compact(turns: Sequence[Turn], previous: str, runtime: ChatRuntime, max_tokens: int) -> str:
    """The new summary of `previous` plus `turns`, by the method that suits the model."""
    if uses_model_summary(runtime):
        text = model_summary(turns, previous, runtime, max_tokens)
        if text:
            return text
    return extractive_summary(turns, previous, max_tokens, runtime.count_tokens)

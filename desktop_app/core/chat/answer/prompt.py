"""How a grounded prompt is worded: the system prompt, how passages are labelled, an optional worked example,
the stop strings, and whether uncited answers get exact-overlap attribution.

Each choice here was measured with bench/qa.py on SQuAD 2.0 questions (see the README's table); a style is
named so the benchmark can compare them in one process. `DEFAULT_STYLE` is what chat uses.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from desktop_app.core.chat.answer.context import Message, Passage, format_passage

PLAIN_SYSTEM_PROMPT = "You are Trove, a helpful assistant. Answer briefly and plainly."
NOT_COVERED = "The documents in your library do not cover this, so I can't answer it from them."

LEGACY_SYSTEM = (
    "You are Trove, an assistant that answers questions from passages of the user's documents. "
    "Use only the numbered passages. Cite each passage you use by its number in square brackets, like [1]. "
    "If the passages do not contain the answer, say that the documents do not cover it."
)
LEGACY_HEADER = "Passages from my documents:"

SHORT_SYSTEM = (
    "You answer questions using only the numbered passages the user gives you. "
    "Answer in one short sentence with words from the passages, and put the number of the passage you used "
    "in square brackets, like [1]. If no passage answers the question, say: The documents do not cover this."
)

EXAMPLE_PASSAGES = (
    Passage(1, "Green tea is made from the leaves of the tea plant. It was first grown in China, where people "
               "have drunk it for over four thousand years.", "tea.txt"),
    Passage(2, "Coffee beans are the roasted seeds of the coffee plant. Most coffee is grown in Brazil.", "coffee.txt"),
)
EXAMPLE_QUESTION = "Where was green tea first grown?"
EXAMPLE_ANSWER = "Green tea was first grown in China [1]."


def file_name(source: str) -> str:
    """The file name of a passage's path (never the full path: models copy paths into answers)."""
    return re.split(r"[/\\]", source.rstrip("/\\"))[-1] or source or "unknown"  # a Windows path read anywhere


def short_label(p: Passage) -> str:
    """"[n] name.pdf, p. 3": the number to cite and where the passage is from, with no path."""
    return f"[{p.n}] {file_name(p.source)}" + (f", {p.where}" if p.where else "")


@dataclass(frozen=True)
class PromptStyle:
    """One way of wording a grounded prompt (see the module docstring)."""

    name: str
    system: str
    header: str = ""  # a line before the passages ("" for none)
    labels: str = "short"  # "legacy": "[n] name [Source: path]"; "short": "[n] name"
    example: bool = False  # one worked example of citing [n], as an earlier exchange (a constant, cached prefix)
    stop: tuple[str, ...] = ()
    attribute: bool = False  # cite the passage an uncited answer copies from
    focus_tokens: int = 0  # >0: send only the stretch of each passage (this many tokens) that matches the question
    max_sentences: int = 0  # >0: end the answer after this many sentences

    def format_passage(self, p: Passage) -> str:
        """One passage as the model sees it."""
        if self.labels == "legacy":
            return format_passage(p)
        return f"{short_label(p)}\n{p.content}"

    def format_context(self, passages: Sequence[Passage]) -> str:
        """All passages, blank-line separated."""
        return "\n\n".join(self.format_passage(p) for p in passages)

    def user_message(self, question: str, passages: Sequence[Passage]) -> str:
        """The newest user message: the passages (if any), then the question."""
        if not passages:
            return question
        head = f"{self.header}\n\n" if self.header else ""
        return f"{head}{self.format_context(passages)}\n\nQuestion: {question}"

    def example_messages(self) -> tuple[Message, ...]:
        """The worked example as a user/assistant pair (empty when the style has none)."""
        if not self.example:
            return ()
        return ({"role": "user", "content": self.user_message(EXAMPLE_QUESTION, EXAMPLE_PASSAGES)},
                {"role": "assistant", "content": EXAMPLE_ANSWER})


# Echoes of the prompt that mean the model has stopped answering and started copying its input; and the end of
# the first paragraph, after which a small model drifts away from the passages.
HEADER_STOPS = ("[Source:", "\nQuestion:", "Passages from my documents")
ANSWER_STOPS = (*HEADER_STOPS, "\n\n")

# Each style adds one change to the one before it, so bench/qa.py can show what each change does. The default,
# grounded-96, was chosen by measurement (README): on SQuAD it answered at least as well as whole chunks or
# 160-token windows with a third of the prompt, so the first token comes that much sooner.
STYLES: dict[str, PromptStyle] = {s.name: s for s in (
    PromptStyle("legacy", LEGACY_SYSTEM, header=LEGACY_HEADER, labels="legacy"),
    PromptStyle("legacy+focus", LEGACY_SYSTEM, header=LEGACY_HEADER, labels="legacy", focus_tokens=160),
    PromptStyle("short+focus", SHORT_SYSTEM, focus_tokens=160),
    PromptStyle("example+focus", SHORT_SYSTEM, example=True, focus_tokens=160),
    PromptStyle("grounded", SHORT_SYSTEM, example=True, stop=ANSWER_STOPS, attribute=True, focus_tokens=160,
                max_sentences=2),
    PromptStyle("grounded-96", SHORT_SYSTEM, example=True, stop=ANSWER_STOPS, attribute=True, focus_tokens=96,
                max_sentences=2),
)}
DEFAULT_STYLE = STYLES["grounded-96"]


def get_style(style: str | PromptStyle | None) -> PromptStyle:
    """A style by name (or itself); None gives the default."""
    if style is None:
        return DEFAULT_STYLE
    if isinstance(style, PromptStyle):
        return style
    try:
        return STYLES[style]
    except KeyError:
        raise ValueError(f"unknown prompt style {style!r}; known: {', '.join(STYLES)}") from None


SUMMARY_HEADER = "Earlier in this conversation (a summary):"


def with_summary(system: str, summary: str) -> str:
    """The system prompt carrying a summary of compacted turns (it changes only when compaction runs again)."""
    return f"{system}\n\n{SUMMARY_HEADER}\n{summary}" if summary.strip() else system


_ECHOED_LABEL = re.compile(r"^\s*(?:\d+[.)]|\[\d+\])\s+[^\n]*?(?:\[Source:[^\]\n]*\]|\.\w{1,5}(?:, p\. \d+)?)\s*\n")


def strip_echoed_label(text: str) -> str:
    """`text` without a passage label the model copied onto its first line ("1. a.txt [Source: …]" or "[1] a.txt")."""
    return _ECHOED_LABEL.sub("", text, count=1)

"""Summarise a document of any length: map-reduce over its chunks within the model's context window.

Map: consecutive chunks are packed into parts that fit one prompt, and each part is summarised. Reduce:
the part summaries, in document order, are packed and summarised again, until one call takes them all.
A document that fits one prompt is summarised in one call. Progress is reported after every model call
and `cancel` stops between calls and mid-answer (the summary so far is kept, marked cancelled).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from desktop_app.core.chat.answer.context import CountTokens, truncate_to_tokens
from desktop_app.core.chat.runtime.base import ChatRuntime
from desktop_app.core.log import get_logger

log = get_logger("chat")

SYSTEM = "You are Trove. You write short, faithful summaries of the user's documents."
MAP_PROMPT = "Summarise this part of the document {name} in two or three sentences.\n\n{text}"
REDUCE_PROMPT = (
    "These are summaries of consecutive parts of the document {name}, in order. "
    "Combine them into one summary of a few sentences.\n\n{text}"
)
SINGLE_PROMPT = "Summarise the document {name} in a few sentences.\n\n{text}"
PART_SEPARATOR = "\n\n"


@dataclass(frozen=True)
class SummaryProgress:
    """After each model call: calls done, calls planned so far (grows as reduce rounds are planned), the stage."""

    done: int
    total: int
    stage: str  # "map" | "reduce" | "single"


@dataclass(frozen=True)
class Summary:
    """A document's summary and how it was made."""

    path: str
    text: str
    chunks: int
    calls: int
    rounds: int  # 1 for a single call or one map step; each reduce round adds one
    cancelled: bool = False


def pack(costs: Sequence[int], budget: int) -> list[list[int]]:
    """Indices of consecutive items grouped so each group's total cost is ≤ `budget` (an item over it is alone).

    Every index appears once, in order; a new group starts only when the next item would not fit.
    """
    groups: list[list[int]] = []
    total = 0
    for i, cost in enumerate(costs):
        if groups and total + cost <= budget:
            groups[-1].append(i)
            total += cost
        else:
            groups.append([i])
            total = cost
    return groups


class Summarizer:
    """One summary run with a runtime: packing to the window, progress, cancel."""

    def __init__(
        self,
        runtime: ChatRuntime,
        *,
        name: str,
        max_tokens: int = 160,
        temperature: float = 0.0,
        on_progress: Callable[[SummaryProgress], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> None:
        self.runtime = runtime
        self.name = name
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.on_progress = on_progress
        self.cancel = cancel
        self.done = 0
        self.total = 0

    def room(self, template: str) -> int:
        """Tokens of document text one call can take: the window less the prompt around it and the answer."""
        per_message, generation = self.runtime.overheads()
        wrapper = self.runtime.count_tokens(SYSTEM) + self.runtime.count_tokens(
            template.format(name=self.name, text="")
        )
        return self.runtime.n_ctx - self.max_tokens - wrapper - 2 * per_message - generation - 8

    def run(self, texts: Sequence[str]) -> Summary:
        """Summarise `texts` (the document's chunks, in order)."""
        count: CountTokens = self.runtime.count_tokens
        whole = PART_SEPARATOR.join(texts)
        if count(whole) <= self.room(SINGLE_PROMPT):
            self.total = 1
            text, cancelled = self._call("single", SINGLE_PROMPT, whole)
            return Summary(self.name, text, len(texts), self.done, 1, cancelled)
        parts, cancelled = self._round("map", MAP_PROMPT, list(texts))
        rounds = 1
        while not cancelled and len(parts) > 1:
            parts, cancelled = self._round("reduce", REDUCE_PROMPT, parts)
            rounds += 1
        return Summary(self.name, PART_SEPARATOR.join(parts), len(texts), self.done, rounds, cancelled)

    def _round(self, stage: str, template: str, texts: list[str]) -> tuple[list[str], bool]:
        room = self.room(template)
        texts = [self._fit(t, room) for t in texts]
        groups = pack([self.runtime.count_tokens(t) + 2 for t in texts], room)
        if stage == "reduce" and len(groups) == len(texts):
            groups = _pairs(len(texts))  # no two summaries fit together: merge pairs anyway, each cut to fit
        # calls planned: this round, plus (a guess, corrected next round) one more if it leaves several parts
        self.total = self.done + len(groups) + (1 if len(groups) > 1 else 0)
        out: list[str] = []
        for group in groups:
            text, cancelled = self._call(stage, template, self._fit(PART_SEPARATOR.join(texts[i] for i in group), room))
            if text:
                out.append(text)
            if cancelled:
                return out, True
        return out, False

    def _fit(self, text: str, room: int) -> str:
        count = self.runtime.count_tokens
        return text if count(text) <= room else truncate_to_tokens(text, room, count)

    def _call(self, stage: str, template: str, text: str) -> tuple[str, bool]:
        if self.cancel is not None and self.cancel.is_set():
            return "", True
        messages = [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": template.format(name=self.name, text=text)},
        ]
        gen = self.runtime.generate(
            messages, max_tokens=self.max_tokens, temperature=self.temperature, cancel=self.cancel
        )
        self.done += 1
        if self.on_progress is not None:
            self.on_progress(SummaryProgress(self.done, max(self.total, self.done), stage))
        return gen.text.strip(), gen.cancelled


def _pairs(n: int) -> list[list[int]]:
    return [list(range(i, min(i + 2, n))) for i in range(0, n, 2)]

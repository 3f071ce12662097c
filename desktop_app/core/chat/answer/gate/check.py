"""A chat model's yes/no check of the quote about to be shown (opt-in: Settings.check_model; #42).

The quote gate and the cross-encoder pass a quote that is *about* what the question asks. A question written to look
answered by such a passage (SQuAD 2.0's unanswerable ones: "Who was the governor of California in 1895?" beside a
sentence naming an earlier governor) gets through them. A chat model shown the quote and the question, and asked
whether the text gives the answer, separates those better. Its first token's log-probability of "yes" minus that of
"no" (over its TOP likeliest first tokens; a word not among them counts as ABSENT) is the score (`decide`):

- under CHECK_FLOOR the quote is not shown, whatever the gate said: the library refuses as when the gate says no;
- over CHECK_RESCUE (the model leans to yes) the quote is shown even when the gate's combined step (the
  cross-encoder's best logit with the quote gate's confidence, gate/abstain.py COMBINED) said no. That step refuses
  answerable questions whose quote shares few words with them; its floors and rules (no passage about the question
  at all, a refusal rule) are never overruled.

bench/abstain_verify.py measures this: the installed Qwen2.5-Coder-1.5B reads well, the bundled SmolLM2 cannot (it
says no to nearly everything). Both thresholds were chosen on bench/data/qa-final4 and reported on splits not used
to choose them (docs/benchmarks.md, "A chat model checks the quote"). The quote and the question are data: the
runtime breaks any template marker in them before they reach the model.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Protocol

from desktop_app.core.chat.answer.context import Message
from desktop_app.core.chat.answer.gate.abstain import COMBINED
from desktop_app.core.errors import UnavailableError
from desktop_app.core.log import get_logger

log = get_logger("chat")

SYSTEM = "You check whether a text answers a question. Reply with yes or no only."
ASK = "Does the text give the answer to this exact question? Answer yes or no."
CHECK_FLOOR = -1.0  # yes minus no, in nats: under it, refused
CHECK_RESCUE = 0.0  # over it, shown though the gate's combined step said no
CHECKED_NO = "the check model says the quote does not answer"
TOP = 20  # the first tokens read
ABSENT = -30.0  # the log-probability given to "yes" or "no" when neither spelling is among them
CHECK_CTX = 1024  # the check model's context: a quote (a few sentences) and a question


class ScoresNextToken(Protocol):
    """A runtime that gives the log-probabilities of its likeliest first tokens after `messages`."""

    def next_token_logprobs(self, messages: list[Message], top: int) -> dict[str, float]: ...
    def close(self) -> None: ...


def check_messages(text: str, question: str) -> list[Message]:
    """The two chat messages asking whether `text` answers `question`."""
    return [{"role": "system", "content": SYSTEM},
            {"role": "user", "content": f"Text: {text}\nQuestion: {question}\n{ASK}"}]


def yes_minus_no(top: Mapping[str, float]) -> float:
    """The best log-probability of a token spelling "yes" minus the best spelling "no" (case and spaces ignored)."""
    def best(word: str) -> float:
        return max((v for k, v in top.items() if k.strip().lower() == word), default=ABSENT)
    return best("yes") - best("no")


def check_score(runtime: ScoresNextToken, text: str, question: str) -> float:
    """How strongly the model says `text` answers `question` (yes minus no; under CHECK_FLOOR: it does not)."""
    return yes_minus_no(runtime.next_token_logprobs(check_messages(text, question), TOP))


def decide(why: str, score: float) -> str:
    """Why the library refuses once the check has read the quote ("" = it answers), given the gate's reason `why`
    (only "" or COMBINED reach the check: every other refusal stands before it)."""
    if score < CHECK_FLOOR:
        return CHECKED_NO
    if why == COMBINED and score > CHECK_RESCUE:
        return ""
    return why


class Checker:
    """The check model named by the check_model setting: loaded on first use, replaced when the setting names
    another file, kept apart from the chat model (a small chat model checks badly; a check needs no long context)."""

    def __init__(self, factory: Callable[[Path], ScoresNextToken]) -> None:
        self._factory = factory
        self._runtime: ScoresNextToken | None = None
        self._path: Path | None = None
        self._lock = threading.RLock()

    def score(self, model_path: str, text: str, question: str) -> float | None:
        """`check_score` with the model at `model_path`; None when it cannot be loaded (said in the log: the quote
        is then shown unchecked, as with the setting off; the next call tries again)."""
        path = Path(model_path).expanduser()
        with self._lock:
            if self._path != path:
                self.close()
                self._runtime, self._path = self._factory(path), path
            assert self._runtime is not None
            try:
                return check_score(self._runtime, text, question)
            except UnavailableError as exc:
                log.warning("the quote is shown unchecked: %s", exc)
                self.close()
                return None

    def close(self) -> None:
        """Free the check model; the next check loads it again."""
        with self._lock:
            if self._runtime is not None:
                self._runtime.close()
            self._runtime, self._path = None, None

"""Checking a generated answer's citation markers against the passages they name. Pure functions.

A model (small ones especially) puts [n] after a sentence it did not take from passage n. Each sentence's markers
are checked by attribution: passage n supports the sentence when they share a run of at least `VERIFY_RUN`
tokens (the text pipeline's tokens, so Thai and Chinese count words, not characters; a sentence shorter than
that must be found whole). An unsupported marker moves to the passage sharing the longest such run with the
sentence, or is dropped when no passage supports it. Only markers change: the words stay the model's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from desktop_app.core.chat.answer.context import Passage
from desktop_app.core.chat.answer.gate.attribution import longest_common_run, sentences
from desktop_app.core.chat.answer.gate.citations import MARKER, marker_numbers, unmarked
from desktop_app.core.chat.answer.shown import tokens

VERIFY_RUN = 3  # tokens in a row shared with the passage cited ("Dr Mira Quell", "in 1066 the")


def support(sentence: str, passage: str) -> int:
    """The longest run of tokens `sentence` (markers left out) shares with `passage`."""
    return longest_common_run(tokens(unmarked(sentence)), tokens(passage))


def checked(sentence: str, passages: Sequence[Passage], run: int = VERIFY_RUN, claim: str = "") -> str:
    """`sentence` with each marker's numbers kept when supported, moved to the best-supporting passage, or
    dropped. `claim` is the text the markers vouch for (the sentence itself unless given)."""
    if not MARKER.search(sentence):
        return sentence
    claim = claim or sentence
    need = max(1, min(run, len(tokens(unmarked(claim)))))
    runs = {p.n: support(claim, p.content) for p in passages}
    best = max(runs, key=lambda n: (runs[n], -n), default=None)

    def fix(m: re.Match[str]) -> str:
        kept: list[int] = []
        for n in marker_numbers(m.group(1)):
            if runs.get(n, 0) >= need:
                kept.append(n)
            elif best is not None and runs[best] >= need:
                kept.append(best)
        kept = list(dict.fromkeys(kept))
        if kept == marker_numbers(m.group(1)):
            return m.group(0)
        return f"[{', '.join(map(str, kept))}]" if kept else ""

    return MARKER.sub(fix, sentence)


def verify_markers(text: str, passages: Sequence[Passage], run: int = VERIFY_RUN) -> str:
    """`text` with every sentence's markers checked against the passages they name (see `checked`)."""
    if not passages or not MARKER.search(text):
        return text
    out, last, previous = [], 0, ""
    for start, end in sentences(text):
        sentence = text[start:end]
        bare = not tokens(unmarked(sentence))  # "… it rains. [2]": the marker vouches for the sentence before
        out += [text[last:start], checked(sentence, passages, run, previous if bare else "")]
        previous = previous if bare else sentence
        last = end
    out.append(text[last:])
    fixed = "".join(out)
    return re.sub(r"[ \t]+([.,;:!?])", r"\1", fixed) if fixed != text else text

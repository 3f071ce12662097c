"""How many more model tokens a text costs than English text of as many words: prompt windows hold content.

The prompt's windows are set in model tokens (a style's focus_tokens, max_context_tokens), tuned on English. A
byte-level tokenizer trained mostly on English (SmolLM2's, Qwen's) spends several tokens on a Thai, Arabic or
Chinese word that an English word costs one or two of, so a 96-token window held a few Thai words. Scaling a
window by `cost_scale` keeps about as many words of any script as it holds of English (words counted as the
chunker counts them, core/text/word_units.py). English text, and any text within TOLERANCE of English's cost,
keeps a scale of 1: its windows are exactly what they were tuned to be.
"""

from __future__ import annotations

from desktop_app.core.text.word_units import units

# SmolLM2's tokenizer per word (XQuAD articles): English 1.38, Chinese 3.2, Arabic 5.5, Thai 6.7.
ENGLISH_TOKENS_PER_WORD = 1.4
TOLERANCE = 1.5  # up to this many times English's cost is English-like text (names, numbers, code)
MAX_SCALE = 4.0  # a window never grows past this: the whole prompt must still fit n_ctx


def cost_scale(text: str, tokens: int) -> float:
    """How many times English's tokens per word `text` costs (`tokens` is its count), 1 when English-like, at
    most MAX_SCALE."""
    words = len(units(text)) if tokens else 0
    if not words:
        return 1.0
    ratio = tokens / (words * ENGLISH_TOKENS_PER_WORD)
    return 1.0 if ratio <= TOLERANCE else min(MAX_SCALE, ratio)

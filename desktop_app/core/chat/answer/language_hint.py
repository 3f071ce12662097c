"""A line for a person who asks in a language the library's search model cannot read.

The `auto` embedder (core/embed/auto.py) is chosen from the library's languages, not the questions'. A Thai question
over an English library is read by MiniLM, whose vectors for Thai are noise, and Thai shares no keyword with English
text: on the XQuAD split of session 60, Thai questions over the English articles found a passage holding the answer
in the top 5 only 0.155 of the time, against 1.00 with multilingual-e5-small on the earlier split (docs/benchmarks.md,
#45). The answer then says why it found little and which model reads both languages; nothing changes on its own (a
new model re-embeds the whole library, the person's call). e5-small is named first (it was measured); the Universal
Sentence Encoder also maps languages into one space and runs everywhere e5's 4-bit build does not (docs/models.md).

Only questions in a script of their own are hinted (Thai, Chinese, Japanese, Korean, Arabic, Hebrew, Greek,
Cyrillic, Devanagari): a short Latin-script question is too often undetermined, and shares names and numbers with
English text.
"""

from __future__ import annotations

from desktop_app.core.embed.base import Embedder
from desktop_app.core.text.language import detect_language

ENGLISH_ONLY = ("sentence-transformers/all-MiniLM-L6-v2",)  # model ids (any suffix) that read English only
SCRIPTS = {"th": "Thai", "zh": "Chinese", "ja": "Japanese", "ko": "Korean", "ar": "Arabic", "he": "Hebrew",
           "el": "Greek", "cyrl": "Cyrillic script", "deva": "Devanagari script"}


def language_hint(question: str, embedder: Embedder | None) -> str:
    """Why a question in its own script finds little in a library read by an English-only model ("" otherwise)."""
    language = SCRIPTS.get(detect_language(question))
    if language is None or embedder is None or not embedder.model_id.startswith(ENGLISH_ONLY):
        return ""
    return (f"This library is searched with an English-only model, so a question in {language} finds little. To ask "
            f"in {language}, choose a multilingual model under Settings → Semantic model (multilingual-e5-small, or "
            "USE multilingual where e5 does not run); the library is then read again in the background.")

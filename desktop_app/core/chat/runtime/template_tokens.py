"""Library text must never become a chat model's control tokens.

llama.cpp tokenizes a rendered chat prompt with special tokens parsed (it has to: the template writes
`<|im_start|>` as text), so a passage, question or earlier answer holding `<|im_start|>system` would otherwise
open a new turn of the model's own. `defuse` breaks every such marker in text that came from the library or
the person with a visible, harmless change: a space after the opening bracket (`< |im_start|>`, `[ INST]`,
`< s>`). An invisible character would hide the change from anyone reading a log, and some tokenizers drop
it. Markers of every common template family are covered, plus whatever the loaded model's vocabulary marks
as control tokens (`extra`). Pure functions.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

# ChatML / Qwen / SmolLM / Phi (<|im_start|>, <|endoftext|>, <|eot_id|>, <|start_header_id|>, <|user|>),
# Llama 2 / Mistral ([INST], <<SYS>>, <s>, </s>), Gemma (<start_of_turn>, <bos>), DeepSeek (<｜begin▁of▁sentence｜>).
_GENERIC = re.compile(
    r"<\|[^<>|\n]{0,64}\|>"
    r"|<｜[^<>\n]{0,64}｜>"
    r"|\[/?(?:INST|SYS|AVAILABLE_TOOLS|TOOL_CALLS|TOOL_RESULTS)\]"
    r"|<</?SYS>>"
    r"|</?(?:s|bos|eos|unk|pad|mask|start_of_turn|end_of_turn|start_of_image|end_of_image|think|tool_call)>",
    re.IGNORECASE,
)


def _break(marker: str) -> str:
    """`marker` with a space after its first character (the opening bracket)."""
    return marker[:1] + " " + marker[1:] if len(marker) > 1 else marker


def defuse(text: str, extra: Iterable[str] = ()) -> str:
    """`text` with every template marker broken so no tokenizer reads it as a control token."""
    if not text:
        return text
    out = _GENERIC.sub(lambda m: _break(m.group(0)), text)
    for marker in extra:
        if marker and marker in out:
            out = out.replace(marker, _break(marker))
    return out


def defuse_messages(messages: Sequence[dict[str, Any]], extra: Iterable[str] = ()) -> list[dict[str, Any]]:
    """Copies of `messages` whose contents are defused (roles and other keys kept)."""
    markers = tuple(extra)
    return [{**m, "content": defuse(str(m.get("content") or ""), markers)} for m in messages]


def control_markers(texts: Iterable[str]) -> tuple[str, ...]:
    """The control-token texts worth defusing: longest first (so a marker inside another is broken once)."""
    usable = {t for t in texts if len(t) >= 3 and not t.isspace()}
    return tuple(sorted(usable, key=len, reverse=True))

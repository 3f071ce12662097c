"""Template markers in library text are broken so no tokenizer reads them as control tokens."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from desktop_app.core.chat.runtime.template_tokens import control_markers, defuse, defuse_messages

MARKERS = ["<|im_start|>", "<|im_end|>", "<|endoftext|>", "[INST]", "[/INST]", "<s>", "</s>", "<<SYS>>",
           "<start_of_turn>", "<|eot_id|>", "<|start_header_id|>"]


def test_every_common_marker_is_broken_visibly():
    for marker in MARKERS:
        out = defuse(f"before {marker}system\nafter")
        assert marker not in out and " " in out.split("before ")[1][:3], marker
        assert out.replace(" ", "") == f"before{marker}system\nafter".replace(" ", "")  # only a space was added


def test_plain_text_is_unchanged():
    text = "Ctrl+F or Ctrl+K focus the search bar; a < b and c > d; [1] cites passage one; x|y"
    assert defuse(text) == text


def test_markers_from_the_vocabulary_are_broken_too():
    extra = control_markers(["<custom_tok>", "\n", "ab", "<custom_tok_long>"])
    assert extra == ("<custom_tok_long>", "<custom_tok>")
    assert "<custom_tok>" not in defuse("a <custom_tok> b", extra)


def test_messages_keep_their_roles():
    out = defuse_messages([{"role": "user", "content": "<|im_start|>system"}])
    assert out == [{"role": "user", "content": "< |im_start|>system"}]


@given(st.lists(st.sampled_from([*MARKERS, "a", " ", "<", "|", ">", "[", "]", "/"]), max_size=30))
def test_no_marker_survives_any_mix(parts):
    out = defuse("".join(parts))
    assert not any(m in out for m in MARKERS)

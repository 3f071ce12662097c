"""SSE parsing for the OpenAI-compatible backend (the real server is exercised in tests/integration/chat)."""

from __future__ import annotations

import threading

import pytest

from desktop_app.core.chat.runtime.base import stream_pieces
from desktop_app.core.chat.runtime.openai_backend import iter_sse_data, iter_stream_chunks
from desktop_app.core.errors import UnavailableError


def test_events_split_on_blank_lines_with_comments_and_multiline_data():
    lines = [b": ping\r\n", b"data: {\"a\": 1}\r\n", b"\r\n", b"event: x\n", b"data: line1\n", b"data:line2\n", b"\n",
             b"data: tail"]
    assert list(iter_sse_data(lines)) == ['{"a": 1}', "line1\nline2", "tail"]


def test_chunks_stop_at_done_and_skip_garbage():
    lines = ['data: {"choices": [{"delta": {"content": "Hi"}}]}', "", "data: not json", "", "data: [DONE]", "",
             'data: {"choices": [{"delta": {"content": "late"}}]}', ""]
    assert [c["choices"][0]["delta"]["content"] for c in iter_stream_chunks(lines)] == ["Hi"]


def test_an_error_event_is_a_plain_error():
    with pytest.raises(UnavailableError, match="overloaded"):
        list(iter_stream_chunks(['data: {"error": "overloaded"}', ""]))


def test_stream_pieces_stops_right_after_cancel():
    chunks = [{"choices": [{"delta": {"content": f"t{i}"}}]} for i in range(10)]
    cancel = threading.Event()
    seen = []

    def on_text(piece):
        seen.append(piece)
        if len(seen) == 3:
            cancel.set()

    pieces, first, cancelled, finish = stream_pieces(iter(chunks), on_text, cancel)
    assert pieces == ["t0", "t1", "t2"] == seen and cancelled and finish == "cancelled" and first is not None

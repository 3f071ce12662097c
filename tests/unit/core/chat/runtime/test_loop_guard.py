"""The repetition guard that ends a small model's loops."""

from desktop_app.core.chat.runtime.base import LoopGuard, stream_pieces


def chunks(texts):
    return [{"choices": [{"delta": {"content": t}, "finish_reason": None}]} for t in texts]


def test_third_identical_line_stops_the_stream():
    line = "The Sun is a star in the Milky Way.\n"
    pieces, _, cancelled, finish = stream_pieces(chunks(["Intro.\n"] + [line] * 6), None, None)
    assert finish == "repetition" and not cancelled
    assert "".join(pieces).count("The Sun is a star") == 3


def test_short_or_distinct_lines_pass():
    guard = LoopGuard()
    assert not any(guard.feed(t) for t in ["- a\n", "- a\n", "- a\n", "- a\n"])  # short list items may repeat
    assert not any(guard.feed(f"Sentence number {i} is different.\n") for i in range(20))


def test_lines_split_across_pieces_are_joined():
    guard = LoopGuard(max_repeats=1)
    assert not guard.feed("Repeated sentence that")
    assert not guard.feed(" is long enough.\nRepeated sentence")
    assert guard.feed(" that is long enough.\n")


def test_physical_cores_from_cpuinfo():
    from desktop_app.core.chat.runtime.llama import physical_cores

    smt = "".join(
        f"processor : {i}\nphysical id : 0\ncore id : {i // 2}\n\n" for i in range(8)
    )  # 4 cores, 2 threads each
    two_sockets = "".join(f"processor : {i}\nphysical id : {i // 2}\ncore id : {i % 2}\n\n" for i in range(4))
    assert physical_cores(smt) == min(4, physical_cores(""))  # never more than the CPUs this process may use
    assert physical_cores(two_sockets) == min(4, physical_cores(""))
    assert physical_cores("no such fields") >= 1


def test_a_sentence_limit_ends_the_answer_before_the_next_sentence_starts():
    from desktop_app.core.chat.runtime.base import stream_pieces

    texts = ["Dr.", " Quell", " built", " it", " [1].", " It", " runs", " on", " helium!", "\n", "More", " text."]
    pieces, _, cancelled, finish = stream_pieces(chunks(texts), None, None, max_sentences=2)
    assert "".join(pieces) == "Dr. Quell built it [1]. It runs on helium!" and finish == "sentences" and not cancelled
    pieces, _, _, finish = stream_pieces(chunks(texts), None, None, max_sentences=1)
    assert "".join(pieces) == "Dr. Quell built it [1]." and finish == "sentences"
    pieces, _, _, finish = stream_pieces(chunks(texts), None, None)
    assert "".join(pieces) == "".join(texts)

"""bench/memory.py --after-use (#42): earlier use is saved as quiet chats before the conversation, its hits are told
apart from the conversation's, and never count as evidence."""

from __future__ import annotations

import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[3] / "bench"
sys.path.insert(0, str(BENCH))

import memory  # noqa: E402

from desktop_app.core.embed.base import HashEmbedder  # noqa: E402

SAMPLE = {"conversation": {"speaker_a": "Ann", "speaker_b": "Bo", "session_1_date_time": "1 May 2023", "session_1": [
    {"speaker": "Ann", "dia_id": "D1:1", "text": "I adopted a grey cat called Pepper last week."},
    {"speaker": "Bo", "dia_id": "D1:2", "text": "Lovely! My sister keeps bees in Lisbon."}]}}


def test_earlier_use_answers_with_the_sentence_holding_the_gold_answer_or_the_refusal():
    turns = memory.use_turns(40)
    assert len(turns) == 40
    answered = [a for _, a in turns if a != memory.REFUSAL]
    assert answered and len(answered) < 40  # SQuAD 2.0 holds unanswerable questions too
    assert all(a.endswith(" [1]") and len(a) > 20 for a in answered)


def test_hits_from_earlier_chats_are_marked_and_map_to_no_dialogue(tmp_path):
    use = [(f"Which city keeps the bees of question {i}?", f"The bees of question {i} live in Porto. [1]")
           for i in range(20)]
    replay = memory.Replay(SAMPLE, HashEmbedder(), tmp_path, 400, use)
    assert len(replay.use_chats) == 2  # 20 questions in chats of USE_CHAT_TURNS
    hits = replay.memory.search("Which city keeps the bees?", top_k=10)
    from_use = [h for h in hits if replay.from_use(h)]
    mine = [h for h in hits if not replay.from_use(h)]
    assert from_use and mine
    assert all(replay.hit_dias(h) <= {""} for h in from_use)
    assert any("D1:2" in replay.hit_dias(h) for h in mine)
    replay.store.close()

"""Focusing a passage on the question (pure; a word counter stands in for the tokenizer)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_app.core.chat.answer.focus import ELLIPSIS, focus, key_words


def words(text: str) -> int:
    return len(text.split())


TEXT = ("The Normans were the people who gave their name to Normandy. They were descended from Norse raiders. "
        "Their leader Rollo swore fealty to King Charles III. The Duchy was founded in 911 as a fiefdom. "
        "Norman architecture is known for round arches. The language became Norman French.")


def test_a_passage_that_fits_is_sent_whole():
    assert focus("Who was the leader?", TEXT, 200, words) == TEXT


def test_the_sentence_sharing_the_question_words_is_kept_with_neighbours_that_fit():
    out = focus("When was the Duchy founded?", TEXT, 22, words)
    assert "The Duchy was founded in 911 as a fiefdom." in out and words(out) <= 22
    assert out.startswith(ELLIPSIS) and out.endswith("Norman French.")  # ties go to the following sentences
    assert focus("Who swore fealty to King Charles?", TEXT, 14, words) == (
        f"{ELLIPSIS} Their leader Rollo swore fealty to King Charles III. {ELLIPSIS}")


def test_a_budget_below_one_sentence_cuts_words():
    out = focus("Who swore fealty?", TEXT, 6, words)
    assert words(out) <= 6 and out.endswith(ELLIPSIS)


def test_key_words_drop_function_words_and_share_stems():
    assert key_words("Who invented the reactor?") == {"inven", "react"}
    assert key_words("invention of reactors") == {"inven", "react"}


@settings(max_examples=300, deadline=None)
@given(text=st.lists(st.sampled_from(["Alpha beta.", "Gamma delta epsilon!", "Zeta eta theta iota.", "Kappa?",
                                      "lambda mu nu xi omicron pi rho sigma tau.", "\n"]), max_size=30).map(" ".join),
       question=st.sampled_from(["alpha", "theta iota", "sigma", "nothing here", ""]), budget=st.integers(0, 60))
def test_focus_stays_in_budget_and_only_keeps_text_of_the_passage(text, question, budget):
    out = focus(question, text, budget, words)
    if budget <= 0 or words(text) <= budget:
        assert out == text
        return
    assert words(out) <= budget
    inner = out.replace(ELLIPSIS, "").split()
    flat = text.split()
    assert any(flat[i:i + len(inner)] == inner for i in range(len(flat) - len(inner) + 1)) or not inner


# ---- every script --------------------------------------------------------------------------------------------

def utf8_pieces(text: str) -> int:
    """A byte-level tokenizer's cost, roughly: two UTF-8 bytes a token (a Thai letter is three bytes). The real
    tokenizer's figures are in tests/integration/chat/test_focus_scripts.py."""
    return (len(text.encode("utf-8")) + 1) // 2


THAI_SENTENCES = [
    "เทสลาเกิดที่หมู่บ้านสมิลยานในปี 1856",
    "เขาศึกษาวิศวกรรมไฟฟ้าที่มหาวิทยาลัยในเมืองกราซ",
    "ในปี 1884 เขาย้ายไปอยู่ที่นครนิวยอร์กเพื่อทำงานกับเอดิสัน",
    "ห้องทดลองของเขาถูกไฟไหม้จนหมดในปี 1895",
    "เทสลาได้รับสิทธิบัตรเครื่องส่งผ่านไฟฟ้าในปี 1900",
    "หลังจากนั้นเขาสร้างหอคอยวอร์เดนคลิฟฟ์บนเกาะลองไอส์แลนด์",
    "เขาเสียชีวิตที่โรงแรมนิวยอร์กเกอร์เมื่อปี 1943",
]


def test_a_thai_passage_is_focused_on_the_sentence_that_answers():
    text = " ".join(THAI_SENTENCES)  # Thai ends a sentence with a space, not a full stop
    out = focus("เทสลาได้รับสิทธิบัตรเครื่องส่งผ่านไฟฟ้าเมื่อใด", text, 30, utf8_pieces)
    assert THAI_SENTENCES[4] in out  # the answer sentence, whole
    assert out.startswith(ELLIPSIS) and len(out) < len(text)


def test_thai_key_words_are_the_words_the_index_reads():
    from desktop_app.core.text import index_fields

    question = "เทสลาได้รับสิทธิบัตรเครื่องส่งผ่านไฟฟ้าเมื่อใด"
    assert {"ไฟฟ้า", "เครื่อง"} <= key_words(question)
    assert set(index_fields("", question)["words"].split()) <= key_words(question)


def test_chinese_and_arabic_passages_are_focused_at_their_own_sentence_ends():
    zh = ("特斯拉出生于斯米良村。他在格拉茨学习电气工程。1884年他搬到纽约。他的实验室在1895年被烧毁。"
          "特斯拉在1900年获得了电力传输的专利。他在1943年去世。")
    out = focus("特斯拉什么时候获得电力传输专利？", zh, 20, utf8_pieces)
    assert "特斯拉在1900年获得了电力传输的专利。" in out
    ar = ("ولد تسلا في قرية سميليان. درس الهندسة الكهربائية في غراتس. انتقل إلى نيويورك عام 1884. "
          "احترق مختبره عام 1895. حصل تسلا على براءة اختراع لجهاز الإرسال الكهربائي عام 1900. توفي عام 1943.")
    out = focus("متى حصل تسلا على براءة اختراع جهاز الإرسال؟", ar, 20, utf8_pieces)
    assert "حصل تسلا على براءة اختراع لجهاز الإرسال الكهربائي عام 1900." in out


def test_a_thai_window_holds_about_as_many_words_as_an_english_one():
    from desktop_app.core.chat.answer.script_cost import cost_scale

    thai = " ".join(THAI_SENTENCES)
    english = "Tesla was born in the village of Smiljan in 1856 and studied electrical engineering in Graz."
    assert cost_scale(english, utf8_pieces(english) // 2) == 1.0  # English-like cost: the tuned window, exactly
    assert cost_scale(thai, utf8_pieces(thai)) > 2.0



def test_a_thai_window_reaches_past_the_question_words_to_the_answer_after_them():
    # An XQuAD dev paragraph (CC BY-SA 4.0, bench/data/qa-xquad-dev): the question's words sit in the phrases before
    # the answer. Filled forward from the first phrase holding any of them, the window ended there and cut the
    # answer off; grown around the phrases that hold them, it keeps it.
    from pathlib import Path

    article = Path(__file__).resolve().parents[5] / "bench" / "data" / "qa-xquad-dev" / "articles" / "th" / "th-06.txt"
    paragraph = article.read_text(encoding="utf-8").split("\n\n")[0]
    out = focus("อะไรล้อมรอบคลอโรพลาสต์?", paragraph, 96, utf8_pieces)
    assert "สองเยื่อหุ้มเซลล์ไขมันในชั้นในสุด" in out and len(out) < len(paragraph)

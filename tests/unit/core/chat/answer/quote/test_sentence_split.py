"""Sentence spans for quoting, in every script the text pipeline handles."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_app.core.chat.answer.quote import sentence_split
from desktop_app.core.chat.answer.quote.sentence_split import sentence_spans


def pieces(text: str) -> list[str]:
    return [text[a:b] for a, b in sentence_spans(text)]


def test_english_sentences_keep_abbreviations_and_lines_apart():
    text = ("Dr. Mira Quell built it in 1987. It runs on helium! Does it?\n"
            "Ctrl+F or Ctrl+K   Focus the search bar\nEsc  Clear")
    assert pieces(text) == ["Dr. Mira Quell built it in 1987.", "It runs on helium!", "Does it?",
                            "Ctrl+F or Ctrl+K   Focus the search bar", "Esc  Clear"]


def test_chinese_ends_sentences_at_full_width_marks():
    text = "中国的首都是北京。上海是最大的城市！你知道吗？"
    assert pieces(text) == ["中国的首都是北京。", "上海是最大的城市！", "你知道吗？"]


def test_arabic_question_mark_ends_a_sentence():
    assert pieces("ما هي عاصمة مصر؟ القاهرة هي العاصمة.") == ["ما هي عاصمة مصر؟", "القاهرة هي العاصمة."]


def test_a_space_between_thai_words_ends_a_sentence(monkeypatch):
    monkeypatch.setattr(sentence_split, "MIN_SEA_UNIT", 0)
    assert pieces("กรุงเทพเป็นเมืองหลวง ประเทศไทยมีจังหวัดมาก") == ["กรุงเทพเป็นเมืองหลวง", "ประเทศไทยมีจังหวัดมาก"]


def test_a_short_thai_phrase_runs_on_to_the_next_space_and_a_long_unit_ends_at_one():
    first = ("กรุงเทพมหานครเป็นเมืองหลวงและนครที่มีประชากรมากที่สุดของประเทศไทย เป็นศูนย์กลางการปกครอง การศึกษา "
             "การคมนาคมขนส่ง การเงินการธนาคาร การพาณิชย์")
    second = ("ประเทศไทยมีจังหวัดทั้งหมดเจ็ดสิบหกจังหวัด ไม่รวมกรุงเทพมหานครซึ่งเป็นเขตปกครองพิเศษ "
              "แต่ละจังหวัดมีผู้ว่าราชการจังหวัดเป็นผู้บริหารสูงสุดของจังหวัดนั้น")
    assert pieces("กรุงเทพเป็นเมืองหลวง ประเทศไทยมีจังหวัดมาก") == ["กรุงเทพเป็นเมืองหลวง ประเทศไทยมีจังหวัดมาก"]
    text = f"{first} {second}"
    got = pieces(text)
    assert len(got) == 2 and " ".join(got) == text  # cut once, at a space, nothing lost
    assert all(len(p) >= sentence_split.MIN_SEA_UNIT for p in got)  # and no piece is a phrase alone


# XQuAD (CC BY-SA 4.0), Sky (United Kingdom), Thai: a sentence with a bracketed aside, and one with a quotation
# that holds the repetition mark ๆ; the answers asked on the dev split ("ฟุตบอลพรีเมียร์ลีกอังกฤษ", "ผิด ๆ")
# were cut off from the words the questions share with them when a space inside them ended a unit.
SKY_TH = ("ในวันที่ 8 กุมภาพันธ์ 2007 BSkyB ประกาศเจตนาในการแทนที่ช่องดิจิตัลทีวีฟรีบนพื้นดินพร้อมช่องสมัครสมาชิกสี่ช่อง "
          "มีการเสนอว่าช่องเหล่านี้จะมอบเนื้อหาหลากหลายจากพอร์ตโฟลิโอของ BSkyB รวมทั้งกีฬา (รวมถึง "
          "ฟุตบอลพรีเมียร์ลีกอังกฤษ), ภาพยนตร์, สื่อบันเทิงและข่าว การประกาศมาถึงหนึ่งวันหลัง Setanta Sports "
          "ยืนยันว่าจะเปิดตัวใน เดือนมีนาคม")
MAIL_TH = ("หนังสือพิมพ์ The Daily Mail รายงานในปี 2012 ว่าหน่วยงานผลประโยชน์ของรัฐบาลสหราชอาณาจักรได้ตรวจสอบการฟ้องร้อง "
           "\"ร่างกฎหมาย Sky TV เพื่อก่อตั้งหากผู้หญิงที่ได้รับผลประโยชน์ในฐานะแม่เลี้ยงเดี่ยวนั้นอ้างอย่างผิด ๆ "
           "ว่าอยู่อาศัยคนเดียว\" – เช่นเดียวกับตามที่กล่าวอ้าง การสมัครสมาชิกช่องกีฬาอาจทรยศ การมีอยู่ของผู้ชาย ในบ้าน")


def test_a_thai_unit_never_ends_inside_brackets_or_quotation_marks_or_before_the_repetition_mark():
    sky = pieces(SKY_TH)
    assert any("รวมทั้งกีฬา (รวมถึง ฟุตบอลพรีเมียร์ลีกอังกฤษ)" in p for p in sky)
    assert " ".join(sky) == SKY_TH
    mail = pieces(MAIL_TH)
    assert any("ในฐานะแม่เลี้ยงเดี่ยวนั้นอ้างอย่างผิด ๆ ว่าอยู่อาศัยคนเดียว\"" in p for p in mail)
    assert all(p.count('"') % 2 == 0 for p in mail)


def test_a_thai_preposition_or_conjunction_before_a_space_does_not_end_the_unit(monkeypatch):
    monkeypatch.setattr(sentence_split, "MIN_SEA_UNIT", 0)  # every other space ends a unit
    assert pieces("หลักการที่นำเสนอโดย วิลเลียม") == ["หลักการที่นำเสนอโดย วิลเลียม"]  # "by" William
    assert pieces("ช่องสมัครสมาชิกและ ภาพยนตร์") == ["ช่องสมัครสมาชิกและ ภาพยนตร์"]  # "and" films
    assert pieces("ระบบใช้ดัชนีหลายแบบ (ดัชนีแบน ดัชนีกราฟ)") == ["ระบบใช้ดัชนีหลายแบบ (ดัชนีแบน ดัชนีกราฟ)"]
    assert pieces("กรุงเทพเป็นเมืองหลวง ประเทศไทยมีจังหวัดมาก") == ["กรุงเทพเป็นเมืองหลวง", "ประเทศไทยมีจังหวัดมาก"]


def test_a_page_without_full_stops_is_cut_into_bounded_pieces():
    text = " ".join(["word"] * 400)
    spans = sentence_spans(text, limit=100)
    assert len(spans) > 10 and all(b - a <= 100 for a, b in spans)


def test_a_sentence_wrapped_over_lines_is_one_sentence():
    text = ("Each chunk is also turned into a vector by the all-MiniLM-L6-v2 sentence embedding model. The\n"
            "nearest chunks are found with the sqlite-vec extension. Semantic search finds paraphrases and synonyms,\n"
            "but can miss rare names and\nexact identifiers.\n\n## Reciprocal rank fusion\n")
    assert pieces(text)[-2:] == ["Semantic search finds paraphrases and synonyms,\nbut can miss rare names and\n"
                                 "exact identifiers.", "## Reciprocal rank fusion"]


def test_a_pdf_page_keeps_its_title_line_apart_and_its_wrapped_sentences_whole():
    text = ("The Solar System at a glance\nThe Solar System formed about 4.6 billion years ago from the collapse\n"
            "of a cloud of gas and dust. Eight planets orbit the Sun: the four rocky inner planets\n"
            "Mercury, Venus, Earth and Mars, and the four giant outer planets Jupiter, Saturn, Uranus\n"
            "and Neptune. Between Mars and Jupiter lies the asteroid belt.")
    assert pieces(text) == [
        "The Solar System at a glance",
        "The Solar System formed about 4.6 billion years ago from the collapse\nof a cloud of gas and dust.",
        "Eight planets orbit the Sun: the four rocky inner planets\nMercury, Venus, Earth and Mars, and the four "
        "giant outer planets Jupiter, Saturn, Uranus\nand Neptune.",
        "Between Mars and Jupiter lies the asteroid belt."]


def test_table_rows_list_items_headings_and_code_lines_are_units_whole():
    text = ("## Settings\n| setting | value |\n|---|---|\n| minimum chunk size | 50 words. Short tails merge. |\n"
            "| default chunk size | 512 words |\n\nname\tvalue\nport\t8080\n\n"
            "1. Install it. Then run it\n   from the folder you chose.\n- Another item\n\n```\nimport faiss\n"
            "index = faiss.IndexFlatL2(384)\n```")
    assert pieces(text) == ["## Settings", "| setting | value |", "|---|---|",
                            "| minimum chunk size | 50 words. Short tails merge. |",
                            "| default chunk size | 512 words |",
                            "name\tvalue", "port\t8080",
                            "1. Install it. Then run it\n   from the folder you chose.", "- Another item",
                            "```", "import faiss", "index = faiss.IndexFlatL2(384)", "```"]


def test_full_width_and_arabic_semicolons_end_a_unit_and_direction_marks_stay_outside():
    assert pieces("北京是首都；上海是最大的城市。") == ["北京是首都；", "上海是最大的城市。"]
    assert pieces("仿照了学院建筑。（例如，米切尔塔。）后来") == ["仿照了学院建筑。", "（例如，米切尔塔。）", "后来"]
    assert pieces("He left. “Go,” she said.") == ["He left.", "“Go,” she said."]
    assert pieces("القاهرة هي العاصمة؛ الإسكندرية ميناء.") == ["القاهرة هي العاصمة؛", "الإسكندرية ميناء."]
    assert pieces("\u200fما هي عاصمة مصر؟\u200f القاهرة هي العاصمة.\u200f") == ["ما هي عاصمة مصر؟",
                                                                            "القاهرة هي العاصمة."]
    assert pieces("القاهرة، وهي العاصمة، مدينة كبيرة.") == ["القاهرة، وهي العاصمة، مدينة كبيرة."]  # ، is a comma
    # an initial ("Herbert A. Simon") is no sentence end, with or without a space after its full stop
    assert len(pieces("الفائزون هم ميلتون فريدمان وهربرت أ.سيمون وبول سامويلسون.")) == 1
    assert len(pieces("الفائزون هم ميلتون فريدمان وهربرت أ. سيمون وبول سامويلسون.")) == 1


def test_a_thai_sentence_wrapped_between_two_words_stays_whole_and_ends_at_its_space(monkeypatch):
    monkeypatch.setattr(sentence_split, "MIN_SEA_UNIT", 0)  # every space ends a unit: the wrap is what is tested
    text = ("แบ็กเอนด์\n\nระบบนี้ใช้ FAISS เป็นค่าเริ่มต้น แบ็กเอนด์ Qdrant ให้คุณภาพการค้นคืนสูงสุดเพราะ\n"
            "ใช้ดัชนี HNSW ได้ ข้อมูลอยู่ในโฟลเดอร์")
    assert pieces(text) == ["แบ็กเอนด์", "ระบบนี้ใช้ FAISS เป็นค่าเริ่มต้น",
                            "แบ็กเอนด์ Qdrant ให้คุณภาพการค้นคืนสูงสุดเพราะ\nใช้ดัชนี HNSW ได้", "ข้อมูลอยู่ในโฟลเดอร์"]


TEXT = st.text(alphabet=st.sampled_from(list("ab .!?\n。؟กข 中,|#-*\t1)；؛\u200f`")), max_size=300)


def _check_spans(text: str, spans: list[tuple[int, int]], limit: int) -> None:
    covered = set()
    last = 0
    for a, b in spans:
        assert last <= a < b <= len(text)  # in order, never overlapping, never empty: the splitter advances
        assert b - a <= limit
        assert text[a:b] == text[a:b].strip().strip("\u200f")
        covered.update(range(a, b))
        last = b
    assert all(i in covered for i, ch in enumerate(text) if not ch.isspace() and ch != "\u200f")


@settings(max_examples=200, deadline=None)
@given(TEXT)
def test_spans_are_ordered_stripped_and_lose_no_text(text):
    _check_spans(text, sentence_spans(text, limit=40), 40)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=400))
def test_any_string_is_split_without_losing_text(text):
    spans = sentence_spans(text, limit=60)
    covered = {i for a, b in spans for i in range(a, b)}
    assert all(a < b for a, b in spans) and all(b1 <= a2 for (_, b1), (a2, _) in zip(spans, spans[1:]))
    invisible = "\u200e\u200f\u061c\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\ufeff\u200b"
    assert all(i in covered for i, ch in enumerate(text) if not ch.isspace() and ch not in invisible)

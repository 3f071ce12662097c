"""The kind of answer a question asks for, and whether a sentence offers one, in English, Thai, Chinese, Japanese
and Arabic."""

from __future__ import annotations

import pytest

from desktop_app.core.chat.answer.quote.answer_kind import AnswerKind, answer_kind, offers


@pytest.mark.parametrize("question, kind", [
    ("When did the lighthouse open?", AnswerKind.WHEN), ("In which year was it built?", AnswerKind.WHEN),
    ("ประภาคารเปิดเมื่อไร", AnswerKind.WHEN), ("灯塔是哪一年建成的？", AnswerKind.WHEN),
    ("灯台はいつ建てられたか", AnswerKind.WHEN),
    ("متى افتتحت المنارة؟", AnswerKind.WHEN),
    ("How many steps does it have?", AnswerKind.COUNT), ("บันไดมีกี่ขั้น", AnswerKind.COUNT),
    ("灯塔有多少级台阶？", AnswerKind.COUNT), ("كم درجة في المنارة؟", AnswerKind.COUNT),
    ("Who restored the tower?", AnswerKind.WHO), ("ใครบูรณะหอคอย", AnswerKind.WHO), ("谁修复了塔？", AnswerKind.WHO),
    ("من هو الذي رمم البرج؟", AnswerKind.WHO),
    ("Where is the lighthouse?", AnswerKind.WHERE), ("ประภาคารอยู่ที่ไหน", AnswerKind.WHERE),
    ("灯塔在哪里？", AnswerKind.WHERE), ("أين تقع المنارة؟", AnswerKind.WHERE),
    ("Describe the lighthouse.", None), ("อธิบายประภาคาร", None),
])
def test_the_kind_asked_for_in_each_language(question, kind):
    assert answer_kind(question) == kind


def test_numbers_and_dates_in_every_script_are_offered():
    assert offers(AnswerKind.COUNT, "บันไดมี ๑๔๓ ขั้น", "บันไดมีกี่ขั้น")  # Thai digits
    assert offers(AnswerKind.COUNT, "في المنارة ١٤٣ درجة.", "كم درجة في المنارة؟")  # Arabic-Indic digits
    assert offers(AnswerKind.COUNT, "灯塔有一百四十三级台阶。", "灯塔有多少级台阶？")  # Chinese numerals
    assert not offers(AnswerKind.COUNT, "The tower is tall.", "How many steps?")
    assert offers(AnswerKind.WHEN, "เปิดเมื่อเดือนมีนาคม พ.ศ. 2414", "ประภาคารเปิดเมื่อไร")  # a Thai month and era
    assert offers(AnswerKind.WHEN, "灯塔建于一八七一年。", "灯塔是哪一年建成的？")  # a Chinese date word
    assert offers(AnswerKind.WHEN, "افتتحت المنارة في مارس.", "متى افتتحت المنارة؟")
    assert not offers(AnswerKind.WHEN, "It was built in 1871.", "Was it built in 1871?")  # only the question's own year
    assert offers(AnswerKind.WHO, "The tower was restored by Elsa Varga.", "Who restored the tower?")
    assert offers(AnswerKind.WHO, "ใครบางคนบูรณะ", "ใครบูรณะหอคอย") is None  # no capitals: cannot tell
    assert offers(None, "anything", "Describe it.") is None


@pytest.mark.parametrize("question, kind", [
    ("หลานสาวของดอกเตอร์ ฮู ชื่ออะไร", AnswerKind.NAME), ("神秘博士的孙女叫什么名字？", AnswerKind.NAME),
    ("ما هو اسم حفيدة الدكتور؟", AnswerKind.NAME), ("What was the name of the first serial?", AnswerKind.NAME),
    ("من صمم الشعار الجديد؟", AnswerKind.WHO),  # a question opening with من asks who (من inside it is "from")
    ("นักแสดงคนไหนได้เล่นบทนี้", AnswerKind.WHO), ("ประเทศไหนมีประชากรมากที่สุด", AnswerKind.WHERE),
])
def test_names_asked_for_without_a_who_word(question, kind):
    assert answer_kind(question) == kind


def test_a_name_is_told_in_scripts_without_capitals_by_its_cues():
    # Thai: a transliterated name (a word with the silencer ์ after another word), a title, a place word
    assert offers(AnswerKind.NAME, "หลานสาวของเขาคือ ซูซาน ฟอร์แมน ซึ่งเดินทางไปด้วย", "หลานสาวของเขาชื่ออะไร")
    assert offers(AnswerKind.WHO, "หอคอยได้รับการบูรณะโดยนายสมชาย ใจดี", "ใครบูรณะหอคอย")
    assert offers(AnswerKind.WHERE, "เขาย้ายไปอยู่ที่ประเทศญี่ปุ่นในเวลาต่อมา", "เขาย้ายไปอยู่ที่ไหน")
    # Chinese: a transliteration joined by a middle dot, a title in 《》
    assert offers(AnswerKind.WHO, "1785年詹姆斯·赫顿向学会提交了论文。", "谁提交了论文？")
    assert offers(AnswerKind.NAME, "第一季叫作《非凡女孩》。", "第一季叫什么？")
    # Arabic: the word after a title or a place word, a Latin name in Arabic text
    assert offers(AnswerKind.WHO, "رمم البرج الملك فيصل في عام ١٩٣٠.", "من رمم البرج؟")
    assert offers(AnswerKind.WHERE, "انتقل لاحقًا إلى مدينة الإسكندرية.", "أين انتقل؟")
    assert offers(AnswerKind.NAME, "يستعمل نظام OpenTV للبث.", "ما اسم النظام؟")
    # the question's own name is no answer; a sentence with no cue cannot be told
    assert not offers(AnswerKind.WHO, "1785年詹姆斯·赫顿向学会提交了论文。", "詹姆斯·赫顿提交了什么？")
    assert offers(AnswerKind.WHO, "ใครบางคนบูรณะ", "ใครบูรณะหอคอย") is None
    assert offers(AnswerKind.WHO, "رمم البرج لاحقا.", "من رمم البرج؟") is None

"""The kind of answer a question asks for, and whether a sentence offers one, in English, Thai, Chinese, Japanese
and Arabic."""

from __future__ import annotations

import pytest

from desktop_app.core.chat.answer.answer_kind import AnswerKind, answer_kind, offers


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

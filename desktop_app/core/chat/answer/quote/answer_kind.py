"""What kind of answer a question asks for (a time, a number, a person, a place), and whether a sentence offers
one, in English, Thai, Chinese, Japanese and Arabic: cheap patterns, no model.

A question word is looked for where each language puts it ("when"/"เมื่อไร"/"什么时候"/"いつ"/"متى"), and a
sentence offers a time when it holds a year or a date word of its language (เดือน names and พ.ศ. in Thai; 年 月
日 世纪 after a numeral in Chinese and Japanese; month names, عام and القرن in Arabic), a number when it holds any
digit (Thai ๐-๙ and Arabic-Indic ٠-٩ are digits too) or a Chinese numeral, a person, place or name when it holds a
name the question does not. A name is a capitalised word, or in a script without capitals (Thai, Chinese, Arabic):
a run of Latin letters, a title in quotation marks or 《》, a Chinese transliteration joined by a middle dot
(詹姆斯·赫顿), or the word after a title or a place word of the language (Thai "นาย", "ประเทศ"; Chinese "国王",
names ending in "大学", "公司"; Arabic "الملك", "ابن", "مدينة"). A sentence in such a script with none of these cannot
be told apart (`offers` answers None).
"""

from __future__ import annotations

from enum import StrEnum

import regex


class AnswerKind(StrEnum):
    WHEN = "when"
    COUNT = "count"
    WHO = "who"
    WHERE = "where"
    NAME = "name"  # what something is called: a title, a name of a work, a group, a thing


_ASKS: dict[AnswerKind, regex.Pattern[str]] = {
    AnswerKind.WHEN: regex.compile(
        r"(?i)^\s*when\b|\b(?:what|which|in which) (?:year|century|decade|date|month|day)\b|\bsince when\b"
        r"|เมื่อไร|เมื่อไหร่|เมื่อใด|ปีใด|ปีไหน|ปีอะไร|ปีที่เท่าไร|ศตวรรษใด|วันที่เท่าไร|ช่วงเวลาใด"
        r"|什么时候|何时|哪一年|哪年|哪个世纪|哪一天|哪天|几月|几号|いつ|何年|何世紀|何月|何日"
        r"|متى|(?:في )?أي (?:عام|سنة|قرن|تاريخ|شهر|يوم)"),
    AnswerKind.COUNT: regex.compile(
        r"(?i)\bhow (?:many|much|long|old|far|large|big|tall|high)\b|\bwhat (?:percentage|percent|number|amount)\b"
        r"|กี่|เท่าไร|เท่าไหร่|จำนวนเท่าใด|ปริมาณเท่าใด"
        r"|多少|几个|几位|几种|几次|多大|多长|多高|多远|多久|いくつ|いくら|何人|何個|何回|どのくらい|どれくらい"
        r"|(?:^|\s)كم(?:\s|$)|ما (?:عدد|مقدار|نسبة)"),
    AnswerKind.WHO: regex.compile(
        r"(?i)^\s*(?:who|whom|whose)\b|ใคร|คนใด|คนไหน|谁|哪位|誰|だれ|どなた"
        r"|(?:^|\s)(?:مَن|من هو|من هي|من هم|من الذي|من التي)(?:\s|$)|^\s*[\"«“]?من\s|فم(?:ا|اذا كان) اسمه"),
    AnswerKind.WHERE: regex.compile(
        r"(?i)^\s*where\b|\b(?:in|to|from) which (?:country|city|state|region|place)\b|ที่ไหน|ที่ใด|แห่งใด|ประเทศใด"
        r"|เมืองใด|哪里|哪儿|何处|在哪|哪个国家|哪座城市|どこ|أين|(?:في )?أي (?:مكان|بلد|دولة|مدينة|منطقة)"
        r"|ประเทศไหน|เมืองไหน|哪国|哪个城市|(?:^|\s)(?:أي|ما) (?:بلد|دولة|مدينة)"),
    AnswerKind.NAME: regex.compile(
        r"(?i)\bwhat (?:is|was|were|are) (?:the )?names?\b|\bcalled what\b|\bwhat (?:is|was) .{1,60} called\b"
        r"|ชื่อว่าอะไร|ชื่ออะไร|เรียกว่าอะไร|ชื่อว่า$|名字|名称|叫什么|称为什么|被命名为什么"
        r"|ما ?اسم|ما هو اسم|ماذا كان اسم|ماذا كان سيسمى|ماذا يسمى|ما لقب"),
}

_DIGITS = regex.compile(r"\d")  # Unicode digits: 0-9, ๐-๙, ٠-٩, ０-９ …
_CJK_NUMERAL = regex.compile(r"[一二三四五六七八九十百千万億亿两〇零]+")
_NUMBER_WORD = regex.compile(
    r"(?i)\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|hundred|"
    r"thousand|million|billion|dozen)\b|หนึ่ง|สอง|สาม|สี่|ห้า|หก|เจ็ด|แปด|เก้า|สิบ|ร้อย|พัน|หมื่น|แสน|ล้าน"
    r"|واحد|اثنان|ثلاث|أربع|خمس|ست|سبع|ثمان|تسع|عشر|مئة|مائة|ألف|مليون|مليار")
_TIME = regex.compile(
    r"\b\d{3,4}\b|\b\d{1,4}s\b|\b(?:BC|AD|BCE|CE)\b|\bcentur(?:y|ies)\b"
    r"|\b(?:January|February|March|April|May|June|July|August|September|October|November|December)\b"
    r"|มกราคม|กุมภาพันธ์|มีนาคม|เมษายน|พฤษภาคม|มิถุนายน|กรกฎาคม|สิงหาคม|กันยายน|ตุลาคม|พฤศจิกายน|ธันวาคม"
    r"|พ\.ศ\.|ค\.ศ\.|ศตวรรษ|ทศวรรษ"
    r"|[\d一二三四五六七八九十百千〇零两]+\s*(?:年|月|日|世纪|世紀|年代)"
    r"|يناير|فبراير|مارس|أبريل|مايو|يونيو|يوليو|أغسطس|سبتمبر|أكتوبر|نوفمبر|ديسمبر|كانون|شباط|آذار|نيسان|أيار|حزيران"
    r"|تموز|آب|أيلول|تشرين|(?:عام|سنة|القرن)\s+\S*\d")
_CAPITALISED = regex.compile(r"(?<![.!?]\s)(?<!^)\b\p{Lu}\p{Ll}+")
_WORD = regex.compile(r"\w+")
_CASELESS = regex.compile(r"[\p{Thai}\p{Han}\p{Arabic}]")
# In a sentence of a script without capitals, what a name looks like (the named group is the name itself).
_NAME_CUES = regex.compile(
    r"(?P<name>\p{Latin}{2,}(?:[ \-.]\p{Latin}+)*)"  # a Latin word inside Thai, Chinese or Arabic text
    r"|[“\"«《「『](?P<name>[^”\"»》」』]{2,40})[”\"»》」』]"  # a title quoted
    r"|(?P<name>\p{Han}{1,6}(?:[·・•]\p{Han}{1,6})+)"  # a transliterated Chinese name: 詹姆斯·赫顿
    r"|(?:国王|皇帝|女王|总统|主席|总理|首相|博士|教授|先生|女士|圣)(?P<name>\p{Han}{2,4})"
    r"|(?P<name>\p{Han}{2,5}(?:大学|公司|学院|教堂))"  # not 市 国 城 …: 城市 and 中国 are everywhere
    r"|(?:นาย|นางสาว|นาง|ดร\.|ดอกเตอร์|ศาสตราจารย์|เซอร์|พระเจ้า|กษัตริย์|ราชินี|เจ้าชาย|เจ้าหญิง|ประธานาธิบดี"
    r"|นายกรัฐมนตรี|สมเด็จ|เซนต์|นักบุญ|ประเทศ|เมือง|จังหวัด|รัฐ|เกาะ|แม่น้ำ|ภูเขา|กรุง|มณฑล|แคว้น|มหาวิทยาลัย"
    r"|บริษัท)\s?(?P<name>\p{Thai}{2,}(?: \p{Thai}{2,})?)"
    r"|(?P<name>\p{Thai}{2,} \p{Thai}*\u0e4c\p{Thai}*)"  # a transliterated Thai name: ซูซาน ฟอร์แมน
    r"|(?:ال(?:ملك|ملكة|رئيس|سيد|دكتور|أمير|شيخ|إمام|بابا|قديس|سير)|(?:ا|إ)?بن|أبو|أبي|مدينة|دولة|جزيرة|نهر|ولاية"
    r"|مقاطعة|جبل|بحر|عاصمة|إقليم|جامعة|شركة)\s(?P<name>\p{Arabic}{2,}(?:\s\p{Arabic}{2,})?)")


def _core(name: str) -> str:
    """What of a cued name must be in the question for the name to be the question's own: a dotted Chinese name's
    run takes in the characters around it (年詹姆斯·赫顿向学会), so there only two characters each side of the dot."""
    dot = regex.search(r"[·・•]", name)
    return name[max(0, dot.start() - 2):dot.end() + 2] if dot else name


def answer_kind(question: str) -> AnswerKind | None:
    """The kind of answer `question` asks for, or None when it asks for none in particular."""
    return next((kind for kind, pattern in _ASKS.items() if pattern.search(question)), None)


def offers(kind: AnswerKind | None, sentence: str, question: str) -> bool | None:
    """Whether `sentence` holds an answer of `kind` beyond the question's own words (None: cannot tell)."""
    if kind is None:
        return None
    own = {w.casefold() for w in _WORD.findall(question)}
    if kind is AnswerKind.WHEN:
        return any(m.group(0).casefold() not in own for m in _TIME.finditer(sentence))
    if kind is AnswerKind.COUNT:
        return bool(_DIGITS.search(sentence) or _CJK_NUMERAL.search(sentence) or _NUMBER_WORD.search(sentence))
    names = [m.group(0) for m in _CAPITALISED.finditer(sentence)]
    if _CASELESS.search(sentence):
        folded = question.casefold()
        cued = [_core(m.group("name")) for m in _NAME_CUES.finditer(sentence)]
        if any(n.casefold() not in folded for n in cued):
            return True
        if not names:
            return None  # no cue: a name cannot be told from another word
    elif not names and not any(ch.isupper() or ch.islower() for ch in sentence):
        return None  # a script without capitals: no name can be told from another word
    return any(n.casefold() not in own for n in names)

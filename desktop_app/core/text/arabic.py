"""Arabic-script words: orthographic normalisation and a light stemmer (article, conjunction, common suffixes).

Arabic writes the same word many ways: with or without short-vowel marks (tashkeel), with hamza on the alef
or not (أ إ آ ٱ), with taa marbuta or haa at the end (ة / ه), alef maqsura or yaa (ى / ي), stretched with
tatweel (ـ). `normalize` folds all of these to one form, so `مُكتَبة`, `مكتبة` and `مكتبه` are one word.

`light_stem` then removes what is attached to a word without changing its meaning much, in the manner of
Larkey, Ballesteros & Connell's "light10" stemmer (2007), which beat root-based stemmers for retrieval:
the conjunction و, the article ال with its attached prepositions (وال بال كال فال لل), and a short list of
suffixes (dual/plural endings, possessive pronouns). A word is never cut below two letters.

`clitic_key` goes one step further for comparing two words (the quote selector's overlap), never for the index:
light10 leaves a one-letter preposition on a word without the article (لأطروحة "for a thesis", بواسطة) and the
taa of a taa marbuta that a possessive suffix followed (أطروحته "his thesis" → اطروحت).
"""

from __future__ import annotations

import re

# Short vowels, tanween, shadda, sukun, superscript alef, Quranic marks: meaning-preserving marks, dropped.
_MARKS = re.compile("[\u0610-\u061a\u064b-\u065f\u0670\u06d6-\u06dc\u06df-\u06e8\u06ea-\u06ed\u0640]")
_FOLD = str.maketrans({
    "\u0623": "\u0627",  # أ → ا
    "\u0625": "\u0627",  # إ → ا
    "\u0622": "\u0627",  # آ → ا
    "\u0671": "\u0627",  # ٱ (wasla) → ا
    "\u0629": "\u0647",  # ة → ه
    "\u0649": "\u064a",  # ى → ي
    "\u06cc": "\u064a",  # Farsi yeh ی → ي (the same letter typed on a Persian keyboard)
    "\u06a9": "\u0643",  # keheh ک → ك
})
_ARABIC = re.compile("[\u0600-\u06ff\u0750-\u077f\u08a0-\u08ff\ufb50-\ufdff\ufe70-\ufeff]")

# After normalisation, so ة is already ه and ى is ي. Longest first: the first that fits is removed.
_ARTICLES = ("\u0648\u0627\u0644", "\u0628\u0627\u0644", "\u0643\u0627\u0644", "\u0641\u0627\u0644",  # وال بال كال فال
             "\u0644\u0644", "\u0627\u0644")  # لل ال
_CONJUNCTION = "\u0648"  # و
_SUFFIXES = ("\u0647\u0627", "\u0627\u0646", "\u0627\u062a", "\u0648\u0646", "\u064a\u0646",  # ها ان ات ون ين
             "\u064a\u0647", "\u0647", "\u064a")  # يه ه ي


def is_arabic(word: str) -> bool:
    """True when the word has at least one Arabic-script letter."""
    return _ARABIC.search(word) is not None


def normalize(word: str) -> str:
    """One spelling for the variants of an Arabic word: no tashkeel or tatweel; alef, taa marbuta, yaa folded."""
    return _MARKS.sub("", word).translate(_FOLD)


def light_stem(word: str) -> str:
    """The light stem of a normalised Arabic word (see the module docstring); short words come back unchanged."""
    if len(word) >= 4 and word.startswith(_CONJUNCTION):
        word = word[1:]
    for article in _ARTICLES:
        if word.startswith(article) and len(word) - len(article) >= 2:
            word = word[len(article):]
            break
    for suffix in _SUFFIXES:  # light10 tries each suffix once, in this order
        if word.endswith(suffix) and len(word) - len(suffix) >= 2:
            word = word[: -len(suffix)]
    return word


_PROCLITICS = "\u0644\u0628\u0643\u0641"  # ل ب ك ف


def clitic_key(stem: str) -> str:
    """A light stem without a one-letter preposition or conjunction (ل ب ك ف) in front or a taa (ت) left at its
    end, for matching words across their attached forms; stems under five letters come back unchanged."""
    if len(stem) >= 5 and stem[0] in _PROCLITICS:
        stem = stem[1:]
    if len(stem) >= 5 and stem.endswith("\u062a"):
        stem = stem[:-1]
    return stem

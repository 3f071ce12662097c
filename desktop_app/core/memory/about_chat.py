"""Whether a question is about the conversation itself ("what did we decide about the port?", "what did I ask
earlier", "as I said before") rather than about the documents or a fact.

Only such a question may have past-chat excerpts (context, never evidence) put in its prompt: a document question
answered beside recalled chat turns quoted and cited the person's own earlier questions (issue 42). A fact the
person stated is evidence and needs no such rule.

The rule is a few regular expressions over English wording: the person or the assistant as the subject of a past
conversational verb (I said, did we decide, you told me, I gave you), or a marker of the conversation (remind me,
earlier in this chat, our last conversation, so far). Chosen on the tuning half of bench/data/about_chat (written
conversation questions, LoCoMo-style questions about what the person told, and look-alike document questions) and
the SQuAD questions of bench/data/qa; measured by bench/about_chat.py on the held-out half and on the SQuAD questions
of qa-heldout and qa-final, never looked at while writing it (figures in that script's docstring).
"""

from __future__ import annotations

import regex

_WHO = r"(?:i|we|you|u)"
_VERBS = (r"say|said|tell|told|ask|asked|mention|mentioned|decide|decided|agree|agreed|discuss|discussed|talk|"
          r"talked|suggest|suggested|recommend|recommended|conclude|concluded|settle|settled|pick|picked|choose|"
          r"chose|share|shared|give|gave|figure|figured|plan|planned|promise|promised|note|noted|write|wrote|"
          r"propose|proposed|land|landed|cover|covered|explain|explained|send|sent|paste|pasted|come up with|"
          r"came up with|end up|ended up")
_PAST_VERB = (r"said|told|asked|mentioned|decided|agreed|discussed|talked|suggested|recommended|concluded|settled|"
              r"picked|chose|shared|gave|figured|planned|promised|noted|wrote|proposed|landed|covered|explained|"
              r"sent|pasted|came up with|ended up|made")

_PATTERNS = (
    # "did we decide", "have I told you", "did you say", "had we agreed"
    regex.compile(rf"\b(?:did|didn'?t|have|haven'?t|had)\s+{_WHO}\s+(?:ever\s+|already\s+|just\s+|last\s+)?"
                  rf"(?:{_VERBS})\b", regex.I),
    # "I said", "we decided", "you told me", "the number I gave you"
    regex.compile(rf"\b{_WHO}\s+(?:just\s+|already\s+|once\s+|earlier\s+|previously\s+)?(?:{_PAST_VERB})\b",
                  regex.I),
    # "what was I asking", "what were we talking about"
    regex.compile(rf"\b(?:was|were)\s+{_WHO}\s+(?:talking|discussing|asking|saying|doing|working)\b", regex.I),
    # markers of the conversation itself
    regex.compile(r"\b(?:remind me|recap|so far|as i (?:said|mentioned|told you)|like i (?:said|mentioned)|"
                  r"(?:earlier|before|previously) in (?:this|our|the) (?:chat|conversation|session|thread)|"
                  r"(?:this|our|the|my|that) (?:last|previous|earlier|other|first|past) "
                  r"(?:chat|chats|conversation|conversations|session|sessions|discussion|talk|question|answer|message)|"
                  r"last time we|when we last|we (?:spoke|chatted)|my last question|your last answer)\b",
                  regex.I),
)


def about_chat(question: str) -> bool:
    """Whether `question` asks about the conversation (what was said, asked, decided or recommended in a chat)."""
    if not isinstance(question, str) or not question.strip():
        return False
    text = " ".join(question.replace("’", "'").split())
    return any(p.search(text) for p in _PATTERNS)

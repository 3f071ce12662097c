"""How well core/memory/about_chat.py tells a question about the conversation from a document (or fact) question.

    python bench/about_chat.py [--split tune|test] [--show-errors]

Labelled set: bench/data/about_chat/positives.txt (questions about the conversation, written for this: "what did we
decide about the port?", LoCoMo-style questions about what the person told, "when did I say I went to the support
group?") and negatives.txt (look-alike document and fact questions: "what did the committee agree on in 1920?",
"what is my locker code?"), each line in the tuning or the test half by a hash of its text; plus the SQuAD 2.0
questions of the QA splits as negatives: bench/data/qa for tuning, qa-heldout and qa-final for the test.

Caveat, plainly: the rule and both labelled halves were written by the same person in one sitting (the rule first,
then the lines, then one run on each half, no change after the test run). The test half was never used to change
the rule, but it shares its author's idea of English, so its perfect figures say the rule covers the wording its
author thinks of, not that it generalises; the SQuAD figure (questions nobody here wrote) is the firmer one.

    tuning half: precision 1.000 [0.920, 1.000]  recall 1.000 [0.920, 1.000]  (44 positives; 32 + 200 negatives)
    test half:   precision 1.000 [0.914, 1.000]  recall 1.000 [0.914, 1.000]  (41 positives; 38 + 894 negatives)
    SQuAD questions taken for conversation questions (test): 0 of 894, 0.000 [0.000, 0.004]

A missed positive costs the person the recalled excerpt for that question (the chat's own window and the fact list
still ride in the prompt); a false positive puts an excerpt in the prompt as labelled memory, where it still cannot
be quoted or cited.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _qa_stats import fmt, proportion  # noqa: E402

from desktop_app.core.memory.about_chat import about_chat  # noqa: E402

DATA = Path(__file__).resolve().parent / "data"
SQUAD = {"tune": ("qa",), "test": ("qa-heldout", "qa-final")}


def half(text: str) -> str:
    """The half a labelled line belongs to (a hash of its text: stable, and blind to what it says)."""
    return "tune" if hashlib.blake2b(text.encode(), digest_size=4).digest()[0] % 2 == 0 else "test"


def labelled(split: str) -> list[tuple[str, bool, str]]:
    """(question, about the conversation, where from) of one split."""
    out = []
    for name, label in (("positives.txt", True), ("negatives.txt", False)):
        for line in (DATA / "about_chat" / name).read_text(encoding="utf-8").splitlines():
            if line.strip() and half(line.strip()) == split:
                out.append((line.strip(), label, name))
    for folder in SQUAD[split]:
        for line in (DATA / folder / "questions.jsonl").read_text(encoding="utf-8").splitlines():
            out.append((json.loads(line)["question"], False, folder))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--split", choices=("tune", "test"), default="test")
    ap.add_argument("--show-errors", action="store_true")
    args = ap.parse_args()
    rows = [(q, label, src, about_chat(q)) for q, label, src in labelled(args.split)]
    said = [label for _, label, _, guess in rows if guess]
    positives = [guess for _, label, _, guess in rows if label]
    squad = [guess for _, label, src, guess in rows if src.startswith("qa")]
    print(f"split {args.split}: {len(positives)} positives, {len(rows) - len(positives) - len(squad)} written "
          f"negatives, {len(squad)} SQuAD questions")
    print(f"precision {fmt(proportion(said))}  recall {fmt(proportion(positives))}")
    print(f"SQuAD questions taken for conversation questions: {fmt(proportion(squad))}")
    if args.show_errors:
        for q, label, src, guess in rows:
            if label != guess:
                print(f"  {'missed' if label else 'false positive'} ({src}): {q}")


if __name__ == "__main__":
    main()

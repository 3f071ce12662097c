"""bench/abstain_verify.py (#42, dev only): the report over judged rows — AUC, the judge's operating points, and the
gate-or-judge refusals."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))

from abstain_verify import auc, prompt, report  # noqa: E402


def row(kind: str, score: float, confidence: float | None) -> dict:
    return {"id": f"{kind}{score}", "kind": kind, "score": score, "confidence": confidence}


def test_auc_counts_pairs_ordered_and_ties_as_half():
    assert auc([2.0, 3.0], [0.0, 1.0]) == 1.0
    assert auc([0.0], [1.0]) == 0.0
    assert auc([1.0], [1.0]) == 0.5


def test_the_judge_refuses_under_its_floor_and_the_gate_under_its_confidence():
    judged = ([row("answerable", s, 0.9) for s in (1.0, 2.0, 3.0, -1.0)]
              + [row("adversarial", s, c) for s, c in ((-3.0, 0.9), (-0.8, 0.9), (2.0, 0.1), (2.5, 0.9))])
    out = report(judged)
    assert out["answerable"] == out["adversarial"] == 4
    assert out["gate_or_judge_None"]["adversarial"]["value"] == 0.25  # only the low-confidence one
    assert out["gate_or_judge_-2.0"]["adversarial"]["value"] == 0.5  # and the judge's -3
    assert out["gate_or_judge_-0.5"]["adversarial"]["value"] == 0.75
    assert out["gate_or_judge_-0.5"]["answerable"]["value"] == 0.25  # the answerable -1 is refused too
    assert 0.5 < out["auc_judge"] < 1.0


def test_the_prompt_carries_the_quote_and_the_question_in_chatml():
    text = prompt("Pepper is a grey cat.", "What colour is Pepper?")
    assert text.startswith("<|im_start|>system\n") and text.endswith("<|im_start|>assistant\n")
    assert "Text: Pepper is a grey cat.\nQuestion: What colour is Pepper?" in text

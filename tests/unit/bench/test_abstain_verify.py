"""bench/abstain_verify.py (#42): the report over checked rows — the AUC, and refusals without the check or with it
under each floor, per kind, after the whole gate or after its floors only, with the shown answers of what is not
refused."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))

from abstain_verify import auc, report  # noqa: E402


def test_auc_counts_pairs_ordered_and_ties_as_half():
    assert auc([2.0, 3.0], [0.0, 1.0]) == 1.0
    assert auc([0.0], [1.0]) == 0.0
    assert auc([1.0], [1.0]) == 0.5


def test_a_row_refused_before_the_check_stays_refused_and_the_check_refuses_under_its_floor():
    rows = [{"id": f"{kind}{i}", "kind": kind, "quote": {"text": f"{kind} {i} Paris"}}
            for kind, n in (("answerable", 4), ("adversarial", 4), ("absent", 2)) for i in range(n)]
    judged = [{"id": "answerable0", "kind": "answerable", "score": 2.0, "gate": True},  # answerable3: floors refuse
              {"id": "answerable1", "kind": "answerable", "score": 0.5, "gate": True},
              {"id": "answerable2", "kind": "answerable", "score": -0.7, "gate": True},
              {"id": "adversarial0", "kind": "adversarial", "score": -3.0, "gate": True},
              {"id": "adversarial1", "kind": "adversarial", "score": -0.6, "gate": True},
              {"id": "adversarial2", "kind": "adversarial", "score": 1.0, "gate": True},
              {"id": "absent0", "kind": "absent", "score": -1.5, "gate": True},
              {"id": "adversarial3", "kind": "adversarial", "score": 0.2, "gate": False}]  # the combined step's
    answers = {"answerable0": ("Paris",), "answerable1": ("London",), "answerable2": ("Paris",)}
    both = report(rows, judged, answers)
    assert both["floors"]["adversarial"]["None"]["value"] == 0.0  # the check alone refuses after the floors
    assert both["floors"]["adversarial"]["-0.5"]["value"] == 0.5
    out = both["gate"]
    assert out["answerable"]["None"]["value"] == 0.25 and out["answerable"]["-0.5"]["value"] == 0.5
    assert out["adversarial"]["None"]["value"] == 0.25 and out["adversarial"]["-0.5"]["value"] == 0.75
    assert out["adversarial"]["-2.0"]["value"] == 0.5 and out["adversarial"]["0.0"]["value"] == 0.75
    assert out["absent"]["None"]["value"] == 0.5 and out["absent"]["-1.0"]["value"] == 1.0
    assert out["shown_quote_gold"]["None"]["value"] == 2 / 3  # answerable0 and 2 hold Paris, answerable1 does not
    assert out["shown_quote_gold"]["-0.5"]["value"] == 0.5
    assert out["auc_answerable_vs_adversarial"] == 6 / 9


def test_the_shipped_rule_refuses_under_the_floor_and_shows_what_the_check_rescues():
    rows = [{"id": f"a{i}", "kind": "adversarial", "quote": {"text": "t"}} for i in range(4)]
    judged = [{"id": "a0", "kind": "adversarial", "score": -1.5, "gate": True},  # under the floor: refused
              {"id": "a1", "kind": "adversarial", "score": -0.5, "gate": True},  # the gate passed, the check too
              {"id": "a2", "kind": "adversarial", "score": 0.5, "gate": False}]  # rescued from the combined step
    shipped = report(rows, judged, {})["shipped"]  # a3: refused before the check
    assert shipped["adversarial"]["value"] == 0.5 and shipped["adversarial"]["n"] == 4

"""Abstention, measured and fitted on the dev split only: which signals separate SQuAD 2.0's unanswerable questions.

    .venv/bin/python bench/abstain.py [--index DIR] [--limit N] [--rows FILE]

For every dev question (bench/data/qa; never the held-out splits) it retrieves the passages as chat does
(hybrid search, the library's MiniLM), picks the quote with the library's selector and computes the gate's
signals (desktop_app/core/chat/abstain.py). It prints each signal's separation (AUC, answerable vs not), then
fits the logistic gate (numpy, L2, standardised signals) and reports 5-fold cross-validated refusals of the
unanswerable and false refusals of the answerable at a range of thresholds, plus the threshold that keeps the
cross-validated false refusals at or under 0.1. The weights in raw signal units are printed for abstain.py.
Saves bench/results/qa_abstain_dev.json.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
from pathlib import Path

import numpy as np
from _common import RESULTS, save
from qa import SPLITS, build_library, contains_any, load_questions

from desktop_app.core.chat.abstain import Signals, signals
from desktop_app.core.chat.context import Passage
from desktop_app.core.chat.quote import Quote, candidate_passages
from desktop_app.core.chat.quote_default import embedder_selector
from desktop_app.core.settings import Settings

NAMES = list(Signals.__dataclass_fields__)
FOLDS = 5
L2 = 1.0
MAX_FALSE = 0.1
GATE = ["score", "margin", "sentence", "passage", "rare", "missing", "typed"]  # all: CV best (below)


def collect(lib, questions) -> list[dict]:
    selector = embedder_selector(lambda: lib.embedder)
    rows = []
    for i, q in enumerate(questions, 1):
        results = lib._retrieve_for_chat(q.question, lib.settings.context_top_k)
        passages = candidate_passages(results, lib.settings.context_min_score)
        quote = selector.select(q.question, passages) if passages else None
        row: dict = {"id": q.id, "question": q.question, "impossible": q.impossible,
                     "quote": quote.to_dict() if quote else None, "passages": [p.to_dict() for p in passages]}
        if quote is not None:
            row["signals"] = signals(q.question, quote, passages).to_dict()
            home = next(p for p in passages if p.n == quote.n)
            if not q.impossible:
                row["quote_gold"] = contains_any(quote.text, q.answers)
                row["passage_gold"] = contains_any(home.content, q.answers)
                row["holds"] = [p.n for p in passages if contains_any(p.content, q.answers)]
                row["quote_n"] = quote.n
        rows.append(row)
        if i % 20 == 0:
            print(f"  {i}/{len(questions)}", flush=True)
    return rows


def auc(pos: list[float], neg: list[float]) -> float:
    """P(a random answerable scores above a random unanswerable), ties half."""
    if not pos or not neg:
        return 0.5
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


def fit(x: np.ndarray, y: np.ndarray, l2: float = L2, steps: int = 3000, lr: float = 0.1) -> np.ndarray:
    """Logistic regression by gradient descent on standardised x; returns [bias, w...] in standardised units."""
    xb = np.hstack([np.ones((len(x), 1)), x])
    w = np.zeros(xb.shape[1])
    for _ in range(steps):
        p = 1 / (1 + np.exp(-xb @ w))
        grad = xb.T @ (p - y) / len(y) + l2 * np.r_[0, w[1:]] / len(y)
        w -= lr * grad
    return w


def prob(w: np.ndarray, x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-(w[0] + x @ w[1:])))


def cross_validated(x: np.ndarray, y: np.ndarray, names: list[int]) -> np.ndarray:
    """Out-of-fold probabilities (folds seeded, stratified by label)."""
    rng = random.Random(3)
    folds = np.zeros(len(y), dtype=int)
    for label in (0, 1):
        idx = [i for i in range(len(y)) if y[i] == label]
        rng.shuffle(idx)
        for k, i in enumerate(idx):
            folds[i] = k % FOLDS
    out = np.zeros(len(y))
    for f in range(FOLDS):
        tr, te = folds != f, folds == f
        mu, sd = x[tr][:, names].mean(0), x[tr][:, names].std(0) + 1e-9
        w = fit((x[tr][:, names] - mu) / sd, y[tr])
        out[te] = prob(w, (x[te][:, names] - mu) / sd)
    return out


def curve(p: np.ndarray, y: np.ndarray) -> list[dict]:
    """Refused (unanswerable) and false refusals (answerable) when abstaining under each threshold."""
    out = []
    for t in np.round(np.arange(0.05, 0.96, 0.05), 2):
        out.append({"threshold": float(t), "refused": float(np.mean(p[y == 0] < t)),
                    "false": float(np.mean(p[y == 1] < t))})
    return out


def operating_point(p: np.ndarray, y: np.ndarray, max_false: float = MAX_FALSE) -> dict:
    """The highest threshold (most refusals) whose false refusals stay at or under `max_false`."""
    best = {"threshold": 0.0, "refused": 0.0, "false": 0.0}
    for t in sorted(set(np.round(p, 4))):
        false = float(np.mean(p[y == 1] < t))
        if false <= max_false:
            best = {"threshold": float(t), "refused": float(np.mean(p[y == 0] < t)), "false": false}
    return best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--index", help="the dev index folder (bench/qa.py --index); a temp folder otherwise")
    ap.add_argument("--limit", type=int)
    ap.add_argument("--rows", help="reuse signals saved by an earlier run (skip retrieval)")
    args = ap.parse_args()
    if args.rows:  # the retrieval and quote of an earlier run; the signals computed afresh
        rows = json.loads(Path(args.rows).read_text(encoding="utf-8"))["rows"]
        for r in rows:
            if r["quote"] is not None:
                passages = [Passage.from_dict(p) for p in r["passages"]]
                r["signals"] = signals(r["question"], Quote.from_dict(r["quote"]), passages).to_dict()
    else:
        home = Path(args.index) if args.index else Path(tempfile.mkdtemp(prefix="trove-abstain-"))
        lib, _ = build_library(home, Settings(embedder="minilm"), SPLITS["dev"])
        try:
            rows = collect(lib, load_questions(args.limit, SPLITS["dev"]))
        finally:
            lib.close()
    scored = [r for r in rows if "signals" in r]
    x = np.array([[r["signals"][k] for k in NAMES] for r in scored], dtype=float)
    y = np.array([0 if r["impossible"] else 1 for r in scored], dtype=float)
    separation = {k: auc(list(x[y == 1, i]), list(x[y == 0, i])) for i, k in enumerate(NAMES)}
    print("AUC answerable vs unanswerable (0.5 = no separation):")
    for k, a in separation.items():
        print(f"  {k:<10} {a:.3f}")
    sets = {"score only": ["score"], "score+rare+typed": ["score", "rare", "typed"],
            "score+rare+typed+margin": ["score", "rare", "typed", "margin"], "all": NAMES}
    report: dict = {"separation": separation, "sets": {}}
    for label, chosen in sets.items():
        idx = [NAMES.index(k) for k in chosen]
        p = cross_validated(x, y, idx)
        point = operating_point(p, y)
        report["sets"][label] = {"signals": chosen, "cv_auc": auc(list(p[y == 1]), list(p[y == 0])),
                                 "cv_curve": curve(p, y), "cv_operating_point": point}
        print(f"{label}: CV AUC {report['sets'][label]['cv_auc']:.3f}; at false refusals <= {MAX_FALSE}: "
              f"threshold {point['threshold']:.3f} refuses {point['refused']:.3f} (false {point['false']:.3f})")
    gate = [NAMES.index(k) for k in GATE]  # the gate's signals
    mu, sd = x[:, gate].mean(0), x[:, gate].std(0) + 1e-9
    w = fit((x[:, gate] - mu) / sd, y)
    raw = w[1:] / sd
    weights = {"bias": float(w[0] - (raw * mu).sum()), **dict.fromkeys(NAMES, 0.0),
               **{k: float(v) for k, v in zip(GATE, raw, strict=True)}}
    p_all = prob(w, (x[:, gate] - mu) / sd)
    report["weights"] = weights
    report["in_sample_operating_point"] = operating_point(p_all, y)
    print("weights (raw units):", json.dumps({k: round(v, 3) for k, v in weights.items()}))
    print("in-sample operating point:", report["in_sample_operating_point"])
    save("qa_abstain_dev", {**report, "questions": len(rows), "rows": rows}, str(RESULTS / "qa_abstain_dev.json"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Abstention, measured and fitted on the dev split only: which signals separate SQuAD 2.0's unanswerable questions.

    .venv/bin/python bench/abstain.py [--index DIR] [--limit N] [--rows FILE] [--all]

For every dev question (bench/data/qa; never the held-out splits) it retrieves the passages as chat does
(hybrid search, the library's MiniLM), picks the quote with the library's selector and computes the gate's
signals (desktop_app/core/chat/answer/gate/abstain.py). It prints each signal's separation (AUC, answerable vs not),
then what each refusal rule (abstain.refusal_rule) refuses, fits the logistic gate (numpy, L2, standardised signals)
and reports 5-fold cross-validated refusals of the unanswerable and false refusals of the answerable at a range
of thresholds; then nested cross-validation (the threshold chosen inside each training fold, rules included,
for false refusals at or under MAX_FALSE; 8 seeds), which is what a split never seen should look like. The
weights in raw signal units and the in-sample threshold (rules + gate, false refusals <= MAX_FALSE) are printed
for abstain.py.
Saves bench/results/qa_abstain_dev.json.

With --all it reads every question asked about the dev split's paragraphs (bench/data/qa/questions_all.jsonl:
1,482 answerable, 1,675 unanswerable; the 200 of questions.jsonl among them) instead of the 200-question sample,
so the rules' false refusals and the gate's threshold are measured on ten times the questions; it saves the
summary to bench/results/qa_abstain_all.json and the per-question rows (about 40 MB) outside git, to
~/.cache/trove-bench/qa_abstain_all_rows.json (reuse them with --rows).
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

from desktop_app.core.chat.answer.context import Passage
from desktop_app.core.chat.answer.gate.abstain import GATE as GATE_SIGNALS
from desktop_app.core.chat.answer.gate.abstain import Signals, refusal_rule, signals
from desktop_app.core.chat.answer.quote.default import embedder_selector
from desktop_app.core.chat.answer.quote.selector import Quote, candidate_passages
from desktop_app.core.settings import Settings

NAMES = list(Signals.__dataclass_fields__)
FOLDS = 5
L2 = 1.0
MAX_FALSE = 0.08  # the 0.1 target minus a margin; on all 3,157 dev-paragraph questions nested CV holds it (0.080)
GATE = list(GATE_SIGNALS)  # the eight graded signals with the three rules: the nested-CV best of SETS (--all)
SEEDS = 8
ALL_ROWS = Path.home() / ".cache" / "trove-bench" / "qa_abstain_all_rows.json"


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


def fold_of(y: np.ndarray, seed: int = 3) -> np.ndarray:
    """Each question's fold (seeded, stratified by label)."""
    rng = random.Random(seed)
    folds = np.zeros(len(y), dtype=int)
    for label in (0, 1):
        idx = [i for i in range(len(y)) if y[i] == label]
        rng.shuffle(idx)
        for k, i in enumerate(idx):
            folds[i] = k % FOLDS
    return folds


def gate_threshold(p: np.ndarray, y: np.ndarray, ruled: np.ndarray, max_false: float = MAX_FALSE) -> float:
    """The highest threshold whose refusals of the answerable (rules or gate) stay at or under `max_false`."""
    best = 0.0
    for t in sorted(set(np.round(p, 4))):
        if np.mean((ruled | (p < t))[y == 1]) <= max_false:
            best = float(t)
    return best


def nested(x: np.ndarray, y: np.ndarray, names: list[int], ruled: np.ndarray, seed: int) -> tuple[float, float]:
    """Refused (unanswerable) and false refusals (answerable) with the threshold chosen inside each training fold."""
    folds, refuse = fold_of(y, seed), np.zeros(len(y), dtype=bool)
    for f in range(FOLDS):
        tr, te = folds != f, folds == f
        mu, sd = x[tr][:, names].mean(0), x[tr][:, names].std(0) + 1e-9
        w = fit((x[tr][:, names] - mu) / sd, y[tr])
        t = gate_threshold(prob(w, (x[tr][:, names] - mu) / sd), y[tr], ruled[tr])
        refuse[te] = ruled[te] | (prob(w, (x[te][:, names] - mu) / sd) < t)
    return float(refuse[y == 0].mean()), float(refuse[y == 1].mean())


def cross_validated(x: np.ndarray, y: np.ndarray, names: list[int]) -> np.ndarray:
    """Out-of-fold probabilities (folds seeded, stratified by label)."""
    folds = fold_of(y)
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


SETS = {"score only": ["score"], "score+rare_sentence": ["score", "rare_sentence"],
        "score+rare_sentence+typed": ["score", "rare_sentence", "typed"],
        "the old seven": ["score", "margin", "sentence", "passage", "rare", "missing", "typed"],
        "the eight (shipped)": list(GATE_SIGNALS)}


def describe(scored: list[dict], x: np.ndarray, y: np.ndarray) -> dict:
    """Each signal's separation (AUC) and what each refusal rule refuses, printed and returned."""
    separation = {k: auc(list(x[y == 1, i]), list(x[y == 0, i])) for i, k in enumerate(NAMES)}
    print("AUC answerable vs unanswerable (0.5 = no separation):")
    for k, a in separation.items():
        print(f"  {k:<14} {a:.3f}")
    rules: dict[str, dict] = {}
    for r, label in zip(scored, y, strict=True):
        why = refusal_rule(Signals(**r["signals"]))
        if why:
            c = rules.setdefault(why, {"unanswerable": 0, "answerable": 0})
            c["answerable" if label else "unanswerable"] += 1
    for why, c in rules.items():
        print(f"  rule '{why}': refuses {c['unanswerable']} of {int((y == 0).sum())} unanswerable, "
              f"{c['answerable']} of {int(y.sum())} answerable")
    return {"separation": separation, "rules": rules, "sets": {}}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--index", help="the dev index folder (bench/qa.py --index); a temp folder otherwise")
    ap.add_argument("--limit", type=int)
    ap.add_argument("--rows", help="reuse signals saved by an earlier run (skip retrieval)")
    ap.add_argument("--all", action="store_true", help="every dev-paragraph question (questions_all.jsonl)")
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
            name = "questions_all.jsonl" if args.all else "questions.jsonl"
            rows = collect(lib, load_questions(args.limit, SPLITS["dev"], name))
        finally:
            lib.close()
        if args.all:
            save("qa_abstain_all_rows", {"rows": rows}, str(ALL_ROWS))
    scored = [r for r in rows if "signals" in r]
    x = np.array([[r["signals"][k] for k in NAMES] for r in scored], dtype=float)
    y = np.array([0 if r["impossible"] else 1 for r in scored], dtype=float)
    report = describe(scored, x, y)
    ruled = np.array([bool(refusal_rule(Signals(**r["signals"]))) for r in scored])
    for label, chosen in SETS.items():
        idx = [NAMES.index(k) for k in chosen]
        p = cross_validated(x, y, idx)
        point = operating_point(p, y)
        runs = np.array([nested(x, y, idx, ruled, seed) for seed in range(SEEDS)])
        report["sets"][label] = {"signals": chosen, "cv_auc": auc(list(p[y == 1]), list(p[y == 0])),
                                 "cv_curve": curve(p, y), "cv_operating_point": point,
                                 "nested_cv_with_rules": {"refused": float(runs[:, 0].mean()),
                                                          "false": float(runs[:, 1].mean()),
                                                          "refused_sd": float(runs[:, 0].std()),
                                                          "false_sd": float(runs[:, 1].std())}}
        print(f"{label}: CV AUC {report['sets'][label]['cv_auc']:.3f}; nested CV with the rules at "
              f"<= {MAX_FALSE}: refuses {runs[:, 0].mean():.3f} (sd {runs[:, 0].std():.3f}), false "
              f"{runs[:, 1].mean():.3f} (sd {runs[:, 1].std():.3f})")
    gate = [NAMES.index(k) for k in GATE]  # the gate's signals
    mu, sd = x[:, gate].mean(0), x[:, gate].std(0) + 1e-9
    w = fit((x[:, gate] - mu) / sd, y)
    raw = w[1:] / sd
    weights = {"bias": float(w[0] - (raw * mu).sum()), **dict.fromkeys(NAMES, 0.0),
               **{k: float(v) for k, v in zip(GATE, raw, strict=True)}}
    p_all = prob(w, (x[:, gate] - mu) / sd)
    report["weights"] = weights
    t = gate_threshold(p_all, y, ruled)
    refuse = ruled | (p_all < t)
    report["in_sample_operating_point"] = {"threshold": t, "refused": float(refuse[y == 0].mean()),
                                           "false": float(refuse[y == 1].mean())}
    print("weights (raw units):", json.dumps({k: round(v, 3) for k, v in weights.items()}))
    print("in-sample operating point:", report["in_sample_operating_point"])
    if args.all or (args.rows and Path(args.rows) == ALL_ROWS):
        save("qa_abstain_all", {**report, "questions": len(rows)}, str(RESULTS / "qa_abstain_all.json"))
    else:
        save("qa_abstain_dev", {**report, "questions": len(rows), "rows": rows}, str(RESULTS / "qa_abstain_dev.json"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

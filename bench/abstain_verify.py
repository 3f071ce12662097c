"""A chat model's yes/no check of the shown quote, after the shipped gate: what it adds to refusals (#42).

    .venv/bin/python bench/abstain_verify.py ROWS --split S [--model GGUF|bundled|ID] [--out JSON]

ROWS: the saved rows of a `bench/abstain_ce.py` run of split S (~/.cache/trove-bench/abstain_ce_<S>_256[_<tag>].json;
each holds the question, its kind, the quotes chat chose and the gate's signals). The product's check (gate/check.py:
`check_score` with a LlamaCppRuntime of the model, n_ctx 1024, 2 threads) scores the quote chat would show for every
row that the gate's floors let through (`abstain_ce.refused` with the shipped floor and no combined threshold: the
cross-encoder finds a passage about the question, no refusal rule holds). Two ways to use it, per GATES:

  gate    the shipped gate first (its combination of the cross-encoder's best logit and the quote gate's confidence
          included), then the check: what the check adds to today's refusals
  floors  the gate's floors and rules only, then the check: the check in place of the combined step

and the rule shipped (gate/check.py `decide`, with CHECK_FLOOR and CHECK_RESCUE): the gate, then the check, which
refuses under CHECK_FLOOR and shows a quote the combined step refused when it scores over CHECK_RESCUE.

Reported per kind (answerable, adversarial, absent): refused without the check, and with a check score under each of
FLOORS (CHECK_FLOOR is the shipped one), with Wilson intervals; the AUC of the score between the answerable and the
adversarial rows checked; and how often an answerable question's shown quote holds a gold answer when it is not
refused. Writes bench/results/abstain_verify_<S>_<model file stem>.json (or --out).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from _common import RESULTS, save
from _qa_stats import fmt, proportion
from abstain_ce import KINDS, gold_answers, refused, shown
from qa import contains_any, resolve_model

from desktop_app.core.chat.answer.gate.abstain import COMBINED
from desktop_app.core.chat.answer.gate.check import CHECK_FLOOR, check_score, decide
from desktop_app.core.chat.runtime.llama import LlamaCppRuntime
from desktop_app.core.search.cross_encoder import FLOOR

FLOORS = (-2.0, -1.0, -0.5, 0.0)
assert CHECK_FLOOR in FLOORS
GATES = ("gate", "floors")
NO_COMBINATION = 0.0  # a threshold no probability is under: reranked_refusal's combined step never refuses


def passes(r: dict, gate: str) -> bool:
    """Whether the gate (all of it, or its floors and rules only) lets the row's quote through to the check."""
    return not refused(r, FLOOR, NO_COMBINATION if gate == "floors" else None)


def judge_rows(rows: list[dict], model: Path) -> list[dict]:
    """Each row the gate's floors pass, with its shown quote's check score and whether the whole gate passes it."""
    runtime = LlamaCppRuntime(model, n_ctx=1024, n_threads=2)
    out = []
    try:
        passed = [r for r in rows if passes(r, "floors") and shown(r) is not None]
        for i, r in enumerate(passed, 1):
            quote = shown(r)
            assert quote is not None
            out.append({"id": r["id"], "kind": r["kind"], "quote": quote["text"], "gate": passes(r, "gate"),
                        "score": check_score(runtime, quote["text"], r["question"])})
            print(f"  {i}/{len(passed)}", file=sys.stderr, end="\r", flush=True)
    finally:
        runtime.close()
    return out


def auc(pos: list[float], neg: list[float]) -> float:
    return sum((p > n) + 0.5 * (p == n) for p in pos for n in neg) / (len(pos) * len(neg)) if pos and neg else 0.5


def report(rows: list[dict], judged: list[dict], answers: dict[str, tuple[str, ...]]) -> dict:
    """Per way of using the check (GATES): refusals per kind without it and with it at each floor, the AUC over the
    rows it reads, and the shown answers."""
    out: dict = {}
    for gate in GATES:
        read = [o for o in judged if gate == "floors" or o["gate"]]
        score = {(o["id"], o["kind"]): o["score"] for o in read}

        def no(r: dict, floor: float | None, score: dict = score) -> bool:
            s = score.get((r["id"], r["kind"]))
            return s is None or (floor is not None and s < floor)  # not read: refused before the check

        part: dict = {"auc_answerable_vs_adversarial": auc(
            [o["score"] for o in read if o["kind"] == "answerable"],
            [o["score"] for o in read if o["kind"] == "adversarial"])}
        for kind in KINDS:
            some = [r for r in rows if r["kind"] == kind]
            part[kind] = {str(floor): proportion([no(r, floor) for r in some]) for floor in (None, *FLOORS)}
            if kind == "answerable":
                part["shown_quote_gold"] = {str(floor): proportion([
                    contains_any(q["text"], answers.get(r["id"], ())) for r in some
                    if not no(r, floor) and (q := shown(r)) is not None]) for floor in (None, *FLOORS)}
        out[gate] = part
    checked = {(o["id"], o["kind"]): o for o in judged}

    def shipped_no(r: dict) -> bool:
        o = checked.get((r["id"], r["kind"]))
        return o is None or bool(decide("" if o["gate"] else COMBINED, o["score"]))

    out["shipped"] = {kind: proportion([shipped_no(r) for r in rows if r["kind"] == kind]) for kind in KINDS}
    out["shipped"]["shown_quote_gold"] = proportion([
        contains_any(q["text"], answers.get(r["id"], ())) for r in rows
        if r["kind"] == "answerable" and not shipped_no(r) and (q := shown(r)) is not None])
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rows", type=Path)
    ap.add_argument("--split", required=True)
    ap.add_argument("--model", default="qwen2.5-coder-1.5b")
    ap.add_argument("--out")
    args = ap.parse_args()
    rows = json.loads(args.rows.read_text(encoding="utf-8"))["rows"]
    model = resolve_model(args.model)
    started = time.perf_counter()
    judged = judge_rows(rows, model)
    seconds = time.perf_counter() - started
    summary = report(rows, judged, gold_answers(args.split))
    print(f"\n{model.name} on {args.split}: {len(judged)} quotes checked, {seconds / max(len(judged), 1):.2f} s each")
    for gate in GATES:
        part = summary[gate]
        print(f"{gate}: AUC {part['auc_answerable_vs_adversarial']:.3f}")
        for floor in (None, *FLOORS):
            print(f"  {'no check' if floor is None else f'check floor {floor}':>16}: " + ", ".join(
                f"{kind} refused {fmt(part[kind][str(floor)])}" for kind in KINDS)
                + f"; shown answer {fmt(part['shown_quote_gold'][str(floor)])}")
    shipped = summary["shipped"]
    print("as shipped (gate/check.py decide): " + ", ".join(f"{kind} refused {fmt(shipped[kind])}" for kind in KINDS)
          + f"; shown answer {fmt(shipped['shown_quote_gold'])}")
    save("abstain_verify", {"rows_file": str(args.rows), "split": args.split, "model": model.name,
                            "command": " ".join(sys.argv), "seconds_per_check": seconds / max(len(judged), 1),
                            "summary": summary, "judged": judged},
         args.out or str(RESULTS / f"abstain_verify_{args.split}_{model.stem}.json"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

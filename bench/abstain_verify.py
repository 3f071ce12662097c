"""A chat model as a yes/no judge of the shown quote: does it separate answerable from adversarial questions? (#42)

    .venv/bin/python bench/abstain_verify.py ROWS [--model GGUF|bundled|ID] [--out JSON]

ROWS: the saved rows of a `bench/abstain_ce.py` run (~/.cache/trove-bench/abstain_ce_<split>_256[_<tag>].json; each
holds the question, its kind, the quote chat chose and the quote gate's confidence). Dev splits only: nothing here
is shipped, and a split this reads is read. For each answerable and adversarial row with a quote, the model gets
the quote and the question in a ChatML prompt ("Does the text give the answer to this exact question? Answer yes or
no.") and its first token's log-probability of "yes" minus "no" is the score (greedy, one token; llama.cpp, 2
threads). Prints the AUC of that score between the two kinds beside the gate confidence's, the adversarial share
refused at the thresholds that refuse 0.05 / 0.08 / 0.10 of the answerable, and with the shipped gate (confidence
under GATE) or the judge's score under each of JUDGE_FLOORS; Wilson intervals. Writes
bench/results/abstain_verify_<model file stem>.json (or --out).
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
import time
from pathlib import Path

from _common import RESULTS, save
from _qa_stats import fmt, proportion
from qa import resolve_model

SYSTEM = "You check whether a text answers a question. Reply with yes or no only."
ASK = "Does the text give the answer to this exact question? Answer yes or no."
GATE = 0.29  # the quote gate's confidence threshold (gate/abstain.py)
JUDGE_FLOORS = (-2.0, -1.0, -0.5)


def prompt(text: str, question: str) -> str:
    return (f"<|im_start|>system\n{SYSTEM}<|im_end|>\n<|im_start|>user\nText: {text}\nQuestion: {question}\n{ASK}"
            "<|im_end|>\n<|im_start|>assistant\n")


def judge_rows(rows: list[dict], model: Path) -> list[dict]:
    from llama_cpp import Llama

    llm = Llama(model_path=str(model), n_ctx=1024, n_threads=2, logits_all=True, verbose=False)
    out = []
    for i, row in enumerate(rows, 1):
        quote = ast.literal_eval(row["quote"]) if isinstance(row["quote"], str) else row["quote"]
        top = llm(prompt(quote["text"], row["question"]), max_tokens=1, logprobs=20, temperature=0)
        top = top["choices"][0]["logprobs"]["top_logprobs"][0]

        def best(word: str, top: dict = top) -> float:
            return max((v for k, v in top.items() if k.strip().lower() == word), default=-30.0)

        confidence = row.get("confidence")
        out.append({"id": row["id"], "kind": row["kind"], "score": float(best("yes") - best("no")),
                    "confidence": None if confidence in (None, "None") else float(confidence)})
        print(f"  {i}/{len(rows)}", file=sys.stderr, end="\r", flush=True)
    return out


def auc(pos: list[float], neg: list[float]) -> float:
    return sum((p > n) + 0.5 * (p == n) for p in pos for n in neg) / (len(pos) * len(neg)) if pos and neg else 0.5


def report(judged: list[dict]) -> dict:
    ans = [o for o in judged if o["kind"] == "answerable"]
    adv = [o for o in judged if o["kind"] == "adversarial"]
    out: dict = {"answerable": len(ans), "adversarial": len(adv),
                 "auc_judge": auc([o["score"] for o in ans], [o["score"] for o in adv])}
    gated = [o for o in judged if o["confidence"] is not None]
    out["auc_gate_confidence"] = auc([o["confidence"] for o in gated if o["kind"] == "answerable"],
                                     [o["confidence"] for o in gated if o["kind"] == "adversarial"])
    scores = sorted(o["score"] for o in ans)
    for share in (0.05, 0.08, 0.10):
        floor = scores[int(share * len(scores))]
        out[f"judge_alone_at_{share}"] = {"floor": floor,
                                          "answerable": proportion([o["score"] < floor for o in ans]),
                                          "adversarial": proportion([o["score"] < floor for o in adv])}

    def refused(o: dict, floor: float | None) -> bool:
        return (o["confidence"] is not None and o["confidence"] < GATE) or (floor is not None and o["score"] < floor)

    for floor in (None, *JUDGE_FLOORS):
        out[f"gate_or_judge_{floor}"] = {"answerable": proportion([refused(o, floor) for o in ans]),
                                         "adversarial": proportion([refused(o, floor) for o in adv])}
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rows", type=Path)
    ap.add_argument("--model", default="qwen2.5-coder-1.5b")
    ap.add_argument("--out")
    args = ap.parse_args()
    rows = [r for r in json.loads(args.rows.read_text(encoding="utf-8"))["rows"]
            if r["kind"] in ("answerable", "adversarial") and r["quote"] not in (None, "", "None")]
    model = resolve_model(args.model)
    started = time.perf_counter()
    judged = judge_rows(rows, model)
    seconds = time.perf_counter() - started
    summary = report(judged)
    print(f"\n{model.name}: {summary['answerable']} answerable, {summary['adversarial']} adversarial, "
          f"{seconds / max(len(judged), 1):.2f} s a question")
    print(f"  AUC judge {summary['auc_judge']:.3f}, gate confidence {summary['auc_gate_confidence']:.3f}")
    for key, value in summary.items():
        if isinstance(value, dict):
            print(f"  {key}: refused answerable {fmt(value['answerable'])}, adversarial {fmt(value['adversarial'])}")
    save("abstain_verify", {"rows_file": str(args.rows), "model": model.name, "command": " ".join(sys.argv),
                            "seconds_per_question": seconds / max(len(judged), 1), "summary": summary,
                            "judged": judged}, args.out or str(RESULTS / f"abstain_verify_{model.stem}.json"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Can the chat model itself tell an unanswerable question? Two probes over the dev split only, beside the gate.

    .venv/bin/python bench/verify_probe.py --model GGUF [--rows bench/results/qa_abstain_dev.json] [--json OUT]

For each dev question (bench/data/qa, as bench/abstain.py recorded it: the quote the library's selector chose and
the passages sent) it asks the model, with no generation, one forward pass per probe:

* `yes_no`: "Does the passage state the answer to this exact question?" over ~700 characters around the quote;
  the signal is log P(yes) - log P(no) of the first answer token (every casing of yes/no).
* `support`: how well the passage predicts the question's own tokens, log P(q_t | passage, q_<t) against
  log P(q_t | q_<t) (the question's pointwise mutual information with the passage, per token); SQuAD 2.0 writes
  an unanswerable question by swapping a word of an answerable one, which the passage should then predict badly.
  Signals: the least supported token, the mean, and the mean of the passage-conditioned log-probabilities.

It prints each signal's AUC (answerable against unanswerable) over all questions and over the residual that the
shipped rules and gate (core/chat/answer/gate/abstain.py) let through, and what refusing the residual's lowest would
add at 0.02 / 0.035 / 0.05 more false refusals. Saves the per-question signals and the table as JSON.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from _common import RESULTS, save
from abstain import auc

from desktop_app.core.chat.answer.context import Passage
from desktop_app.core.chat.answer.gate import abstain
from desktop_app.core.chat.answer.quote.selector import Quote
from desktop_app.core.chat.runtime.template_tokens import defuse

WINDOW = 700
SYSTEM = "You check facts. Answer with one word: yes or no."
ASK = "Passage:\n{p}\n\nQuestion: {q}\n\nDoes the passage state the answer to this exact question? Answer yes or no."
BUDGETS = (0.02, 0.035, 0.05)


def window(row: dict) -> str:
    """About WINDOW characters of the quote's passage, centred on the quote."""
    home = next(p["content"] for p in row["passages"] if p["n"] == row["quote"]["n"])
    quote = row["quote"]["text"]
    at = home.find(quote)
    if at < 0:
        return quote
    return home[max(0, at - WINDOW // 2): at + len(quote) + WINDOW // 2]


class Probe:
    """One llama.cpp model, read token by token (logits of every position kept)."""

    def __init__(self, path: str) -> None:
        from llama_cpp import Llama

        self.llm = Llama(model_path=path, n_ctx=2048, n_threads=2, verbose=False, logits_all=True)
        self.yes = self._first_ids(["yes", "Yes", " yes", " Yes", "YES"])
        self.no = self._first_ids(["no", "No", " no", " No", "NO"])

    def _first_ids(self, words: list[str]) -> list[int]:
        return sorted({self.llm.tokenize(w.encode(), add_bos=False, special=False)[0] for w in words})

    def _logprobs(self, tokens: list[int], first: int = 0) -> np.ndarray:
        """log-softmax of the logits after each of `tokens` from the `first` on (row t predicts token first + t + 1;
        only those rows are copied out: a 150k-word vocabulary makes every row 1.2 MB)."""
        self.llm.reset()
        self.llm.eval(tokens)
        scores = np.asarray(self.llm.scores[first: len(tokens)], dtype=np.float64)
        top = scores.max(axis=1, keepdims=True)
        return scores - (np.log(np.exp(scores - top).sum(axis=1, keepdims=True)) + top)

    def yes_no(self, passage: str, question: str) -> float:
        user = ASK.format(p=defuse(passage), q=defuse(question))
        prompt = (f"<|im_start|>system\n{SYSTEM}<|im_end|>\n<|im_start|>user\n{user}<|im_end|>\n"
                  "<|im_start|>assistant\n")
        tokens = self.llm.tokenize(prompt.encode(), add_bos=False, special=True)
        last = self._logprobs(tokens, len(tokens) - 1)[-1]
        return float(np.logaddexp.reduce(last[self.yes]) - np.logaddexp.reduce(last[self.no]))

    def question_logprobs(self, prefix: str, question: str) -> list[float]:
        """log P of each of the question's tokens after `prefix` (the tokens past the shared prefix)."""
        head = self.llm.tokenize(prefix.encode(), add_bos=False, special=False)
        full = self.llm.tokenize((prefix + question).encode(), add_bos=False, special=False)
        shared = len(head)
        while shared and full[:shared] != head[:shared]:
            shared -= 1
        start = max(shared, 1)
        rows = self._logprobs(full, start - 1)
        return [float(rows[t - start, full[t]]) for t in range(start, len(full))]


def probe_row(probe: Probe, row: dict) -> dict:
    passage, question = window(row), " " + row["question"]
    cond = probe.question_logprobs("Passage: " + passage + "\n\nQuestion:", question)
    bare = probe.question_logprobs("Question:", question)
    n = min(len(cond), len(bare))
    pmi = [c - b for c, b in zip(cond[-n:], bare[-n:], strict=True)]
    return {"id": row["id"], "impossible": row["impossible"], "yes_no": probe.yes_no(passage, row["question"]),
            "least_support": min(pmi), "mean_support": float(np.mean(pmi)), "mean_conditioned": float(np.mean(cond))}


def table(rows: list[dict], passed: Callable[[str], bool]) -> dict:
    """Per signal: AUC over all and over the gate's residual, and refusals / false refusals with it added."""
    ans = [r for r in rows if not r["impossible"]]
    una = [r for r in rows if r["impossible"]]
    refused_a = sum(not passed(r["id"]) for r in ans)
    refused_u = sum(not passed(r["id"]) for r in una)
    out: dict = {"gate": {"refused": refused_u / len(una), "false_refusals": refused_a / len(ans)}}
    for name in ("yes_no", "least_support", "mean_support", "mean_conditioned"):
        rest_a = sorted(r[name] for r in ans if passed(r["id"]))
        rest_u = [r[name] for r in una if passed(r["id"])]
        entry: dict = {"auc_all": auc([r[name] for r in ans], [r[name] for r in una]),
                       "auc_residual": auc(rest_a, rest_u)}
        for budget in BUDGETS:
            k = int(budget * len(ans))
            cut = rest_a[k] if k < len(rest_a) else float("inf")
            entry[f"at_{budget}"] = {"refused": (refused_u + sum(v < cut for v in rest_u)) / len(una),
                                     "false_refusals": (refused_a + sum(v < cut for v in rest_a)) / len(ans)}
        out[name] = entry
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", required=True, help="a GGUF file (ChatML template: SmolLM2, Qwen2.5)")
    ap.add_argument("--rows", default=str(RESULTS / "qa_abstain_dev.json"), help="bench/abstain.py's dev rows")
    ap.add_argument("--json", default=str(RESULTS / "verify_probe.json"))
    args = ap.parse_args()
    recorded = [r for r in json.loads(Path(args.rows).read_text())["rows"] if r["quote"] is not None]
    probe, started = Probe(args.model), time.perf_counter()
    rows = [probe_row(probe, r) for r in recorded]
    seconds = (time.perf_counter() - started) / max(1, len(rows))
    gate = {r["id"]: abstain.answer_probability(abstain.signals(
        r["question"], Quote.from_dict(r["quote"]), [Passage.from_dict(p) for p in r["passages"]])) >= abstain.THRESHOLD
        for r in recorded}  # the shipped rules and gate, their signals computed afresh from the recorded quote
    result = table(rows, gate.__getitem__)
    print(f"{Path(args.model).name}: {len(rows)} dev questions, {seconds:.2f} s each; rules + gate alone: refused "
          f"{result['gate']['refused']:.2f}, false refusals {result['gate']['false_refusals']:.3f}")
    for name, entry in result.items():
        if name != "gate":
            adds = "  ".join(f"+{b}: {entry[f'at_{b}']['refused']:.2f}/{entry[f'at_{b}']['false_refusals']:.3f}"
                             for b in BUDGETS)
            print(f"  {name:17s} AUC {entry['auc_all']:.3f}, residual {entry['auc_residual']:.3f}   {adds}")
    save("verify_probe", {"model": Path(args.model).name, "questions": len(rows), "seconds_each": seconds,
                          "table": result, "rows": rows}, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

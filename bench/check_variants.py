"""Ways to make the quote check (gate/check.py) separate answerable from adversarial questions better: measured (#42).

    .venv/bin/python bench/check_variants.py probe                     # dev pairs: linear probes vs yes-minus-no
    .venv/bin/python bench/check_variants.py second ROWS --split S     # the check's own second look (runner-up)
    .venv/bin/python bench/check_variants.py prompts ROWS --split S    # other check prompts, same quotes
    .venv/bin/python bench/check_variants.py joint ROWS --split S      # one logistic model over every signal

ROWS: the saved rows of a `bench/abstain_ce.py` run of split S; `second`, `prompts` and `joint` also read
bench/results/abstain_verify_<S>_<model stem>.json (the check's score of each quote the gate's floors passed). The
check model is the installed Qwen2.5-Coder-1.5B (`--model`), 2 threads, as bench/abstain_verify.py runs it.

probe   Pairs from the dev split's paragraphs (bench/data/qa/questions_all.jsonl): a question with the sentence of
        its paragraph holding its gold answer (answerable) or its plausible answer (SQuAD 2.0's adversarial
        unanswerable), PER_ARTICLE of each kind per article, seeded. Read with the check's own prompt: its score
        (yes minus no), and the model's last hidden state there (llama.cpp embeddings, one forward pass). The
        score is itself a linear function of that state (two rows of the output layer), so a logistic probe over
        all of it can only find what the score misses. Also, when the `onnx` package is installed (the `package`
        extra), the cross-encoder's pooled output for the pair (its graph given that output): a probe of what the
        reranker reads beyond its relevance logit. AUC answerable vs adversarial, 8 folds grouped by article.
second  When the check says no to the shown quote, the selector's runner-up (gate/runner_up.py) checked too and
        shown when it scores over a second threshold: refusals per kind over a grid of both thresholds.
prompts The check's prompt (check_messages) against a few-shot one (four dev pairs) and a stricter instruction, on
        SAMPLE answerable and SAMPLE adversarial rows the check read (seeded): AUC of each.
joint   The check's score with the cross-encoder's logits and the quote gate's confidence in one logistic model,
        5-fold cross-validated within the split: AUC against the check's score alone.

Writes bench/results/check_variants_<command>[_<S>].json.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from pathlib import Path

import numpy as np
from _common import RESULTS, save
from abstain import auc, fit, prob
from abstain_ce import KINDS, gold_answers, shown
from qa import SPLITS, contains_any, resolve_model

from desktop_app.core.chat.answer.context import Message, Passage
from desktop_app.core.chat.answer.gate import runner_up
from desktop_app.core.chat.answer.gate.abstain import COMBINED, log_odds
from desktop_app.core.chat.answer.gate.check import ASK, SYSTEM, TOP, check_messages, decide, yes_minus_no
from desktop_app.core.chat.answer.quote.default import embedder_selector, settings_embedder
from desktop_app.core.chat.answer.quote.selector import Quote
from desktop_app.core.chat.runtime.llama import LlamaCppRuntime, top_logprobs
from desktop_app.core.settings import Settings

PER_ARTICLE = 25
SAMPLE = 100
FOLDS = 8
L2S = (1.0, 10.0, 100.0, 1000.0)
FIRST_FLOORS = (-1.0, -0.5, 0.0, 0.5)  # the check's floor for the quote shown first
SECOND_FLOORS = (0.0, 0.5, 1.0, 2.0)  # the runner-up's score over which it is shown instead
SENTENCE = re.compile(r'(?<=[.!?])\s+(?=[A-Z0-9"“(])')
# Four dev pairs (bench/data/qa/questions_all.jsonl), two of each kind, for the few-shot prompt.
SHOTS = (("In 1781 James Watt patented a steam engine that produced continuous rotary motion.",
          "Who patented a steam engine in 1781?", "yes"),
         ("In 1979, the Soviet Union deployed its 40th Army into Afghanistan, attempting to suppress an Islamic "
          "rebellion against an allied Marxist regime in the Afghan Civil War.",
          "Who deployed its army into Iraq in 1979?", "no"),
         ("By July 1944, the Red Army was deep into Polish territory and pursuing the Germans toward Warsaw.",
          "What army was pushing deep into Polish territory to pursue the Germans in 1944?", "yes"),
         ("The invading Normans and their descendants replaced the Anglo-Saxons as the ruling class of England.",
          "Who replaced the Normans as the ruling class?", "no"))
STRICT = ("You check whether a text answers a question. Answer yes only if the text itself states the answer to the "
          "question exactly as asked. If the question asks about a different person, place, time, number or detail "
          "than the text states, or the text does not say, answer no. Reply with yes or no only.")


def few_shot(text: str, question: str) -> list[Message]:
    shots: list[Message] = []
    for t, q, a in SHOTS:
        shots += [{"role": "user", "content": f"Text: {t}\nQuestion: {q}\n{ASK}"}, {"role": "assistant", "content": a}]
    return [{"role": "system", "content": SYSTEM}, *shots, *check_messages(text, question)[1:]]


def strict(text: str, question: str) -> list[Message]:
    return [{"role": "system", "content": STRICT}, *check_messages(text, question)[1:]]


PROMPTS = {"shipped": check_messages, "few-shot": few_shot, "strict": strict}


class Reader:
    """The check model read once per prompt: its yes-minus-no and last hidden state. The context is kept between
    prompts and only what differs is evaluated (a few-shot prefix is read once)."""

    def __init__(self, model: Path) -> None:
        import llama_cpp

        self.runtime = LlamaCppRuntime(model, n_ctx=1024, n_threads=2)
        self.llm = llama_cpp.Llama(model_path=str(model), n_ctx=1024, n_threads=2, embedding=True, verbose=False,
                                   pooling_type=llama_cpp.LLAMA_POOLING_TYPE_NONE)
        self._llama_cpp = llama_cpp

    def read(self, messages: list[Message]) -> tuple[float, np.ndarray]:
        llm = self.llm
        ids = self.runtime.prompt_ids(messages)
        llm.n_tokens = LlamaCppRuntime._reusable_prefix(llm, ids)
        llm.eval(ids[llm.n_tokens:])
        state = np.ctypeslib.as_array(self._llama_cpp.llama_get_embeddings_ith(llm._ctx.ctx, -1),
                                      shape=(llm.n_embd(),)).copy()
        return yes_minus_no(top_logprobs(llm, TOP)), state


def dev_pairs(seed: int = 42) -> list[dict]:
    """PER_ARTICLE (question, sentence) pairs of each kind per dev article (see the module docstring)."""
    data = SPLITS["dev"]
    paragraphs = {p.stem: [x.strip() for x in p.read_text(encoding="utf-8").split("\n\n") if x.strip()]
                  for p in (data / "articles").glob("*.txt")}
    by: dict[tuple[str, int], list[dict]] = {}
    for line in (data / "questions_all.jsonl").read_text(encoding="utf-8").splitlines():
        q = json.loads(line)
        answers = (q.get("plausible_answers") or []) if q["is_impossible"] else q["answers"]
        held = [p for p in paragraphs[q["article"]] if answers and answers[0] in p]
        if not held:
            continue
        words = set(re.findall(r"\w+", q["question"].lower()))
        paragraph = max(held, key=lambda p: len(words & set(re.findall(r"\w+", p.lower()))))
        sentence = next((s for s in SENTENCE.split(paragraph) if answers[0] in s), paragraph)
        y = 0 if q["is_impossible"] else 1
        by.setdefault((q["article"], y), []).append(
            {"id": q["id"], "article": q["article"], "question": q["question"], "text": sentence, "y": y})
    rng = random.Random(seed)
    pairs = []
    for key in sorted(by):
        rng.shuffle(by[key])
        pairs += by[key][:PER_ARTICLE]
    return pairs


def reranker_pooled(pairs: list[dict]) -> tuple[np.ndarray, np.ndarray] | None:
    """The cross-encoder's logit and pooled output per pair; None without the `onnx` package."""
    try:
        import onnx
    except ImportError:
        print("cross-encoder probe skipped: it needs the onnx package (pip install onnx, the package extra)")
        return None
    import onnxruntime as ort
    from tokenizers import Tokenizer

    from desktop_app.core.search.cross_encoder import MAX_LENGTH
    from desktop_app.core.search.cross_encoder_files import locate

    files = locate()
    graph = onnx.load(str(files.model))
    graph.graph.output.append(onnx.helper.make_tensor_value_info("/bert/pooler/activation/Tanh_output_0",
                                                                 onnx.TensorProto.FLOAT, None))
    session = ort.InferenceSession(graph.SerializeToString(), providers=["CPUExecutionProvider"])
    tokenizer = Tokenizer.from_file(str(files.tokenizer))
    tokenizer.enable_truncation(MAX_LENGTH, strategy="only_second")
    tokenizer.no_padding()
    names = {i.name for i in session.get_inputs()}
    logits, pooled = [], []
    for e in tokenizer.encode_batch([(p["question"], p["text"]) for p in pairs]):
        feed = {"input_ids": [e.ids], "attention_mask": [e.attention_mask], "token_type_ids": [e.type_ids]}
        logit, pool = session.run(None, {k: np.array(v, dtype=np.int64) for k, v in feed.items() if k in names})
        logits.append(float(logit.reshape(-1)[0]))
        pooled.append(pool[0])
    return np.array(logits), np.array(pooled)


def grouped_auc(x: np.ndarray, y: np.ndarray, groups: list[str], l2: float) -> float:
    """AUC of a logistic probe's held-out scores, FOLDS folds by article."""
    articles = sorted(set(groups))
    fold = {a: i % FOLDS for i, a in enumerate(articles)}
    scores = np.zeros(len(y))
    for k in range(FOLDS):
        test = np.array([fold[g] == k for g in groups])
        if not test.any():
            continue
        mean, sd = x[~test].mean(0), x[~test].std(0) + 1e-6
        w = fit((x[~test] - mean) / sd, y[~test], l2=l2, steps=1500)
        scores[test] = prob(w, (x[test] - mean) / sd)
    return auc(list(scores[y == 1]), list(scores[y == 0]))


def refused_at(scores: np.ndarray, y: np.ndarray, false: float = 0.08) -> float:
    """Adversarial refused when the cut refuses `false` of the answerable."""
    cut = np.quantile(scores[y == 1], false)
    return float((scores[y == 0] < cut).mean())


def cmd_probe(args: argparse.Namespace) -> dict:
    pairs = dev_pairs()
    y = np.array([p["y"] for p in pairs], dtype=float)
    groups = [p["article"] for p in pairs]
    reader = Reader(resolve_model(args.model))
    started = time.perf_counter()
    read = [reader.read(check_messages(p["text"], p["question"])) for p in pairs]
    seconds = (time.perf_counter() - started) / len(pairs)
    score = np.array([s for s, _ in read])
    states = np.array([h for _, h in read])
    out: dict = {"pairs": len(pairs), "answerable": int(y.sum()), "seconds_per_pair": seconds,
                 "check_score": {"auc": auc(list(score[y == 1]), list(score[y == 0])),
                                 "adversarial_refused_at_0.08": refused_at(score, y)},
                 "hidden_state_probe": {str(l2): grouped_auc(states, y, groups, l2) for l2 in L2S}}
    ce = reranker_pooled(pairs)
    if ce is not None:
        logit, pooled = ce
        out["cross_encoder_logit_auc"] = auc(list(logit[y == 1]), list(logit[y == 0]))
        out["cross_encoder_pooled_probe"] = {str(l2): grouped_auc(pooled, y, groups, l2) for l2 in L2S}
    return out


def checked(args: argparse.Namespace) -> tuple[dict, list[dict]]:
    rows = {(r["id"], r["kind"]): r for r in json.loads(args.rows.read_text(encoding="utf-8"))["rows"]}
    model = resolve_model(args.model)
    verify = RESULTS / f"abstain_verify_{args.split}_{model.stem}.json"
    return rows, json.loads(verify.read_text(encoding="utf-8"))["judged"]


def cmd_second(args: argparse.Namespace) -> dict:
    rows, judged = checked(args)
    gold = gold_answers(args.split)
    embedder = settings_embedder(Settings(embedder="minilm"))
    selector = embedder_selector(lambda: embedder)
    reader = Reader(resolve_model(args.model))
    looked = []
    for o in judged:
        r = rows[(o["id"], o["kind"])]
        first = shown(r)
        assert first is not None
        rec = {"kind": o["kind"], "gate": o["gate"], "first": o["score"], "second": None, "second_rule": False,
               "first_gold": r["kind"] == "answerable" and contains_any(first["text"], gold.get(r["id"], ())),
               "second_gold": False}
        if o["score"] < max(FIRST_FLOORS):
            passages = [Passage.from_dict(p) for p in r["passages"]]
            second = runner_up.runner_up(selector, r["question"], passages, Quote.from_dict(first))
            if second is not None:
                rec["second"] = reader.read(check_messages(second.text, r["question"]))[0]
                rec["second_rule"] = second.confidence is not None and second.confidence <= 0.0
                rec["second_gold"] = r["kind"] == "answerable" and contains_any(second.text, gold.get(r["id"], ()))
        looked.append(rec)
    counts = {kind: sum(r["kind"] == kind for r in rows.values()) for kind in KINDS}
    grid = {}
    for floor in FIRST_FLOORS:
        for again in (None, *SECOND_FLOORS):
            answered = dict.fromkeys(KINDS, 0)
            gold_shown = 0
            for rec in looked:
                why = decide("" if rec["gate"] else COMBINED, rec["first"]) if rec["first"] >= floor else "no"
                if not why:
                    answered[rec["kind"]] += 1
                    gold_shown += rec["first_gold"]
                elif (why == "no" and again is not None and rec["second"] is not None and not rec["second_rule"]
                      and rec["second"] > again):
                    answered[rec["kind"]] += 1
                    gold_shown += rec["second_gold"]
            grid[f"{floor}/{again}"] = {**{k: 1 - answered[k] / counts[k] for k in KINDS},
                                        "shown_gold": gold_shown / counts["answerable"]}
    return {"split": args.split, "grid": grid}



def cmd_prompts(args: argparse.Namespace) -> dict:
    rows, judged = checked(args)
    rng = random.Random(1)
    picked = []
    for kind in ("answerable", "adversarial"):
        some = [o for o in judged if o["kind"] == kind]
        rng.shuffle(some)
        picked += some[:SAMPLE]
    reader = Reader(resolve_model(args.model))
    out: dict = {"split": args.split, "rows": len(picked)}
    for name, prompt in PROMPTS.items():  # one prompt at a time: its shared prefix is read once
        scores = []
        for o in picked:
            r = rows[(o["id"], o["kind"])]
            quote = shown(r)
            assert quote is not None
            scores.append(reader.read(prompt(quote["text"], r["question"]))[0])
        kinds = [o["kind"] for o in picked]
        out[name] = auc([s for s, k in zip(scores, kinds, strict=True) if k == "answerable"],
                        [s for s, k in zip(scores, kinds, strict=True) if k == "adversarial"])
    return out


def cmd_joint(args: argparse.Namespace) -> dict:
    rows, judged = checked(args)
    x, y = [], []
    for o in judged:
        if o["kind"] == "absent":
            continue
        r = rows[(o["id"], o["kind"])]
        x.append([o["score"], r["quote_best"] or 0.0, r.get("window_best") or 0.0, r["best"] or 0.0,
                  log_odds(r["confidence"] if r["confidence"] is not None else 0.5)])
        y.append(float(o["kind"] == "answerable"))
    xa, ya = np.array(x), np.array(y)
    rng = random.Random(0)
    groups = [str(rng.randrange(5)) for _ in y]
    return {"split": args.split, "rows": len(y), "check_auc": auc(list(xa[ya == 1, 0]), list(xa[ya == 0, 0])),
            "joint_auc": {str(l2): grouped_auc(xa, ya, groups, l2) for l2 in L2S[:2]}}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("command", choices=("probe", "second", "prompts", "joint"))
    ap.add_argument("rows", type=Path, nargs="?")
    ap.add_argument("--split")
    ap.add_argument("--model", default="qwen2.5-coder-1.5b")
    args = ap.parse_args()
    if args.command != "probe" and (args.rows is None or not args.split):
        ap.error(f"{args.command} needs ROWS and --split")
    started = time.perf_counter()
    result = {"probe": cmd_probe, "second": cmd_second, "prompts": cmd_prompts, "joint": cmd_joint}[args.command](args)
    result.update(command=" ".join(sys.argv), seconds=time.perf_counter() - started)
    print(json.dumps({k: v for k, v in result.items() if k != "grid"}, indent=1))
    for key, value in result.get("grid", {}).items():
        print(f"  check floor/runner-up over {key}: " + ", ".join(f"{k} {v:.3f}" for k, v in value.items()))
    suffix = f"_{args.split}" if args.split else ""
    save("check_variants", result, str(RESULTS / f"check_variants_{args.command}{suffix}.json"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Chat speed: Trove's ChatService vs raw llama-cpp-python on the identical prompt, and follow-up TTFT with/without KV prefix reuse.

    .venv/bin/python bench/chat.py [--reps 5] [--max-tokens 48] [--threads 0]

Prints a table and writes bench/results/chat.json. Both sides use the bundled SmolLM2 GGUF, the same
n_ctx/threads, temperature 0, and start each measured run from an empty KV cache (except "with reuse").
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from desktop_app.core.chat.model_files import resolve_model_path  # noqa: E402
from desktop_app.core.chat.runtime import LlamaCppRuntime  # noqa: E402
from desktop_app.core.chat.service import ChatService  # noqa: E402
from desktop_app.core.settings import Settings  # noqa: E402
from desktop_app.core.store.sqlite import SQLiteStore
from desktop_app.core.types import RetrievalResult  # noqa: E402

PASSAGES = [RetrievalResult(text, 1.0, f"/bench/{name}", {"chunk_id": i, "page": None}) for i, (name, text) in enumerate([
    ("reactor.txt", "The Zorblax reactor was invented by Dr. Mira Quell in 1987 at the Vantor Institute. "
                    "It runs on compressed helium and produces forty megawatts. " * 3),
    ("bread.md", "Sourdough bread needs a starter made of flour and water, fed daily for a week. "
                 "Bake the loaf at 240 degrees for forty minutes. " * 3),
    ("trains.txt", "Trains to Harrowgate leave platform nine every hour, on the hour, from six in the morning. " * 3),
])]
QUESTIONS = ["Who invented the Zorblax reactor?", "What does it run on?", "How much power does it produce?"]


def raw_stream(llm, messages, max_tokens):
    """TTFT and decode rate for create_chat_completion on a bare Llama (the baseline)."""
    llm.reset()
    started = time.perf_counter()
    first, n = None, 0
    for chunk in llm.create_chat_completion(messages=messages, stream=True, max_tokens=max_tokens, temperature=0.0, seed=0):
        if chunk["choices"][0]["delta"].get("content"):
            first = first or time.perf_counter()
            n += 1
    total = time.perf_counter() - started
    return first - started, n, total


def trove_ask(service, runtime, question, max_tokens, chat_id=None, reset=True):
    """TTFT (from ask() to the first on_token) and decode rate through ChatService."""
    if reset:
        runtime.reset_cache()
    marks = []
    started = time.perf_counter()
    answer = service.ask(question, chat_id=chat_id, max_tokens=max_tokens,
                         on_token=lambda t: marks.append(time.perf_counter()))
    total = time.perf_counter() - started
    return marks[0] - started, len(marks), total, answer


def rate(n, ttft, total):
    return (n - 1) / (total - ttft) if n > 1 and total > ttft else float("nan")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--max-tokens", type=int, default=48)
    ap.add_argument("--threads", type=int, default=0, help="0: llama.cpp's default")
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "chat.json"))
    args = ap.parse_args()
    from llama_cpp import Llama

    gguf = resolve_model_path()
    settings = Settings(n_ctx=2048, n_threads=args.threads, temperature=0.0, context_min_score=0.0, context_top_k=3,
                        max_context_tokens=600, answer_reserve_tokens=args.max_tokens)
    runtime = LlamaCppRuntime(gguf, n_ctx=settings.n_ctx, n_threads=settings.n_threads)
    tmp = tempfile.TemporaryDirectory()
    service = ChatService(SQLiteStore(Path(tmp.name) / "library.db"), lambda q, k: PASSAGES[:k], lambda: settings,
                          runtime_factory=lambda s, p: runtime)
    raw = Llama(model_path=str(gguf), n_ctx=settings.n_ctx, n_threads=args.threads or None, seed=0, verbose=False)

    # identical prompt: the messages Trove builds for the first question
    plan = service.plan(QUESTIONS[0], PASSAGES, [], settings, runtime, True, settings.answer_reserve_tokens)
    messages = [dict(m) for m in plan.messages]
    trove_ask(service, runtime, QUESTIONS[0], 4)  # warm both (first decode allocates buffers)
    raw_stream(raw, messages, 4)
    rows = {"trove": [], "raw": [], "followup_reuse": [], "followup_no_reuse": []}
    for _ in range(args.reps):
        ttft, n, total, _a = trove_ask(service, runtime, QUESTIONS[0], args.max_tokens)
        rows["trove"].append((ttft, n, total))
        rows["raw"].append(raw_stream(raw, messages, args.max_tokens))
        # a three-turn chat; the third question measured with the cache as the second left it, then from scratch
        first = trove_ask(service, runtime, QUESTIONS[0], args.max_tokens)[3]
        trove_ask(service, runtime, QUESTIONS[1], args.max_tokens, chat_id=first.chat_id, reset=False)
        ttft, n, total, third = trove_ask(service, runtime, QUESTIONS[2], args.max_tokens, chat_id=first.chat_id, reset=False)
        rows["followup_reuse"].append((ttft, n, total, third.reused_prefix_tokens, third.prompt_tokens))
        sent = service.plan(QUESTIONS[2], PASSAGES, service.store.turns(first.chat_id)[:2], settings, runtime, True,
                            settings.answer_reserve_tokens).messages
        runtime.reset_cache()
        gen = runtime.generate(list(sent), max_tokens=args.max_tokens, temperature=0.0)
        rows["followup_no_reuse"].append((gen.ttft_s, gen.tokens, gen.total_s, gen.reused_prefix_tokens, gen.prompt_tokens))
    result = summarise(rows, args, plan, runtime)
    print_table(result)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2))
    print(f"\nsaved {args.out}")
    service.close()
    raw.close()
    tmp.cleanup()
    return 0


def summarise(rows, args, plan, runtime) -> dict:
    med = statistics.median
    out = {"model": resolve_model_path().name, "reps": args.reps, "max_tokens": args.max_tokens, "threads": args.threads,
           "n_ctx": runtime.n_ctx, "prompt_tokens": runtime.prompt_tokens(plan.messages), "cpu_count": os.cpu_count(),
           "loadavg_1m": os.getloadavg()[0], "runs": {}}
    for name, data in rows.items():
        out["runs"][name] = {"ttft_s": med(r[0] for r in data), "tokens": med(r[1] for r in data),
                             "tokens_per_s": med(rate(r[1], r[0], r[2]) for r in data)}
        if len(data[0]) > 3:
            out["runs"][name].update(reused_prefix_tokens=med(r[3] for r in data), prompt_tokens=med(r[4] for r in data))
    t, r = out["runs"]["trove"], out["runs"]["raw"]
    fr, fn = out["runs"]["followup_reuse"], out["runs"]["followup_no_reuse"]
    out["ratios"] = {"ttft_trove_over_raw": t["ttft_s"] / r["ttft_s"], "tps_trove_over_raw": t["tokens_per_s"] / r["tokens_per_s"],
                     "followup_ttft_reuse_over_no_reuse": fr["ttft_s"] / fn["ttft_s"]}
    return out


def print_table(result: dict) -> None:
    print(f"{result['model']}  n_ctx={result['n_ctx']}  prompt={result['prompt_tokens']} tokens  reps={result['reps']}  "
          f"load(1m)={result['loadavg_1m']:.1f} on {result['cpu_count']} CPUs")
    print(f"{'run':<20}{'TTFT ms':>10}{'tok/s':>9}{'tokens':>8}{'reused/prompt':>15}")
    for name, r in result["runs"].items():
        reuse = f"{r['reused_prefix_tokens']:.0f}/{r['prompt_tokens']:.0f}" if "prompt_tokens" in r else ""
        print(f"{name:<20}{r['ttft_s'] * 1000:>10.1f}{r['tokens_per_s']:>9.1f}{r['tokens']:>8.0f}{reuse:>15}")
    for k, v in result["ratios"].items():
        print(f"{k}: {v:.2f}")


if __name__ == "__main__":
    raise SystemExit(main())

"""Chat speed and compaction, measured.

    .venv/bin/python bench/chat.py [--reps 5] [--max-tokens 48] [--index DIR]     # time to first token
    .venv/bin/python bench/chat.py --compaction [--conversations 6]                # what a summary keeps

Time to first token (TTFT): one SQuAD question of bench/data/qa over the same library (the real MiniLM
index of bench/data/qa/articles) and the same retrieved passages, answered through ChatService with
  before: llama-cpp-python's default threads (half the logical CPUs; all of them for the prompt) and the
          old prompt (style "legacy": whole chunks, full paths),
  after:  one thread per physical core and the default prompt (DEFAULT_STYLE: question-focused passages),
and the two mixed, so each change shows on its own. Runs are interleaved and start from an empty KV cache.
Also: Trove vs raw llama-cpp-python on the identical prompt, and a follow-up with and without KV reuse.

Compaction: conversations of 8 SQuAD questions (each answered with the sentence of its article that holds the
gold answer); the first 6 turns are compacted extractively and by the model; reported: the share of those
turns whose gold answer the summary still contains, its tokens, and the seconds it took.
Writes bench/results/chat.json or bench/results/chat_compaction.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from _common import save
from qa import DATA, build_library, contains_any, load_questions

from desktop_app.core.chat.answer.gate.attribution import sentences
from desktop_app.core.chat.answer.prompt import DEFAULT_STYLE
from desktop_app.core.chat.compaction import extractive_summary, model_summary
from desktop_app.core.chat.models.files import resolve_model_path
from desktop_app.core.chat.runtime.llama import LlamaCppRuntime, physical_cores
from desktop_app.core.chat.service import ChatService
from desktop_app.core.settings import Settings
from desktop_app.core.store.sqlite import SQLiteStore
from desktop_app.core.types import Turn


def default_threads() -> tuple[int, int]:
    """What llama-cpp-python picks when given no thread counts: (half the CPUs, all the CPUs for batches)."""
    cpus = os.cpu_count() or 1
    return max(cpus // 2, 1), cpus


def ttft(service: ChatService, runtime: LlamaCppRuntime, question: str, max_tokens: int) -> tuple[float, int, float]:
    """(seconds to the first token from ask(), prompt tokens, seconds for the whole answer), from an empty cache."""
    runtime.reset_cache()
    marks: list[float] = []
    started = time.perf_counter()
    answer = service.ask(question, max_tokens=max_tokens, on_token=lambda t: marks.append(time.perf_counter()))
    return marks[0] - started, answer.prompt_tokens, time.perf_counter() - started


def raw_ttft(llm, messages, max_tokens) -> float:
    """TTFT of create_chat_completion on a bare Llama with the same messages (the overhead baseline)."""
    llm.reset()
    started = time.perf_counter()
    for chunk in llm.create_chat_completion(
        messages=messages, stream=True, max_tokens=max_tokens, temperature=0.0, seed=0
    ):
        if chunk["choices"][0]["delta"].get("content"):
            return time.perf_counter() - started
    return float("nan")


def measure_ttft(args) -> dict:
    """The before/after grid, the raw baseline and the follow-up reuse."""
    from llama_cpp import Llama

    gguf = resolve_model_path()
    settings = Settings(embedder="minilm", temperature=0.0)
    home = Path(args.index) if args.index else Path(tempfile.mkdtemp(prefix="trove-chat-bench-"))
    lib, _ = build_library(home, settings)
    question = next(q for q in load_questions(None) if not q.impossible).question
    results = lib._retrieve_for_chat(question, settings.context_top_k)
    lib.close()
    before_threads, after_threads = default_threads(), (physical_cores(), physical_cores())
    runtimes = {
        name: LlamaCppRuntime(gguf, n_ctx=settings.n_ctx, n_threads=t[0], n_threads_batch=t[1])
        for name, t in (("before", before_threads), ("after", after_threads))
    }
    tmp = tempfile.TemporaryDirectory()
    cells = {
        (threads, style): ChatService(
            SQLiteStore(Path(tmp.name) / f"{threads}-{style}.db"),
            lambda q, k: results[:k],
            lambda: settings,
            runtime_factory=lambda s, p, rt=runtimes[threads]: rt,
            style=style,
        )
        for threads in runtimes
        for style in ("legacy", DEFAULT_STYLE.name)
    }
    for (threads, _style), service in cells.items():  # warm up: load, allocate buffers
        ttft(service, runtimes[threads], question, 2)
    rows: dict[str, list] = {f"{t}-threads/{s}": [] for t, s in cells}
    for _ in range(args.reps):
        for (threads, style), service in cells.items():
            rows[f"{threads}-threads/{style}"].append(ttft(service, runtimes[threads], question, args.max_tokens))
    after = cells[("after", DEFAULT_STYLE.name)]
    plan = after.plan(question, results, [], settings, runtimes["after"], True, args.max_tokens)
    raw = Llama(
        model_path=str(gguf),
        n_ctx=settings.n_ctx,
        n_threads=after_threads[0],
        n_threads_batch=after_threads[1],
        seed=0,
        verbose=False,
    )
    raw_ttft(raw, [dict(m) for m in plan.messages], 2)
    raw_rows = [raw_ttft(raw, [dict(m) for m in plan.messages], args.max_tokens) for _ in range(args.reps)]
    raw.close()
    reuse = follow_up_reuse(after, runtimes["after"], question, args.max_tokens)
    for rt in runtimes.values():
        rt.close()
    tmp.cleanup()
    med = statistics.median
    grid = {
        k: {"ttft_s": med(r[0] for r in v), "prompt_tokens": med(r[1] for r in v), "answer_s": med(r[2] for r in v)}
        for k, v in rows.items()
    }
    return {
        "question": question,
        "reps": args.reps,
        "max_tokens": args.max_tokens,
        "cpu_count": os.cpu_count(),
        "physical_cores": physical_cores(),
        "threads_before": before_threads,
        "threads_after": after_threads,
        "loadavg_1m": os.getloadavg()[0],
        "grid": grid,
        "raw_ttft_s": med(raw_rows),
        "ratios": {
            "ttft_after_over_before": grid[f"after-threads/{DEFAULT_STYLE.name}"]["ttft_s"]
            / grid["before-threads/legacy"]["ttft_s"],
            "trove_over_raw_same_prompt": grid[f"after-threads/{DEFAULT_STYLE.name}"]["ttft_s"] / med(raw_rows),
        },
        "follow_up": reuse,
    }


def follow_up_reuse(service: ChatService, runtime: LlamaCppRuntime, question: str, max_tokens: int) -> dict:
    """TTFT of a follow-up with the KV cache as the first answer left it, and from an empty cache."""
    runtime.reset_cache()
    first = service.ask(question, max_tokens=max_tokens)
    marks: list[float] = []
    started = time.perf_counter()
    second = service.ask(
        "Say more about that.",
        chat_id=first.chat_id,
        max_tokens=max_tokens,
        on_token=lambda t: marks.append(time.perf_counter()),
    )
    with_reuse = marks[0] - started
    runtime.reset_cache()
    plan_messages = service.plan(
        "Say more about that.",
        [],
        service.store.turns(first.chat_id)[:1],
        service._get_settings(),
        runtime,
        True,
        max_tokens,
    ).messages
    gen = runtime.generate(list(plan_messages), max_tokens=max_tokens, temperature=0.0)
    return {
        "ttft_with_reuse_s": with_reuse,
        "reused_prefix_tokens": second.reused_prefix_tokens,
        "prompt_tokens": second.prompt_tokens,
        "ttft_without_reuse_s": gen.ttft_s,
    }


def conversations(n: int) -> list[list[tuple[Turn, tuple[str, ...]]]]:
    """`n` conversations of 8 answerable questions from one article each, answered with the gold sentence."""
    by_article: dict[str, list] = {}
    for q in load_questions(None):
        if not q.impossible:
            by_article.setdefault(q.article, []).append(q)
    out = []
    for article, qs in sorted(by_article.items())[:n]:
        text = (DATA / "articles" / f"{article}.txt").read_text(encoding="utf-8")
        spans = [text[a:b].strip() for a, b in sentences(text)]
        turns = []
        for q in qs[:8]:
            answer = next((s for s in spans if contains_any(s, q.answers)), q.answers[0])
            turns.append((Turn(q.question, f"{answer} [1]"), q.answers))
        out.append(turns)
    return out


def measure_compaction(args) -> dict:
    """Gold answers kept by an extractive and a model summary of 6 turns."""
    runtime = LlamaCppRuntime(resolve_model_path(), n_ctx=Settings.n_ctx, n_threads=args.threads)
    limit = min(384, runtime.n_ctx // 8)
    rows = {"extractive": [], "model": []}
    for convo in conversations(args.conversations):
        old = convo[:6]
        for name in ("extractive", "model"):
            started = time.perf_counter()
            if name == "extractive":
                text = extractive_summary([t for t, _ in old], "", limit, runtime.count_tokens)
            else:
                text = model_summary([t for t, _ in old], "", runtime, min(limit, 160))
            kept = sum(contains_any(text, golds) for _, golds in old) / len(old)
            rows[name].append(
                {
                    "kept": kept,
                    "tokens": runtime.count_tokens(text),
                    "seconds": time.perf_counter() - started,
                    "text": text,
                }
            )
    runtime.close()
    mean = statistics.mean
    return {
        "conversations": args.conversations,
        "summary_limit_tokens": limit,
        "threads": runtime.n_threads,
        "loadavg_1m": os.getloadavg()[0],
        "summary": {
            k: {
                "gold_kept": mean(r["kept"] for r in v),
                "tokens": mean(r["tokens"] for r in v),
                "seconds": mean(r["seconds"] for r in v),
            }
            for k, v in rows.items()
        },
        "rows": rows,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--max-tokens", type=int, default=24)
    ap.add_argument("--index", help="reuse (or keep) the bench/data/qa index in this folder")
    ap.add_argument("--compaction", action="store_true", help="measure what compaction keeps instead of TTFT")
    ap.add_argument("--conversations", type=int, default=6)
    ap.add_argument("--threads", type=int, default=0, help="llama.cpp threads for --compaction (0: physical cores)")
    args = ap.parse_args()
    if args.compaction:
        result = measure_compaction(args)
        for name, s in result["summary"].items():
            print(f"{name:<11} gold kept {s['gold_kept']:.3f}  tokens {s['tokens']:.0f}  seconds {s['seconds']:.2f}")
        save("chat_compaction", result)
        return 0
    result = measure_ttft(args)
    print(
        f"{result['question']!r}; {result['cpu_count']} CPUs, {result['physical_cores']} physical cores, "
        f"load(1m) {result['loadavg_1m']:.1f}; threads before {result['threads_before']}, after "
        f"{result['threads_after']} (decode, prompt)"
    )
    print(f"{'threads/prompt':<26}{'TTFT s':>8}{'prompt tok':>11}{'answer s':>9}")
    for name, r in result["grid"].items():
        print(f"{name:<26}{r['ttft_s']:>8.2f}{r['prompt_tokens']:>11.0f}{r['answer_s']:>9.2f}")
    print(f"raw llama-cpp-python, same prompt as after: TTFT {result['raw_ttft_s']:.2f}s")
    print(json.dumps(result["ratios"]), json.dumps(result["follow_up"]))
    save("chat", result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

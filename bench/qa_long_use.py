"""bench/qa.py --long-use N: do answers stay as good after months of use? (issue 42)

The same questions are asked twice through Library.ask, memory on as shipped (facts, raw chat history, recall):
(a) on a fresh memory, and (b) after N earlier questions of the split that are not among them, asked in chats of
CHAT_TURNS questions each (N/10 chats), whose turns memory keeps as it keeps any quiet chat. Memory is forgotten
before (a) and again before the earlier questions (a forget-all keeps the chats of (a) out of memory), so (b)
differs from (a) only by the earlier use. Beside qa.py's measures, each side counts the answers that show, quote
or cite the text of a past question or a chat turn ("past shown"); it must be 0.

With --skip-generation the earlier questions and both sides show what the bundled (small) model shows anyway: the
quote, or the refusal; only an answer without a quote differs (it would be the hidden generation).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import qa
from _qa_stats import fmt, proportion

from desktop_app.core.chat.runtime.llama import LlamaCppRuntime
from desktop_app.core.library import Library
from desktop_app.core.settings import Settings

CHAT_TURNS = 10  # earlier questions per chat
KEYS = (("gold", "shown answer contains gold"), ("citation_precision", "citation precision"),
        ("refusal_unanswerable", "unanswerable refused"), ("refusal_answerable", "answerable refused (false)"),
        ("ceiling", "retrieval ceiling"), ("past_shown", "past question or turn shown"))


def earlier_questions(data: Path, measured: list[qa.Question], n: int) -> list[qa.Question]:
    """`n` questions of the split's pool that are not measured (the pool's own order, repeated if it runs out)."""
    name = "questions_all.jsonl" if (data / "questions_all.jsonl").exists() else "questions.jsonl"
    ids = {q.id for q in measured}
    texts = {q.question for q in measured}
    pool = [q for q in qa.load_questions(None, data, name) if q.id not in ids and q.question not in texts]
    return [pool[i % len(pool)] for i in range(n)] if pool and n > 0 else []


def past_shown(answer, past: set[str]) -> bool:
    """Whether the answer shows, quotes, cites or was sent as evidence the text of a past question or a chat turn."""
    texts = [answer.text, *(c.snippet for c in answer.citations), *(p.content for p in answer.passages)]
    if answer.quote is not None:
        texts.append(answer.quote.text)
    return any("[turn " in t or "User: " in t or any(q in t for q in past) for t in texts)


def measure(lib: Library, questions: list[qa.Question], max_tokens: int, past: set[str], side: str) -> list[dict]:
    """Each question in a new chat; qa.py's scored row plus `past_shown`."""
    rows = []
    for i, q in enumerate(questions, 1):
        clock = qa.Clock()
        answer = lib.ask(q.question, max_tokens=max_tokens, on_token=clock.on_token, on_quote=clock.on_quote)
        rows.append({**qa.score(q, answer, time.perf_counter() - clock.started, clock),
                     "past_shown": past_shown(answer, past)})
        print(f"  ({side}) {i}/{len(questions)} {rows[-1]['wall_s']:.1f}s", file=sys.stderr, flush=True)
    return rows


def use(lib: Library, earlier: list[qa.Question], max_tokens: int, reranker: bool = True) -> set[str]:
    """Ask the earlier questions, CHAT_TURNS to a chat; the questions asked. `reranker` False asks them without the
    chat's reranker (the cross-encoder): what memory keeps is each question and its shown answer, and the
    cross-encoder only reorders and gates the same search's passages, at seconds a question on a loaded machine."""
    service = lib._chat
    kept = service._reranker
    if not reranker:
        service._reranker = None
    chat = None
    try:
        for i, q in enumerate(earlier):
            chat = None if i % CHAT_TURNS == 0 else chat
            chat = lib.ask(q.question, chat_id=chat, max_tokens=max_tokens).chat_id
            if i % 25 == 0:
                print(f"  (use) {i}/{len(earlier)}", file=sys.stderr, flush=True)
    finally:
        service._reranker = kept
    return {q.question for q in earlier}


def summary(rows: list[dict]) -> dict:
    return {**qa.summarise(rows), "past_shown": proportion([r["past_shown"] for r in rows])}


def run_long_use(args, lib: Library, retrieve, settings: Settings, questions: list[qa.Question], data: Path,
                 meta: dict) -> dict:
    """(a) fresh and (b) after args.long_use earlier questions; saved to args.out and printed side by side."""
    path = qa.resolve_model((args.model or ["bundled"])[0], Path(args.models_dir))
    runtime = LlamaCppRuntime(path, n_ctx=settings.n_ctx, n_threads=settings.n_threads)
    lib._chat = qa.chat_service(lib, retrieve, qa.Kept(runtime, args.skip_generation), None, memory=True)
    earlier = earlier_questions(data, questions, args.long_use)
    try:
        lib.memory.forget_all()
        fresh = measure(lib, questions, args.max_tokens, {q.question for q in earlier}, "a")
        lib.memory.forget_all()
        started = time.perf_counter()
        past = use(lib, earlier, args.max_tokens, not args.use_without_reranker)
        use_s = time.perf_counter() - started
        after = measure(lib, questions, args.max_tokens, past, "b")
    finally:
        runtime.close()
    result = {**meta, "model": path.stem, "skip_generation": args.skip_generation,
              "earlier_without_reranker": args.use_without_reranker, "earlier_questions": len(earlier),
              "earlier_chats": -(-len(earlier) // CHAT_TURNS), "use_seconds": use_s,
              "memory_chunks_after": lib.memory.chunk_sql.count(),
              "fresh": {"summary": summary(fresh), "rows": fresh}, "after": {"summary": summary(after), "rows": after}}
    Path(args.out).write_text(json.dumps(result, indent=2, ensure_ascii=False), encoding="utf-8")
    print(f"\n{path.stem}: (a) fresh vs (b) after {len(earlier)} earlier questions in {result['earlier_chats']} chats "
          f"({result['memory_chunks_after']} memory chunks)")
    for key, label in KEYS:
        a, b = result["fresh"]["summary"][key], result["after"]["summary"][key]
        print(f"  {label:<30} (a) {fmt(a)}   (b) {fmt(b)}   n={a['n']}")
    return result

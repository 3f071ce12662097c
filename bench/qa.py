"""Grounded QA, measured: SQuAD 2.0 dev questions asked through Library.ask over the articles they come from.

    .venv/bin/python bench/qa.py [--limit N] [--model GGUF ...] [--style NAME ...] [--label TEXT]

Indexes bench/data/qa/articles (one file per Wikipedia article) with the real MiniLM embedder, then asks
every question in bench/data/qa/questions.jsonl through Library.ask with each model (default: the bundled
SmolLM2-135M) and each prompt style, in one process (the same index, the same retrieval, the same loaded
model). Per model and style it reports:

  gold      answer contains a gold answer (SQuAD normalisation: lower case, no punctuation or articles)
  ceiling   retrieval ceiling: a passage that was sent contains a gold answer
  cites     share of answers that cite at least one passage
  cite-prec citation precision: cited passages that contain a gold answer / passages cited (answerable questions)
  refuse    refusal rate on the unanswerable questions (a refusal phrase, or no model call at all)
  false-ref refusal rate on the answerable questions
  TTFT / per answer / prompt tokens: medians

Prints a table and writes bench/results/qa.json (or --out).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import string
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from _common import RESULTS, median, percentile, save

from desktop_app.core.chat.model_files import resolve_model_path
from desktop_app.core.chat.runtime import LlamaCppRuntime, physical_cores
from desktop_app.core.chat.service import ChatService
from desktop_app.core.library import Library
from desktop_app.core.settings import Settings

DATA = Path(__file__).resolve().parent / "data" / "qa"
_REFUSAL = re.compile(
    r"\b(not cover|do(es)? not (contain|cover|say|mention|provide|include)|no information|"
    r"not (mentioned|provided|specified|stated|given)|cannot answer|can't answer|unable to answer|"
    r"(do not|don't) know|no mention|isn't mentioned|is not mentioned|not in the (passages|documents))"
)


def normalize(text: str) -> str:
    """SQuAD's answer normalisation: lower case, no punctuation, no articles, single spaces."""
    text = "".join(ch for ch in text.lower() if ch not in set(string.punctuation))
    text = re.sub(r"\b(a|an|the)\b", " ", text)
    return " ".join(text.split())


def contains_any(text: str, golds: Sequence[str]) -> bool:
    """Whether the normalised `text` contains a normalised gold answer (as whole words)."""
    hay = f" {normalize(text)} "
    return any(f" {g} " in hay for g in (normalize(x) for x in golds) if g)


def is_refusal(answer) -> bool:
    """The library said it cannot answer: no model call, or a refusal phrase in the answer."""
    return bool(answer.refused or _REFUSAL.search(answer.text.lower()))


@dataclass(frozen=True)
class Question:
    """One SQuAD question: its gold answers (none when it is unanswerable)."""

    id: str
    article: str
    question: str
    answers: tuple[str, ...]
    impossible: bool


def load_questions(limit: int | None) -> list[Question]:
    """The questions, in file order (already shuffled with a fixed seed), the first `limit` of them."""
    rows = [json.loads(line) for line in (DATA / "questions.jsonl").read_text(encoding="utf-8").splitlines() if line]
    qs = [Question(r["id"], r["article"], r["question"], tuple(r["answers"]), r["is_impossible"]) for r in rows]
    return qs[:limit] if limit else qs


def score(q: Question, answer, wall_s: float) -> dict:
    """One answer's row: what it said and every measure that applies to it."""
    cited = {c.n for c in answer.citations}
    row = {
        "id": q.id,
        "impossible": q.impossible,
        "text": answer.text,
        "raw_text": answer.raw_text,
        "refusal": is_refusal(answer),
        "cited": sorted(cited),
        "passages": len(answer.passages),
        "prompt_tokens": answer.prompt_tokens,
        "completion_tokens": answer.completion_tokens,
        "ttft_s": answer.ttft_s,
        "wall_s": wall_s,
    }
    if not q.impossible:
        holds = {p.n for p in answer.passages if contains_any(p.content, q.answers)}
        row.update(
            gold=contains_any(answer.text, q.answers),
            ceiling=bool(holds),
            cited_right=len(cited & holds),
            cited_total=len(cited),
        )
    return row


def summarise(rows: list[dict]) -> dict:
    """The table's measures over one model × style run."""
    yes = [r for r in rows if not r["impossible"]]
    no = [r for r in rows if r["impossible"]]
    share = lambda xs, key: sum(bool(x[key]) for x in xs) / len(xs) if xs else 0.0
    cited_total = sum(r["cited_total"] for r in yes)
    timed = [r for r in rows if r["ttft_s"] is not None]
    return {
        "answerable": len(yes),
        "unanswerable": len(no),
        "gold": share(yes, "gold"),
        "ceiling": share(yes, "ceiling"),
        "gold_given_ceiling": (sum(r["gold"] for r in yes if r["ceiling"]) / max(1, sum(r["ceiling"] for r in yes))),
        "cites": sum(bool(r["cited"]) for r in rows) / len(rows) if rows else 0.0,
        "citation_precision": sum(r["cited_right"] for r in yes) / cited_total if cited_total else 0.0,
        "refusal_unanswerable": share(no, "refusal"),
        "refusal_answerable": share(yes, "refusal"),
        "ttft_s_median": median([r["ttft_s"] for r in timed]),
        "ttft_s_p90": percentile([r["ttft_s"] for r in timed], 90),
        "answer_s_median": median([r["wall_s"] for r in rows]),
        "prompt_tokens_median": median([r["prompt_tokens"] for r in timed]),
        "completion_tokens_median": median([r["completion_tokens"] for r in timed]),
    }


def build_library(home: Path, settings: Settings) -> tuple[Library, float]:
    """Index the articles with the real MiniLM (both phases); returns the library and the seconds it took."""
    lib = Library(home, settings=settings)
    started = time.perf_counter()
    lib.add_folder(DATA / "articles")
    lib.sync(wait=True)
    return lib, time.perf_counter() - started


def cached_retriever(lib: Library):
    """Library retrieval, memoised: every model and style gets the very same passages for a question."""
    memo: dict[tuple[str, int], list] = {}

    def retrieve(query: str, top_k: int):
        key = (query, top_k)
        if key not in memo:
            memo[key] = lib._retrieve_for_chat(query, top_k)
        return memo[key]

    return retrieve


def run(
    lib: Library,
    retrieve,
    runtime: LlamaCppRuntime,
    style: str | None,
    questions: list[Question],
    max_tokens: int,
    checkpoint=None,
) -> list[dict]:
    """Ask every question (each in a new chat) through Library.ask; one scored row per question.

    `checkpoint(rows)` is called every 5 questions, so a run stopped early keeps what it measured.
    """
    kwargs = {"style": style} if style else {}
    lib._chat = ChatService(lib.store, retrieve, lambda: lib.settings, runtime_factory=lambda s, p: runtime, **kwargs)
    rows = []
    for i, q in enumerate(questions, 1):
        started = time.perf_counter()
        answer = lib.ask(q.question, max_tokens=max_tokens)
        rows.append(score(q, answer, time.perf_counter() - started))
        print(
            f"  {i}/{len(questions)} {rows[-1]['wall_s']:.1f}s {rows[-1]['prompt_tokens']} tokens",
            file=sys.stderr,
            flush=True,
        )
        if checkpoint is not None and i % 5 == 0:
            checkpoint(rows)
    return rows


def print_table(results: list[dict]) -> None:
    """One line per model × style."""
    head = (
        f"{'model':<26}{'style':<40}{'gold':>6}{'ceil':>6}{'cites':>7}{'c-prec':>8}{'refuse':>8}{'f-ref':>7}"
        f"{'TTFT s':>8}{'ans s':>7}{'prompt':>8}"
    )
    print(head)
    for r in results:
        s = r["summary"]
        print(
            f"{r['model'][:25]:<26}{r['style'][:39]:<40}{s['gold']:>6.3f}{s['ceiling']:>6.3f}{s['cites']:>7.3f}"
            f"{s['citation_precision']:>8.3f}{s['refusal_unanswerable']:>8.3f}{s['refusal_answerable']:>7.3f}"
            f"{s['ttft_s_median']:>8.2f}{s['answer_s_median']:>7.2f}{s['prompt_tokens_median']:>8.0f}"
        )


def plan_only(
    lib: Library,
    retrieve,
    runtime: LlamaCppRuntime,
    styles: Sequence[str],
    top_ks: Sequence[int],
    questions: list[Question],
    max_tokens: int,
) -> list[dict]:
    """Passages × length without generating: for each style and top-k, the retrieval ceiling (a sent passage
    holds a gold answer) and the prompt tokens, over the answerable questions. Prompt evaluation time grows
    with the prompt tokens (bench/chat.py), so this chooses how much to send."""
    out = []
    for style in styles:
        service = ChatService(
            lib.store,
            retrieve,
            lambda: lib.settings,
            runtime_factory=lambda s, p: runtime,
            **({"style": style} if style else {}),
        )
        for k in top_ks:
            held, tokens = [], []
            for q in (q for q in questions if not q.impossible):
                plan = service.plan(q.question, retrieve(q.question, k), [], lib.settings, runtime, True, max_tokens)
                held.append(any(contains_any(p.content, q.answers) for p in plan.passages))
                tokens.append(runtime.prompt_tokens(plan.messages))
            out.append(
                {
                    "style": style or "default",
                    "top_k": k,
                    "ceiling": sum(held) / len(held),
                    "prompt_tokens_median": median(tokens),
                    "prompt_tokens_p90": percentile(tokens, 90),
                }
            )
            print(
                f"{style or 'default':<16} top_k={k:<3} ceiling {out[-1]['ceiling']:.3f}  prompt tokens "
                f"median {out[-1]['prompt_tokens_median']:.0f}  p90 {out[-1]['prompt_tokens_p90']:.0f}",
                flush=True,
            )
        service.close()
    return out


def compare(paths: Sequence[str]) -> list[dict]:
    """Runs from several result files, summarised over the questions they all answered (a fair table)."""
    runs = [(Path(p).name, r) for p in paths for r in json.loads(Path(p).read_text(encoding="utf-8"))["results"]]
    common = set.intersection(*({row["id"] for row in r["rows"]} for _, r in runs))
    out = []
    for name, r in runs:
        rows = [row for row in r["rows"] if row["id"] in common]
        out.append({**r, "style": f"{r['style']} ({name})", "summary": summarise(rows), "rows": rows})
    print(f"{len(common)} questions answered in every run")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--table",
        nargs="+",
        metavar="JSON",
        help="only print a table of earlier results files (over the questions they have in common)",
    )
    ap.add_argument("--limit", type=int, help="ask only the first N questions (a quick run)")
    ap.add_argument("--model", nargs="*", default=[], help="GGUF files (default: the bundled SmolLM2-135M)")
    ap.add_argument("--style", nargs="*", default=[""], help="prompt styles to compare (default: the service's)")
    ap.add_argument("--max-tokens", type=int, default=96, help="longest answer (SQuAD answers are a few words)")
    ap.add_argument("--threads", type=int, default=0, help="llama.cpp threads (0: the runtime's default)")
    ap.add_argument("--index", help="keep the index in this folder and reuse it next time (default: a temp folder)")
    ap.add_argument("--n-ctx", type=int, default=Settings.n_ctx)
    ap.add_argument("--top-k", type=int, default=Settings.context_top_k)
    ap.add_argument(
        "--plan-only",
        type=int,
        nargs="*",
        metavar="K",
        help="no generation: retrieval ceiling and prompt tokens per style for each top-k given",
    )
    ap.add_argument("--max-context-tokens", type=int, default=Settings.max_context_tokens)
    ap.add_argument("--label", default="", help="a note saved with the results (e.g. before/after)")
    ap.add_argument("--out", default=str(RESULTS / "qa.json"))
    args = ap.parse_args()
    if args.table:
        print_table(compare(args.table))
        return 0
    settings = Settings(
        embedder="minilm",
        n_ctx=args.n_ctx,
        n_threads=args.threads,
        context_top_k=args.top_k,
        max_context_tokens=args.max_context_tokens,
    )
    questions = load_questions(args.limit)
    home = Path(args.index) if args.index else Path(tempfile.mkdtemp(prefix="trove-qa-"))
    lib, index_s = build_library(home, settings)
    print(f"indexed {len(list((DATA / 'articles').iterdir()))} articles in {index_s:.1f}s; {len(questions)} questions")
    retrieve = cached_retriever(lib)
    if args.plan_only is not None:
        runtime = LlamaCppRuntime(resolve_model_path(), n_ctx=settings.n_ctx, n_threads=settings.n_threads)
        rows = plan_only(lib, retrieve, runtime, args.style, args.plan_only or [args.top_k], questions, args.max_tokens)
        runtime.close()
        lib.close()
        save(
            "qa_plan",
            {
                "questions": len(questions),
                "n_ctx": settings.n_ctx,
                "max_context_tokens": settings.max_context_tokens,
                "results": rows,
            },
            str(Path(args.out).with_name("qa_plan.json")),
        )
        return 0
    results: list[dict] = []
    meta = {
        "label": args.label,
        "questions": len(questions),
        "index_seconds": index_s,
        "settings": {
            "n_ctx": settings.n_ctx,
            "top_k": settings.context_top_k,
            "max_tokens": args.max_tokens,
            "max_context_tokens": settings.max_context_tokens,
            "physical_cores": physical_cores(),
        },
    }
    try:
        for model in [Path(m) for m in args.model] or [resolve_model_path()]:
            runtime = LlamaCppRuntime(model, n_ctx=settings.n_ctx, n_threads=settings.n_threads)
            for style in args.style:
                print(f"{model.name} · style {style or 'default'}", flush=True)
                head = {
                    "model": model.stem,
                    "style": style or "default",
                    "threads": runtime.n_threads,
                    "loadavg_1m_at_start": os.getloadavg()[0],
                }

                def checkpoint(rows: list[dict], head: dict = head) -> None:
                    partial = {**head, "partial": True, "summary": summarise(rows), "rows": rows}
                    save("qa", {**meta, "results": [*results, partial]}, args.out)

                rows = run(lib, retrieve, runtime, style, questions, args.max_tokens, checkpoint)
                results.append({**head, "summary": summarise(rows), "rows": rows})
                save("qa", {**meta, "results": results}, args.out)
            runtime.close()
    finally:
        lib.close()
        if not args.index:
            shutil.rmtree(home, ignore_errors=True)
    print_table(results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The retrieval ceiling per language: does the passage holding the answer reach the model? No generation.

    .venv/bin/python bench/qa_ceiling.py [--split xquad] [--embedder auto ...] [--modes keyword hybrid ...]
        [--layout mixed|per-language] [--cross th:en en:th] [--top-k 5] [--tag TEXT]

For every answerable question of a QA split (bench/qa.py's splits; XQuAD's by default: th, zh, ar, en) and every
retrieval mode, the question is searched (top-k, as chat retrieves) and the prompt is planned with the real
tokenizer of the bundled model (focus windows, token budget: ChatService.plan, as bench/qa.py --plan-only). Two
figures per language, each with a 95% Wilson interval:

  top-k    a retrieved chunk contains a gold answer (bench/qa.py's matching)
  sent     a passage in the planned prompt contains one: the ceiling of any answer the model can give

Layouts: `mixed` indexes every article of the split in one library (what bench/qa.py does); `per-language` one
library per language (a Thai library: "auto" then chooses for Thai alone); `none` only the --cross pairs.
`--cross Q:D` asks the questions of language Q over the library of language D (XQuAD is parallel: the same
question id, the gold answers of D's row), e.g. th:en for Thai questions over English articles.
Report only: the XQuAD split is never tuned on.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

from _common import save
from _qa_stats import fmt, proportion
from qa import SPLITS, Question, chat_service, contains_any, load_questions

from desktop_app.core.chat.models.files import resolve_model_path
from desktop_app.core.chat.runtime.llama import LlamaCppRuntime
from desktop_app.core.library import Library
from desktop_app.core.settings import Settings

MODES = ("keyword", "semantic", "hybrid")


def build(home: Path, settings: Settings, folders: list[Path]) -> Library:
    """A library over `folders`, both phases done."""
    lib = Library(home, settings=settings)
    for folder in folders:
        lib.add_folder(folder)
    lib.sync(wait=True)
    lib.wait_for_embeddings()
    return lib


def ceiling_rows(lib: Library, questions: list[Question], golds: dict[str, tuple[str, ...]], modes: list[str],
                 top_k: int, runtime: LlamaCppRuntime, max_tokens: int) -> list[dict]:
    """One row per question and mode: whether a gold answer is in the top-k chunks and in the planned prompt."""
    service = chat_service(lib, lambda q, k, paths=(): lib.search(q, top_k=k, literal=True), runtime, None)
    rows = []
    try:
        for i, q in enumerate(questions, 1):
            if i % 50 == 0:
                print(f"  {i}/{len(questions)} questions", file=sys.stderr, flush=True)
            answers = golds.get(q.id, q.answers)
            for mode in modes:
                found = lib.search(q.question, top_k=top_k, mode=mode, literal=True)  # a question, as chat reads it
                plan = service.plan(q.question, found, [], lib.settings, runtime, True, max_tokens)
                rows.append({"id": q.id, "lang": q.lang, "mode": mode,
                             "top_k": any(contains_any(r.content, answers) for r in found),
                             "sent": any(contains_any(p.content, answers) for p in plan.passages),
                             "prompt_tokens": runtime.prompt_tokens(plan.messages)})
    finally:
        service.close()
    return rows


def summary(rows: list[dict]) -> dict:
    """Per language and mode: top-k and sent with their intervals, and the median prompt tokens."""
    out: dict = {}
    for lang in sorted({r["lang"] for r in rows}):
        for mode in sorted({r["mode"] for r in rows}):
            sel = [r for r in rows if r["lang"] == lang and r["mode"] == mode]
            if sel:
                tokens = sorted(r["prompt_tokens"] for r in sel)
                out.setdefault(lang, {})[mode] = {"top_k": proportion([r["top_k"] for r in sel]),
                                                  "sent": proportion([r["sent"] for r in sel]),
                                                  "prompt_tokens_median": tokens[len(tokens) // 2]}
    return out


def print_summary(label: str, s: dict) -> None:
    print(f"\n[{label}]")
    for lang, modes in s.items():
        for mode, m in modes.items():
            print(f"  {lang:<6} {mode:<9} top-k {fmt(m['top_k'])}   sent {fmt(m['sent'])}   n={m['sent']['n']}"
                  f"   prompt tokens median {m['prompt_tokens_median']}", flush=True)


def run(args: argparse.Namespace) -> dict:
    data = SPLITS[args.split]
    questions = [q for q in load_questions(None, data) if not q.impossible]
    by_lang = {lang: [q for q in questions if q.lang == lang] for lang in sorted({q.lang for q in questions})}
    runtime = LlamaCppRuntime(resolve_model_path(), n_ctx=Settings.n_ctx)
    work = Path(tempfile.mkdtemp(prefix="trove-ceiling-"))
    out: dict = {}
    try:
        for embedder in args.embedder:
            settings = Settings(embedder=embedder, context_top_k=args.top_k)
            results: dict = {}
            t0 = time.perf_counter()
            if args.layout == "none":
                pass
            elif args.layout == "mixed":
                lib = build(work / f"{embedder}-mixed", settings, [data / "articles"])
                results["mixed"] = summary(ceiling_rows(lib, questions, {}, args.modes, args.top_k, runtime,
                                                        args.max_tokens))
                results["mixed_embedder"] = lib.embedder.model_id
                lib.close()
            else:
                for lang, qs in by_lang.items():
                    lib = build(work / f"{embedder}-{lang}", settings, [data / "articles" / lang])
                    results.setdefault("per_language", {}).update(
                        summary(ceiling_rows(lib, qs, {}, args.modes, args.top_k, runtime, args.max_tokens)))
                    results.setdefault("per_language_embedder", {})[lang] = lib.embedder.model_id
                    lib.close()
            for pair in args.cross:
                q_lang, d_lang = pair.split(":")
                lib = build(work / f"{embedder}-x-{d_lang}", settings, [data / "articles" / d_lang])
                golds = {q.id: q.answers for q in by_lang[d_lang]}
                rows = ceiling_rows(lib, by_lang[q_lang], golds, args.modes, args.top_k, runtime, args.max_tokens)
                results.setdefault("cross", {})[pair] = summary([{**r, "lang": pair} for r in rows])[pair]
                results.setdefault("cross_embedder", {})[pair] = lib.embedder.model_id
                lib.close()
            results["seconds"] = time.perf_counter() - t0
            out[embedder] = results
            for key in ("mixed", "per_language"):
                if key in results:
                    print_summary(f"{embedder} · {key}", results[key])
            if "cross" in results:
                print_summary(f"{embedder} · cross-lingual", results["cross"])
    finally:
        runtime.close()
        shutil.rmtree(work, ignore_errors=True)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--split", choices=sorted(SPLITS), default="xquad")
    ap.add_argument("--embedder", nargs="+", default=["auto"])
    ap.add_argument("--modes", nargs="+", choices=MODES, default=list(MODES))
    ap.add_argument("--layout", choices=("mixed", "per-language", "none"), default="mixed",
                    help="none: only the --cross pairs")
    ap.add_argument("--cross", nargs="*", default=[], metavar="Q:D", help="questions of Q over the library of D")
    ap.add_argument("--top-k", type=int, default=Settings.context_top_k)
    ap.add_argument("--max-tokens", type=int, default=96, help="the answer reserve the plan keeps")
    ap.add_argument("--tag", default="", help="a suffix of the results file (e.g. before/after)")
    ap.add_argument("--label", default="", help="a note saved with the results")
    args = ap.parse_args()
    results = run(args)
    name = f"qa_ceiling_{args.split}_{args.layout}" + (f"_{args.tag}" if args.tag else "")
    save(name, {"label": args.label, "command": " ".join(sys.argv), "split": args.split, "top_k": args.top_k,
                "results": results})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

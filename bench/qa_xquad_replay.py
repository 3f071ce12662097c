"""The quote selector replayed over the passages chat found, per language, on the XQuAD dev articles — fast reruns.

    .venv/bin/python bench/qa_xquad_replay.py record [--split xquad-dev] [--questions questions_all.jsonl]
        [--langs th ar ...] [--out JSON]
    .venv/bin/python bench/qa_xquad_replay.py replay JSON [--langs th ar] [--misses th] [--kind-bonus X]
        [--neighbours on off] [--spread X ...]

`record` asks every answerable question through the library's own ChatService as bench/quote_units.py does
(bundled model loaded for its tokenizer, generation skipped, embedder `auto`, cross-encoder as shipped) and keeps,
per question, the whole chunks the quote selector was first handed (search, cross-encoder order), the quote shown
and whether it holds a gold answer. `replay` runs the selector as it is in the checkout over those chunks again
(the library's embedder for a mixed XQuAD library, USE-multilingual) and prints, per language, the share whose
quote holds gold (95% Wilson interval), beside what was recorded; `--misses LANG` prints each miss classified:

  ceiling   no chunk handed to the selector holds a gold answer (retrieval or the cross-encoder lost it)
  split     a chunk holds one, but no unit of it does (the unit was cut through the answer)
  next/prev a unit holding it was there, the one right after / before the unit chosen (in the same passage)
  selector  a unit holding it was there, elsewhere, and another unit was chosen

Dev articles only (`questions_all.jsonl`: every XQuAD question of the dev split's 8 articles, 177 per language;
the 50 of `questions.jsonl` are among them). Never run this on the held-out split.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from _common import RESULTS, save
from _qa_stats import fmt, proportion
from qa import SPLITS, Kept, build_library, cached_retriever, chat_service, contains_any, load_questions, resolve_model

from desktop_app.core.chat.answer.context import Passage
from desktop_app.core.chat.answer.quote.default import embedder_selector
from desktop_app.core.chat.answer.quote.selector import candidates
from desktop_app.core.chat.runtime.llama import LlamaCppRuntime
from desktop_app.core.embed.base import embed_query, make_embedder
from desktop_app.core.settings import Settings

# xquad-final was reported once (session 56) and is a dev split since; the native-final split is never recorded
DEV_SPLITS = ("xquad-dev", "xquad-final")


class Recording:
    """The chat's quote selector, keeping the passages of its first call per question (the whole chunks found)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.first: list[Passage] | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def select(self, question: str, passages: Any) -> Any:
        if self.first is None:
            self.first = list(passages)
        return self.inner.select(question, passages)


def record(args: argparse.Namespace) -> int:
    data = SPLITS[args.split]
    if args.split not in DEV_SPLITS:
        raise SystemExit(f"replay records dev splits only ({', '.join(DEV_SPLITS)})")
    questions = [q for q in load_questions(None, data, args.questions) if not q.impossible
                 and (not args.langs or q.lang in args.langs)]
    if args.langs:  # the languages in the order given (a partial file is already useful)
        questions.sort(key=lambda q: args.langs.index(q.lang))
    out = args.out or str(RESULTS / "xquad_replay_dev.json")
    home = Path(tempfile.mkdtemp(prefix="trove-xquad-replay-"))
    lib, index_s = build_library(home, Settings(embedder="auto"), data)
    model = resolve_model("bundled")
    runtime = LlamaCppRuntime(model, n_ctx=lib.settings.n_ctx, n_threads=lib.settings.n_threads)
    rows: list[dict] = []
    started = time.perf_counter()
    try:
        lib._chat = chat_service(lib, cached_retriever(lib), {str(model): Kept(runtime, skip_generation=True)}, None)
        recorder = Recording(lib.chat.quote_selector())
        lib.chat._selector = recorder
        for i, q in enumerate(questions, 1):
            recorder.first = None
            answer = lib.ask(q.question, max_tokens=96, model_path=str(model))
            quote = answer.quote if not answer.refused else None
            rows.append({"id": q.id, "lang": q.lang, "question": q.question, "answers": list(q.answers),
                         "quote": quote.text if quote else None,
                         "gold": bool(quote and contains_any(quote.text, q.answers)),
                         "passages": [{"n": p.n, "content": p.content, "source": p.source, "page": p.page,
                                       "place": p.place} for p in recorder.first or []]})
            print(f"  {i}/{len(questions)}", file=sys.stderr, end="\r", flush=True)
            if i % 25 == 0 or i == len(questions):
                write(args, out, lib.embedder.model_id, started, index_s, rows)
    finally:
        runtime.close()
        lib.close()
        shutil.rmtree(home, ignore_errors=True)
    return 0


def write(args: argparse.Namespace, out: str, embedder: str, started: float, index_s: float, rows: list[dict]) -> None:
    """The rows recorded so far (written as they come: a long run is read before it ends)."""
    save("xquad_replay", {"split": args.split, "questions": args.questions, "embedder": embedder,
                          "command": " ".join(sys.argv), "seconds": time.perf_counter() - started,
                          "index_s": index_s, "load": os.getloadavg()[0], "rows": rows}, out)


def classify(row: dict, quote: Any, passages: list[Passage]) -> str:
    """Why the replayed quote misses: ceiling, split, next, prev or selector (see the module docstring)."""
    golds = row["answers"]
    if not any(contains_any(p.content, golds) for p in passages):
        return "ceiling"
    found = candidates(passages)
    if not any(contains_any(c.text, golds) for c in found):
        return "split"
    at = next((i for i, c in enumerate(found) if quote is not None and c.passage.n == quote.n
               and c.start == quote.start), None)
    for step, name in ((1, "next"), (-1, "prev")):
        j = at + step if at is not None else -1
        if 0 <= j < len(found) and found[j].passage is found[at].passage and contains_any(found[j].text, golds):
            return name
    return "selector"


class Memo:
    """An embedder whose vectors are kept by text (a sweep reads the same sentences again)."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.vectors = inner, {}
        self.model_id, self.dim = inner.model_id, inner.dim

    def embed(self, texts: Any) -> Any:
        missing = [t for t in dict.fromkeys(texts) if t not in self.vectors]
        if missing:
            self.vectors.update(zip(missing, self.inner.embed(missing), strict=True))
        return np.stack([self.vectors[t] for t in texts])

    def embed_query(self, text: str) -> Any:
        key = ("query", text)
        if key not in self.vectors:
            self.vectors[key] = embed_query(self.inner, text)
        return self.vectors[key]


def replay(args: argparse.Namespace) -> int:
    data = json.loads(Path(args.recorded).read_text(encoding="utf-8"))
    name = args.embedder or ("use-multilingual" if "multilingual" in data["embedder"].lower() else "minilm")
    model = Memo(make_embedder(name, 32))
    only = None
    if args.dev50:
        only = {json.loads(line)["id"] for line in (SPLITS["xquad-dev"] / "questions.jsonl").read_text(
            encoding="utf-8").splitlines() if line}
    for neighbours in args.neighbours:
        for bonus in args.kind_bonus or [None]:
            for spread in args.spread or [None]:
                selector = embedder_selector(lambda: model)
                if bonus is not None:
                    selector.kind_bonus = bonus
                if spread is not None:
                    selector.spread = spread
                selector.neighbours = neighbours == "on"
                print(f"kind bonus {selector.kind_bonus}, neighbours {neighbours}, spread {selector.spread}"
                      + (" (the dev split's 50 ids)" if only else ""))
                replay_once(args, data, selector, only)
    return 0


def replay_once(args: argparse.Namespace, data: dict, selector: Any, only: set[str] | None) -> None:
    by_lang: dict[str, list[tuple[bool, bool]]] = {}
    lengths: dict[str, list[int]] = {}
    causes: dict[str, dict[str, int]] = {}
    for row in data["rows"]:
        if (args.langs and row["lang"] not in args.langs) or (only is not None and row["id"] not in only):
            continue
        passages = [Passage(p["n"], p["content"], p["source"], p.get("page"), place=p.get("place", ""))
                    for p in row["passages"]]
        quote = selector.select(row["question"], passages) if passages else None
        hit = bool(quote and contains_any(quote.text, row["answers"]))
        by_lang.setdefault(row["lang"], []).append((hit, row["gold"]))
        if quote is not None:
            lengths.setdefault(row["lang"], []).append(len(quote.text))
        if not hit:
            cause = classify(row, quote, passages)
            causes.setdefault(row["lang"], {}).setdefault(cause, 0)
            causes[row["lang"]][cause] += 1
            if row["lang"] in (args.misses or []):
                print(f"\n[{cause}] {row['id']} {row['question']}  gold={row['answers']}\n   quote: "
                      f"{quote.text if quote else None}")
    for lang, pairs in sorted(by_lang.items()):
        now, then = proportion([p[0] for p in pairs]), proportion([p[1] for p in pairs])
        print(f"  {lang:<3} n={len(pairs)}  quote holds gold {fmt(now)}  (recorded {fmt(then)})  "
              f"up {sum(a and not b for a, b in pairs)} down {sum(b and not a for a, b in pairs)}  "
              f"misses {causes.get(lang, {})}  quote length p50 / p90 {quantiles(lengths.get(lang, []))}")


def quantiles(values: list[int]) -> str:
    """The median and 90th percentile of quote lengths in characters (a longer quote holds gold more often)."""
    if not values:
        return "-"
    ordered = sorted(values)
    return f"{ordered[(len(ordered) - 1) // 2]} / {ordered[int(0.9 * (len(ordered) - 1))]}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    rec = sub.add_parser("record")
    rec.add_argument("--split", default="xquad-dev")
    rec.add_argument("--questions", default="questions_all.jsonl")
    rec.add_argument("--langs", nargs="*")
    rec.add_argument("--out")
    rep = sub.add_parser("replay")
    rep.add_argument("recorded")
    rep.add_argument("--langs", nargs="*")
    rep.add_argument("--misses", nargs="*", help="print every miss of these languages")
    rep.add_argument("--kind-bonus", type=float, nargs="*", help="one replay per value")
    rep.add_argument("--neighbours", nargs="*", choices=("on", "off"), default=["on"],
                     help="quote the unit beside the chosen one when only it offers the kind asked for")
    rep.add_argument("--spread", type=float, nargs="*",
                     help="one replay per value: the share of the question's terms the unit beside the chosen one "
                          "must add to be quoted with it (0: never)")
    rep.add_argument("--embedder", choices=("use-multilingual", "e5-small", "minilm"),
                     help="the selector's embedder (default: the recorded library's)")
    rep.add_argument("--dev50", action="store_true", help="only the 50 ids of the dev split's questions.jsonl")
    args = ap.parse_args()
    return record(args) if args.cmd == "record" else replay(args)


if __name__ == "__main__":
    raise SystemExit(main())

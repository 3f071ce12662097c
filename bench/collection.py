"""Whole-library answers (issue 48): counts, lists and totals over a 215-document library, exact or not, against
today's top-k path on the same library in the same run.

    python bench/collection.py [--baseline ceiling|model|off] [--limit N]

The library is tests/support/collection_library.py's (invoices as .txt/.md/.eml, meeting notes with #tags, mails,
reports; made from a seed), indexed on real SQLite with the real MiniLM; the questions and their exact answers come
from the generator's own records: 46 from templates (written with the rule), and 10 paraphrases written after the
rule and run once before any change (8 of 10 exact then; "Add up what we paid …" and possessives like "Initech's"
were fixed after, so their figure is no longer blind).

Whole-library path: Library.ask → ChatService's collection step (core/chat/collection*.py). Exact when the cited
documents are exactly the expected ones, the count (count) or every currency's total (total) is right, and every row
cites a stored chunk of its own document that holds what the row quotes.

Today's top-k path (`chat.whole_library = False`), two ways:
  - `ceiling` (default): the passages chat would send (hybrid top context_top_k = 5, whole sentences, no rerank)
    hold every expected document — what a perfect reader of the top k could answer exactly. An upper bound of the
    top-k answer, whatever the model; it takes a second, so all questions are scored.
  - `model`: Library.ask with the bundled SmolLM2-135M GGUF, scored leniently (a count is right when the expected
    number appears anywhere in the answer, a total when each sum appears, a list when the cited documents are
    exactly the expected ones). On this loaded 2-core machine it took 77-148 s a question (reranker, quote
    selector, generation), so only a sample fits in 10 minutes: bench/results/collection_model_sample.json
    (`--limit 2`: 4 questions, 0 of 4 right, the whole-library path 4 of 4).
Also: how many SQuAD questions (bench/data/qa*, none about collections) the rule takes for whole-library ones.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
import tempfile
import time
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _common import machine, save  # noqa: E402

from desktop_app.core.chat.collection_question import read_question  # noqa: E402
from desktop_app.core.library import Library  # noqa: E402
from desktop_app.core.settings import Settings  # noqa: E402
from tests.support.collection_library import (  # noqa: E402
    Question,
    make_paraphrases,
    make_questions,
    make_records,
    write_library,
)

DATA = Path(__file__).resolve().parent / "data"
SETTINGS = {"embedder": "minilm", "n_threads": 2, "temperature": 0.0, "answer_reserve_tokens": 96}


def rel(path: str, root: Path) -> str:
    return Path(path).resolve().relative_to(root.resolve()).as_posix()


def cited_ok(answer, store) -> bool:
    """Every row cites a passage that is one of its own document's stored chunks (the chunk its id names, when it
    has one) and that holds the line the row quotes."""
    passages = {p.n: p for p in answer.passages}
    for c in answer.citations:
        p = passages.get(c.n)
        quoted = " ".join(c.snippet.removesuffix("…").split())
        if p is None or p.source != c.path or quoted not in " ".join(p.content.split()):
            return False
        if p.content not in [t for _, t in store.document_chunks(c.path)]:
            return False
        if c.chunk_id is not None and store.chunk_rows([c.chunk_id])[c.chunk_id].text != p.content:
            return False
    return True


def score_collection(answer, q: Question, root: Path, store) -> dict:
    cited = tuple(sorted(rel(c.path, root) for c in answer.citations))
    rows_right = cited == q.paths
    count_right = f"**{len(q.paths)}**" in answer.text or (not q.paths and answer.text.startswith("No "))
    totals_right = all(_written(v, c, answer.text) for c, v in q.totals.items())
    ok = rows_right and (count_right if q.operation == "count" else totals_right if q.operation == "total" else True)
    cited = cited_ok(answer, store)
    return {"exact": ok and cited, "rows_right": rows_right, "cited_ok": cited}


def _written(value: Decimal, currency: str, text: str) -> bool:
    forms = {f"{value:,.2f}", f"{value:.2f}", f"{value:,.2f}".replace(",", " ").replace(".", ",").replace(" ", ".")}
    return any(f in text for f in forms)


def score_topk(answer, q: Question, root: Path) -> bool:
    text = answer.text + " " + (answer.generation or "")
    if q.operation == "count":
        import re

        return str(len(q.paths)) in re.findall(r"\d+", text)
    if q.operation == "total":
        return bool(q.totals) and all(_written(v, c, text) for c, v in q.totals.items())
    return tuple(sorted({rel(c.path, root) for c in answer.citations})) == q.paths


def squad_false_positives() -> tuple[int, int, list[str]]:
    taken, total = [], 0
    for folder in ("qa", "qa-heldout", "qa-final"):
        path = DATA / folder / "questions.jsonl"
        if not path.exists():
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            total += 1
            question = json.loads(line)["question"]
            if read_question(question) is not None:
                taken.append(question)
    return len(taken), total, taken


def run(baseline: str, limit: int | None) -> dict:
    today = dt.date.today()
    records = make_records()
    questions = [(q, "templated") for q in make_questions(records, today)[:limit]]
    questions += [(q, "paraphrased") for q in make_paraphrases(records, today)[:limit]]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "company"
        write_library(root, records)
        started = time.perf_counter()
        lib = Library(Path(tmp) / "home", settings=Settings(**SETTINGS))
        try:
            lib.add_folder(root)
            lib.sync(wait=True)
            index_s = time.perf_counter() - started
            rows = []
            for q, wording in questions:
                t0 = time.perf_counter()
                lib.chat.whole_library = True
                answer = lib.ask(q.text)
                row = {"question": q.text, "wording": wording, "operation": q.operation, "expected": len(q.paths),
                       "seconds": round(time.perf_counter() - t0, 3), **score_collection(answer, q, root, lib.store)}
                if baseline == "model":
                    lib.chat.whole_library = False
                    t0 = time.perf_counter()
                    plain = lib.ask(q.text)
                    row.update(topk_exact=score_topk(plain, q, root), topk_seconds=round(time.perf_counter() - t0, 3),
                               topk_text=plain.text[:300])
                elif baseline == "ceiling":
                    t0 = time.perf_counter()
                    sent = lib._retrieve_for_chat(q.text, lib.settings.context_top_k)
                    within = {rel(r.source, root) for r in sent}
                    row.update(topk_exact=set(q.paths) <= within, topk_seconds=round(time.perf_counter() - t0, 3),
                               topk_documents=sorted(within))
                rows.append(row)
                print(f"{'ok ' if row['exact'] else 'NO '}{'ok ' if row.get('topk_exact') else '-- '}{q.text}",
                      flush=True)
        finally:
            lib.close()
    return summarise(rows, len(records), index_s, baseline)


def tally(rows: list[dict]) -> dict:
    n = len(rows)
    exact, topk = sum(r["exact"] for r in rows), sum(bool(r.get("topk_exact")) for r in rows)
    return {"questions": n, "exact": exact, "share": round(exact / n, 3) if n else None, "topk_exact": topk,
            "topk_share": round(topk / n, 3) if n else None}


def summarise(rows: list[dict], documents: int, index_s: float, baseline: str) -> dict:
    fp, squad, taken = squad_false_positives()
    return {
        "machine": machine(), "note": "2 shared cores, loaded by other engineers' work: timings are indicative",
        "documents": documents, "index_seconds": round(index_s, 1), "settings": SETTINGS, "topk_baseline": baseline,
        "all": tally(rows), "every_row_cited": all(r["cited_ok"] for r in rows),
        "by_wording": {w: tally([r for r in rows if r["wording"] == w]) for w in ("templated", "paraphrased")},
        "by_operation": {op: tally([r for r in rows if r["operation"] == op]) for op in ("count", "list", "total")},
        "seconds_per_question": {"collection": round(sum(r["seconds"] for r in rows) / len(rows), 2),
                                 "topk": round(sum(r.get("topk_seconds", 0) for r in rows) / len(rows), 2)},
        "squad_questions": squad, "squad_taken_as_collection": fp, "squad_taken": taken[:20],
        "rows": rows,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", choices=("ceiling", "model", "off"), default="ceiling")
    parser.add_argument("--limit", type=int, help="ask only the first N questions of each set")
    args = parser.parse_args()
    r = run(args.baseline, args.limit)
    path = save("collection", r)
    print(f"\n{r['documents']} documents indexed in {r['index_seconds']} s; every row cited: {r['every_row_cited']}")
    for name, t in [("all", r["all"]), *r["by_wording"].items(), *r["by_operation"].items()]:
        base = (f"; top-k {args.baseline} {t['topk_exact']}/{t['questions']} ({t['topk_share']})"
                if args.baseline != "off" else "")
        print(f"  {name:<12} whole-library path {t['exact']}/{t['questions']} exact ({t['share']}){base}")
    print(f"seconds per question: {r['seconds_per_question']}")
    print(f"SQuAD questions taken for whole-library ones: {r['squad_taken_as_collection']} of {r['squad_questions']}")
    print(f"saved {path}")


if __name__ == "__main__":
    main()

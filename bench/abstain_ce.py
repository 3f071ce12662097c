"""The abstention gate with the cross-encoder: fitted on the dev split, reported on a split never tuned on.

    .venv/bin/python bench/abstain_ce.py --split dev [--limit N] [--max-length 256]      # collect + fit
    .venv/bin/python bench/abstain_ce.py --split heldout|final|final2..final6  # report (nothing fitted)
    .venv/bin/python bench/abstain_ce.py --split dev --limit 60 --refresh ROWS --tag T  # re-measure what can change
    .venv/bin/python bench/abstain_ce.py --split dev --rows --tag T                    # replay saved rows (cheap)

Three kinds of question per split, each through chat's own steps (hybrid search for the prompt's passages,
the cross-encoder's order and best logit over them, the library's quote selector with its gate, then
`abstain.reranked_refusal`; no language model is needed: the gate decides before one is called):

  answerable     SQuAD 2.0 answerable questions, asked of a library holding all 16 articles of the split
  adversarial    SQuAD 2.0 unanswerable questions (written against the very paragraph), the same library
  absent         the answerable questions asked as if their article were not indexed: the library's best
                 ABSENT_DEPTH passages with every passage of the question's own article dropped, the first
                 context_top_k of the rest (an emulation: the index's keyword statistics still count that article;
                 a library built without it would differ only there)

On the dev split (bench/data/qa: questions_all.jsonl, the first --limit of each kind) it fits the reranker's floor
(the highest logit that refuses at most FLOOR_FALSE of the dev answerable) and the logistic combination of the
best logit with the quote gate's log-odds (answerable vs adversarial; the threshold keeps all refusals of the dev
answerable at or under MAX_FALSE), and prints them for abstain.py / cross_encoder.py. On heldout / final it only
reports, with the values shipped in the code: refusal rates with 95% Wilson intervals, and the retrieval ceiling
(a passage sent holds a gold answer). Every report also gives the refusals with the gate's second look
(gate/runner_up.py) off and in each mode, and how often the quote shown for an answered answerable question holds a
gold answer. Rows are kept in ~/.cache/trove-bench/abstain_ce_<split>_<max length>[_<tag>].json (--rows reuses them;
rows saved with their passages get their runner-ups replayed with the selector alone). Writes
bench/results/abstain_ce_<split>_<max length>[_<tag>].json.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np
from _common import RESULTS, percentile, save
from _qa_stats import proportion
from abstain import auc, fit, prob
from qa import SPLITS as QA_SPLITS
from qa import contains_any, load_questions

from desktop_app.core.chat.answer.context import Passage
from desktop_app.core.chat.answer.gate import abstain, runner_up
from desktop_app.core.chat.answer.quote.default import embedder_selector, settings_embedder
from desktop_app.core.chat.answer.quote.selector import Quote, candidate_passages, candidates
from desktop_app.core.chat.answer.rerank_step import neighbourhood, rerank_results
from desktop_app.core.library import Library
from desktop_app.core.search.cross_encoder import FLOOR, MAX_LENGTH, QUOTE_FLOOR, CrossEncoderReranker
from desktop_app.core.search.cross_encoder_files import locate
from desktop_app.core.settings import Settings
from desktop_app.core.types import RetrievalResult

CACHE = Path.home() / ".cache" / "trove-bench"
FLOOR_FALSE = 0.01  # dev answerable refused by the floor alone
MAX_FALSE = 0.05  # dev answerable refused by floor, rules and combination together (the target)
KINDS = ("answerable", "adversarial", "absent")
ABSENT_DEPTH = 40  # search results read for an absent-article question before its own article's are dropped
# final2-4: questions about articles no other split holds (bench/data/qa-final2|3|4/README.md), for #42's reports
# final5, final6: more questions about final4's cut, asked of final4's library (bench/data/qa-final5|6/README.md)
SPLITS = {**QA_SPLITS, **{s: QA_SPLITS["final"].parent / f"qa-{s}" for s in ("final2", "final3", "final4", "final5",
                                                                              "final6")}}
ARTICLES = {s: SPLITS["final4"] / "articles" for s in ("final5", "final6")}  # a library not in the split's articles/
SENTENCES = 24  # candidate units (sentences) of the prompt's passages the cross-encoder also reads, per question


def library(home: Path, files: list[Path]) -> Library:
    folder = home / "articles"
    folder.mkdir(parents=True, exist_ok=True)
    for f in files:
        shutil.copy(f, folder / f.name)
    lib = Library(home / "lib", settings=Settings(embedder="minilm"))
    lib.add_folder(folder)
    lib.sync(wait=True)
    return lib


def row(lib: Library, selector, reranker, q, kind: str, units_read: bool = False) -> dict:
    """One question through chat's steps up to the gate (`units_read`: the cross-encoder also reads the first
    SENTENCES candidate units, as much again as the passages' rerank: an analysis, not what chat does)."""
    top_k, min_score = lib.settings.context_top_k, lib.settings.context_min_score
    if kind == "absent":  # the article left out: search deeper, drop its passages, keep the prompt's share
        own = f"{q.article}.txt"
        results = [r for r in lib._retrieve_for_chat(q.question, ABSENT_DEPTH) if Path(r.source).name != own][:top_k]
    else:
        results = lib._retrieve_for_chat(q.question, top_k)
    t0 = time.perf_counter()
    found = rerank_results(reranker, q.question, results, top_k)
    rerank_ms = (time.perf_counter() - t0) * 1000
    passages = candidate_passages(found.results, min_score)
    quote = selector.select(q.question, passages) if passages else None
    second = runner_up.runner_up(selector, q.question, passages, quote) if runner_up.fails(quote, "gate") else None
    units = [c.text for c in candidates(passages)][:SENTENCES]
    t0 = time.perf_counter()
    unit_scores = reranker.score(q.question, units) if units and units_read else []
    units_ms = (time.perf_counter() - t0) * 1000
    return {"id": q.id, "article": q.article, "kind": kind, "question": q.question,
            "relevant": any(r.score >= min_score and r.content.strip() for r in found.results),
            "best": found.best, "rerank_ms": rerank_ms, "quote": quote.to_dict() if quote else None,
            "confidence": quote.confidence if quote else None,
            "ceiling": bool(q.answers) and any(contains_any(r.content, q.answers) for r in found.results),
            "quote_best": reranker.score(q.question, [quote.text])[0] if quote else None,
            # for the analysis of each refusal: every passage's logit (reranked order) and search score, the
            # quote gate's signals, and the cross-encoder's logit of every candidate unit (sentence) of them
            "scores": [float(r.metadata.get("rerank_score", float("nan"))) for r in found.results],
            "search_scores": [float(r.score) for r in found.results],
            "signals": abstain.signals(q.question, quote, passages).to_dict() if quote else None,
            "quote_gold": bool(q.answers) and quote is not None and contains_any(quote.text, q.answers),
            # the quote's runner-up when the first fails the gate (gate/runner_up.py): `refused` decides per MODE
            "runner_up": second.to_dict() if second else None,
            "runner_up_gold": bool(q.answers) and second is not None and contains_any(second.text, q.answers),
            "passages": [p.to_dict() for p in passages],
            "units": units, "unit_scores": unit_scores, "units_ms": units_ms,
            "unit_gold": [bool(q.answers) and contains_any(u, q.answers) for u in units]}


def add_unit_scores(rows: list[dict], split: str, max_length: int, work: Path, saved: Path) -> None:
    """Rows saved before the cross-encoder read each candidate unit (no "unit_scores"), and which the gate as
    shipped answers (only those can a floor on the units change): their passages found again (search, the
    cross-encoder's order) on the split's library at `work`, the units of those read now. Saved as it goes."""
    todo = [r for r in rows if "unit_scores" not in r and not refused(r, FLOOR)]
    if not todo:
        return
    data = SPLITS[split]
    reranker = CrossEncoderReranker(locate(), max_length=max_length)
    lib = library(work / "all", sorted(ARTICLES.get(split, data / "articles").glob("*.txt")))
    try:
        top_k, min_score = lib.settings.context_top_k, lib.settings.context_min_score
        for i, r in enumerate(todo, 1):
            if r["kind"] == "absent":
                own = f"{r['article']}.txt"
                found = [x for x in lib._retrieve_for_chat(r["question"], ABSENT_DEPTH)
                         if Path(x.source).name != own][:top_k]
            else:
                found = lib._retrieve_for_chat(r["question"], top_k)
            ranked = rerank_results(reranker, r["question"], found, top_k)
            units = [c.text for c in candidates(candidate_passages(ranked.results, min_score))][:SENTENCES]
            r["units"], r["unit_scores"] = units, reranker.score(r["question"], units) if units else []
            r["units_added_later"] = True
            if i % 5 == 0 or i == len(todo):
                print(f"  units {i}/{len(todo)}", flush=True)
                save("abstain_ce_rows", {"rows": rows}, str(saved))
    finally:
        lib.close()


def window_of(r: dict, q: dict | None) -> str:
    """The neighbourhood of quote `q` in its passage sent, as chat reads it (rerank_step.neighbourhood)."""
    if not q:
        return ""
    quote = Quote.from_dict(q)
    results = [RetrievalResult(p["content"], 0.0, p["source"]) for p in r["passages"]]
    return neighbourhood(results, quote)


def add_window_scores(rows: list[dict], max_length: int) -> None:
    """Rows saved before the gate read the quote's neighbourhood (no "window_best"): the cross-encoder reads the
    first quote's and its runner-up's now (chat reads the one it shows)."""
    missing = [r for r in rows if "window_best" not in r and "passages" in r]
    if missing:
        reranker = CrossEncoderReranker(locate(), max_length=max_length)
        for r in missing:
            for key, q in (("window_best", r["quote"]), ("runner_up_window_best", r.get("runner_up"))):
                window = window_of(r, q)
                r[key] = reranker.score(r["question"], [window])[0] if window else None


def add_quote_scores(rows: list[dict], max_length: int) -> None:
    """Rows saved before the gate read the quote itself (no "quote_best"): the cross-encoder reads it now."""
    missing = [r for r in rows if "quote_best" not in r]
    if missing:
        reranker = CrossEncoderReranker(locate(), max_length=max_length)
        for r in missing:
            r["quote_best"] = reranker.score(r["question"], [r["quote"]["text"]])[0] if r["quote"] else None


def collect(split: str, limit: int | None, max_length: int, work: Path, saved: Path,
            units_read: bool = False, only: set[tuple[str, str]] | None = None,
            part: tuple[int, int] = (0, 1)) -> list[dict]:
    """Rows in an order that is useful early (each answerable question present, then absent, then an adversarial one),
    saved to `saved` every 10 rows (a run stopped early keeps what it measured); `only`: just these (id, kind);
    `part` (k, n): only the k-th of n interleaved shares of the sampled questions (a run that fits its time)."""
    data = SPLITS[split]
    name = "questions_all.jsonl" if split == "dev" else "questions.jsonl"
    questions = load_questions(None, data, name)
    rng = random.Random(0)  # questions_all.jsonl is in article order: a fixed-seed sample covers every article
    answerable = [q for q in questions if not q.impossible]
    adversarial = [q for q in questions if q.impossible]
    if limit:
        answerable, adversarial = (rng.sample(qs, min(limit, len(qs))) for qs in (answerable, adversarial))
    reranker = CrossEncoderReranker(locate(), max_length=max_length)
    rows: list[dict] = []
    lib = library(work / "all", sorted(ARTICLES.get(split, data / "articles").glob("*.txt")))
    try:
        selector = embedder_selector(lambda: lib.embedder)
        plan = [(q, kind) for i in range(max(len(answerable), len(adversarial))) if i % part[1] == part[0]
                for q, kind in ((answerable[i] if i < len(answerable) else None, "answerable"),
                                (answerable[i] if i < len(answerable) else None, "absent"),
                                (adversarial[i] if i < len(adversarial) else None, "adversarial")) if q is not None
                and (only is None or (q.id, kind) in only)]
        for i, (q, kind) in enumerate(plan, 1):
            rows.append(row(lib, selector, reranker, q, kind, units_read))
            if i % 10 == 0:
                print(f"  {i}/{len(plan)}", flush=True)
                save("abstain_ce_rows", {"rows": rows}, str(saved))
    finally:
        lib.close()
    return rows


def could_change(r: dict) -> bool:
    """Whether the gate's second look or the cross-encoder reading an undetermined question can change this saved
    row's decision: the cross-encoder did not read it, or its first quote fails the gate over the floor (a row whose
    first quote passes, or that the floor refuses, is decided the same with or without a runner-up)."""
    if not r["relevant"]:
        return False
    if r["best"] is None:
        return True
    return r["best"] >= FLOOR and (r["confidence"] is None or r["confidence"] < abstain.RERANKED_THRESHOLD)


def refresh(old: list[dict], split: str, limit: int | None, max_length: int, work: Path, saved: Path) -> list[dict]:
    """The saved rows `old`, those that `could_change` measured again with the code as it is (the same questions:
    `limit` samples as it did); the others kept as saved (marked so in each fresh row: "refreshed")."""
    keys = {(r["id"], r["kind"]) for r in old if could_change(r)}
    print(f"refreshing {len(keys)} of {len(old)} rows", flush=True)
    fresh = {(r["id"], r["kind"]): {**r, "refreshed": True}
             for r in collect(split, limit, max_length, work, saved.with_suffix(".partial.json"), only=keys)}
    return [fresh.get((r["id"], r["kind"]), r) for r in old]


def add_runner_ups(rows: list[dict], split: str, saved: Path, again: bool = False) -> None:
    """Rows saved before the gate's second look (no "runner_up"; every row with `again`; they must hold their
    "passages"): the selector replayed on the passages sent (the MiniLM embedder, as the bench library's), its
    runner-up judged when the first fails. Prints how many replays chose another first quote than the one saved
    (the selector changed since); saves the rows."""
    todo = [r for r in rows if (again or "runner_up" not in r) and "passages" in r]
    if not todo:
        return
    gold = gold_answers(split)
    embedder = settings_embedder(Settings(embedder="minilm"))
    selector = embedder_selector(lambda: embedder)
    moved = 0
    for r in todo:
        passages = [Passage.from_dict(p) for p in r["passages"]]
        first = selector.select(r["question"], passages) if passages else None
        moved += (first.text if first else None) != (r["quote"] or {}).get("text")
        second = runner_up.runner_up(selector, r["question"], passages, first) if runner_up.fails(first, "gate") \
            else None
        answers = gold.get(r["id"], ()) if r["kind"] != "adversarial" else ()
        r["runner_up"] = second.to_dict() if second else None
        r["runner_up_gold"] = bool(answers) and second is not None and contains_any(second.text, answers)
    print(f"runner-ups replayed for {len(todo)} rows; the first quote differs from the saved one in {moved}")
    save("abstain_ce_rows", {"rows": rows}, str(saved))


def gold_answers(split: str) -> dict[str, tuple[str, ...]]:
    """The gold answers of every question of the split, by id (empty for an unanswerable one)."""
    name = "questions_all.jsonl" if split == "dev" else "questions.jsonl"
    return {q.id: q.answers for q in load_questions(None, SPLITS[split], name)}


def shown(r: dict, mode: str = runner_up.MODE) -> dict | None:
    """The quote chat shows and gates: the first, or its runner-up when the first fails (per `mode`) and it passes."""
    first, second = r["quote"], r.get("runner_up")
    if not (first and second):
        return first
    runner = Quote.from_dict(second)
    return second if runner_up.preferred(Quote.from_dict(first), runner, mode) is runner else first


def refused(r: dict, floor: float, threshold: float | None = None, weights: dict | None = None,
            quote_floor: float | None = CrossEncoderReranker.quote_floor, mode: str = runner_up.MODE,
            window: bool = CrossEncoderReranker.reads_window,
            window_floor: float | None = CrossEncoderReranker.window_floor) -> bool:
    """What ChatService decides for this row: no relevant passage, or the reranked gate says no (the quote gate
    alone when the cross-encoder did not read the passages: rerank_step.abstain_reason), on the quote `shown`."""
    if not r["relevant"]:
        return True
    q = shown(r, mode)
    if r["best"] is None:
        return q is None or q["confidence"] is None or q["confidence"] < abstain.THRESHOLD
    quote = Quote.from_dict(q) if q else None
    quote_best = r.get("quote_best") if q is r["quote"] else None  # the cross-encoder read the first quote only
    window_best = (r.get("window_best") if q is r["quote"] else r.get("runner_up_window_best")) if window else None
    return bool(abstain.reranked_refusal(r["best"], floor, quote, threshold, weights, quote_best, quote_floor,
                                         window_best, window_floor if window else None))


def fit_gate(rows: list[dict]) -> dict:
    """The floor and the combination, from dev rows only."""
    ans = [r for r in rows if r["kind"] == "answerable" and r["best"] is not None]
    best = sorted(r["best"] for r in ans)
    floor = best[int(FLOOR_FALSE * len(best))]  # at most FLOOR_FALSE of the answerable under it
    absent = sorted(r["best"] for r in rows if r["kind"] == "absent" and r["best"] is not None)
    if absent and absent[-1] < best[0]:  # separable: the floor halfway between the two, on the dev rows only
        floor = (absent[-1] + best[0]) / 2
    pair = [r for r in rows if r["kind"] in ("answerable", "adversarial") and r["best"] is not None
            and r["best"] >= floor and r["confidence"] not in (None, 0.0)]
    if len({r["kind"] for r in pair}) < 2:  # no adversarial rows measured: the quote gate as shipped, unweighted
        return {"floor": float(floor), "weights": {"bias": 0.0, "rerank": 0.0, "gate": 1.0},
                "threshold": abstain.THRESHOLD, "answerable_best_min": best[0],
                "absent_best_max": absent[-1] if absent else None}
    x = np.array([[r["best"], abstain.log_odds(r["confidence"])] for r in pair])
    y = np.array([1.0 if r["kind"] == "answerable" else 0.0 for r in pair])
    mu, sd = x.mean(0), x.std(0) + 1e-9
    w = fit((x - mu) / sd, y)
    raw = w[1:] / sd
    weights = {"bias": float(w[0] - (raw * mu).sum()), "rerank": float(raw[0]), "gate": float(raw[1])}
    p = prob(w, (x - mu) / sd)
    threshold = 0.0
    for t in sorted(set(np.round(p, 4))):
        if np.mean([refused(r, floor, float(t), weights) for r in ans]) <= MAX_FALSE:
            threshold = float(t)
    return {"floor": float(floor), "weights": weights, "threshold": threshold,
            "auc_best_answerable_vs_adversarial": auc([r["best"] for r in ans],
                                                      [r["best"] for r in rows if r["kind"] == "adversarial"
                                                       and r["best"] is not None]),
            "auc_best_answerable_vs_absent": auc([r["best"] for r in ans],
                                                 [r["best"] for r in rows if r["kind"] == "absent"
                                                  and r["best"] is not None]),
            "auc_combined_answerable_vs_adversarial": auc(list(p[y == 1]), list(p[y == 0]))}


def report(rows: list[dict], floor: float, threshold: float | None = None, weights: dict | None = None,
           answers: dict[str, tuple[str, ...]] | None = None) -> dict:
    """Refusals per kind (as shipped, and the variants measured), the retrieval ceiling, and how often the quote
    shown for an answered answerable question holds a gold answer (`answers`, by question id)."""
    answers = answers or {}
    out: dict = {}
    for kind in KINDS:
        some = [r for r in rows if r["kind"] == kind]
        out[kind] = {"refused": proportion([refused(r, floor, threshold, weights) for r in some]),
                     "refused_with_quote_floor": proportion([refused(r, floor, threshold, weights, QUOTE_FLOOR)
                                                             for r in some]),
                     "refused_by_old_gate": proportion([old_refused(r) for r in some]),
                     **{f"refused_runner_up_{m}": proportion([refused(r, floor, threshold, weights, mode=m)
                                                              for r in some]) for m in runner_up.MODES},
                     "shown_runner_up": sum(shown(r) is not r["quote"] and not refused(r, floor, threshold, weights)
                                            for r in some)}
        if kind == "answerable":
            out[kind]["retrieval_ceiling"] = proportion([r["ceiling"] for r in some])
            answered = [r for r in some if not refused(r, floor, threshold, weights)]
            out[kind]["shown_quote_gold"] = proportion([contains_any(q["text"], answers.get(r["id"], ()))
                                                        for r in answered if (q := shown(r)) is not None])
    ms = [r["rerank_ms"] for r in rows]
    out["rerank_ms"] = {"p50": percentile(ms, 50), "p95": percentile(ms, 95), "n": len(ms)}
    return out


def old_refused(r: dict) -> bool:
    """Today's gate without the cross-encoder: the quote gate's confidence under abstain.THRESHOLD."""
    return not r["relevant"] or r["confidence"] is None or r["confidence"] < abstain.THRESHOLD


def show(label: str, rep: dict) -> None:
    for kind in KINDS:
        p, o, w = rep[kind]["refused"], rep[kind]["refused_by_old_gate"], rep[kind]["refused_with_quote_floor"]
        modes = ", ".join(f"{m} {rep[kind]['refused_runner_up_' + m]['value']:.3f}" for m in runner_up.MODES)
        print(f"{label:<10} {kind:<12} refused {p['value']:.3f} [{p['lo']:.3f}, {p['hi']:.3f}] n={p['n']}"
              f"   (with the quote floor {w['value']:.3f}, old gate {o['value']:.3f}; runner-up {modes};"
              f" runner-up shown {rep[kind]['shown_runner_up']})")
        if "shown_quote_gold" in rep[kind]:
            g = rep[kind]["shown_quote_gold"]
            print(f"{label:<10} {kind:<12} shown quote holds gold {g['value']:.3f} [{g['lo']:.3f}, {g['hi']:.3f}] "
                  f"n={g['n']}; retrieval ceiling {rep[kind]['retrieval_ceiling']['value']:.3f}")
    print(f"{label:<10} rerank of the prompt's passages: p50 {rep['rerank_ms']['p50']:.0f} ms, "
          f"p95 {rep['rerank_ms']['p95']:.0f} ms")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--split", choices=("dev", "heldout", *sorted(s for s in SPLITS if s.startswith("final"))),
                    default="dev")
    ap.add_argument("--limit", type=int, help="at most this many answerable and adversarial questions")
    ap.add_argument("--max-length", type=int, default=MAX_LENGTH)
    ap.add_argument("--rows", action="store_true", help="reuse the rows saved by an earlier run of this split")
    ap.add_argument("--work", type=Path, help="keep (and reuse) the indexed library here")
    ap.add_argument("--add-units", action="store_true",
                    help="with --rows and --work: read the candidate units of rows saved without them")
    ap.add_argument("--units", action="store_true",
                    help="the cross-encoder also reads each row's first SENTENCES candidate units (an analysis)")
    ap.add_argument("--refresh", type=Path, help="saved rows of this split (with --limit as they were made): "
                    "measure again only those whose decision a runner-up or the cross-encoder could change")
    ap.add_argument("--replay-runner-ups", action="store_true",
                    help="with --rows: the runner-ups of every row saved with its passages chosen again")
    ap.add_argument("--part", help="K/N: measure only the K-th (0-based) of N interleaved shares of the questions, "
                    "saved apart; --merge N then joins the N parts' rows")
    ap.add_argument("--merge", type=int, help="join the rows of N parts (--part K/N runs with the same --tag)")
    ap.add_argument("--tag", default="", help="a suffix for the saved rows and results (keeps an earlier run's)")
    args = ap.parse_args()
    name = f"{args.split}_{args.max_length}{'_' + args.tag if args.tag else ''}"
    k, n = (int(x) for x in args.part.split("/")) if args.part else (0, 1)
    part = (k, n)
    cached = CACHE / f"abstain_ce_{name}.json"
    if args.part:
        name += f"_part{part[0]}of{part[1]}"
        cached = CACHE / f"abstain_ce_{name}.json"
    if args.merge:
        rows = [r for k in range(args.merge) for r in json.loads(
            (CACHE / f"abstain_ce_{name}_part{k}of{args.merge}.json").read_text(encoding="utf-8"))["rows"]]
        save("abstain_ce_rows", {"rows": rows}, str(cached))
    elif args.rows:
        rows = json.loads(cached.read_text(encoding="utf-8"))["rows"]
        add_quote_scores(rows, args.max_length)
        add_runner_ups(rows, args.split, cached, args.replay_runner_ups)
        if args.add_units and args.work:
            add_unit_scores(rows, args.split, args.max_length, args.work, cached)
    else:
        work = args.work or Path(tempfile.mkdtemp(prefix="trove-abstain-ce-"))
        try:
            rows = (refresh(json.loads(args.refresh.read_text(encoding="utf-8"))["rows"], args.split, args.limit,
                            args.max_length, work, cached) if args.refresh else
                    collect(args.split, args.limit, args.max_length, work, cached, args.units, part=part))
        finally:
            if not args.work:
                shutil.rmtree(work, ignore_errors=True)
        save("abstain_ce_rows", {"rows": rows}, str(cached))
    if any("window_best" not in r for r in rows):
        add_window_scores(rows, args.max_length)
        save("abstain_ce_rows", {"rows": rows}, str(cached))
    out: dict = {"split": args.split, "max_length": args.max_length, "questions": len(rows)}
    if args.split == "dev":
        out["fitted"] = fit_gate(rows)
        print("fitted on dev:", json.dumps(out["fitted"], indent=1))
        f = out["fitted"]
        out["dev_in_sample"] = report(rows, f["floor"], f["threshold"], f["weights"], gold_answers(args.split))
        show("dev", out["dev_in_sample"])
    out["shipped"] = {"floor": FLOOR, "quote_floor": CrossEncoderReranker.quote_floor,
                      "reads_window": CrossEncoderReranker.reads_window, "window_before": abstain.WINDOW_BEFORE,
                      "window_floor": CrossEncoderReranker.window_floor,
                      "weights": abstain.RERANKED_WEIGHTS, "threshold": abstain.RERANKED_THRESHOLD}
    out["report"] = report(rows, FLOOR, answers=gold_answers(args.split))
    show(args.split, out["report"])
    save("abstain_ce", out, str(RESULTS / f"abstain_ce_{name}.json"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

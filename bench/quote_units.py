"""How often a shown quote starts or ends mid-sentence, per language, on a QA split — without generating.

    .venv/bin/python bench/quote_units.py [--split dev|heldout|final|xquad|xquad-final|native-final|...] [--limit N]
        [--embedder minilm|auto] [--cross Q:D ...] [--also-without IDS] [--label TEXT] [--out JSON]

The quote is chosen before generation (ChatService hands it to `on_quote`), so every question is asked through
the library's own ChatService as bench/qa.py --skip-generation asks it: the bundled model is loaded for its
tokenizer (the prompt plan decides which stretch of a passage is sent) and never generates. Each quote shown (not
refused) is found in the file it cites and judged by rules that do not use the quote splitter
(desktop_app/core/chat/answer/quote/sentence_split.py), so the splitter cannot grade itself:

  start whole  the quote starts the file, or what precedes it ends with a sentence mark (. ! ? followed by a
               space; 。！？；؟؛ ۔ । anywhere), or with a line break, or (Thai, Lao, Khmer, Myanmar) with a space
               between two letters of those scripts
  end whole    the same at its end: it ends with a sentence mark (. ! ? with a space or the end after it), at a line
               break, at the end of the file, or (those scripts) before a space followed by a letter of theirs

Prints per language: quotes shown, the share starting mid-sentence, ending mid-sentence, either (95% Wilson
intervals), quotes not found verbatim in their file, the share of answerable questions whose shown quote holds
a gold answer (qa.py's matching; refusals count as misses), and citation precision: of the passages the shown
answers cite, the share that hold a gold answer (qa.py's measure, its question-bootstrap interval). Writes
bench/results/quote_units_<split>.json (or --out).

`--cross Q:D` (XQuAD splits: parallel, the same question ids in every language) also asks the questions of language Q
over a library of language D's articles alone, judged by D's gold answers (e.g. th:en, a Thai question over the
English articles); reported as the language "Q:D" beside the others, in the same run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import unicodedata
from pathlib import Path

from _common import RESULTS, save
from _qa_stats import fmt, paired_difference, proportion, ratio_of_sums
from qa import (
    SPLITS,
    Kept,
    build_library,
    cached_retriever,
    chat_service,
    contains_any,
    git_head,
    load_questions,
    resolve_model,
)

from desktop_app.core.chat.answer.quote import default as quote_default
from desktop_app.core.chat.answer.quote import sentence_split
from desktop_app.core.chat.runtime.llama import LlamaCppRuntime
from desktop_app.core.library import Library
from desktop_app.core.settings import Settings

_MARK_ANYWHERE = set("。！？；؟؛۔।")  # end a sentence with or without a space after them
_MARK_SPACED = set(".!?")  # end one only before a space or the end ("4.6", "e.g.x" do not)
_CLOSING = set("\"'”’)]」』）»")
_INVISIBLE = set("\u200e\u200f\u061c\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\ufeff\u200b")


def _sea(ch: str) -> bool:
    """A letter of a script that ends sentences with a space (Thai, Lao, Myanmar, Khmer)."""
    return bool(ch) and ("\u0e00" <= ch <= "\u0eff" or "\u1000" <= ch <= "\u109f" or "\u1780" <= ch <= "\u17ff")


def _ends_sentence(text: str, at: int) -> bool:
    """Whether text[:at] ends with a sentence mark (closing quotes and brackets after it allowed)."""
    i = at
    while i > 0 and (text[i - 1] in _CLOSING or text[i - 1] in _INVISIBLE):
        i -= 1
    if i == 0:
        return False
    ch, after = text[i - 1], text[at] if at < len(text) else ""
    return ch in _MARK_ANYWHERE or (ch in _MARK_SPACED and (not after or after.isspace()))


def whole_at_start(text: str, a: int) -> bool:
    """Whether a quote starting at `a` of the file's `text` starts a sentence or a line."""
    i = a
    while i > 0 and (text[i - 1].isspace() or text[i - 1] in _INVISIBLE):
        if text[i - 1] == "\n":
            return True
        i -= 1
    if i == 0:
        return True
    return _ends_sentence(text, i) or (i < a and _sea(text[i - 1]) and _sea(text[a] if a < len(text) else ""))


def whole_at_end(text: str, b: int) -> bool:
    """Whether a quote ending at `b` of the file's `text` ends a sentence or a line."""
    j = b
    while j < len(text) and (text[j].isspace() or text[j] in _INVISIBLE):
        if text[j] == "\n":
            return True
        j += 1
    if j == len(text):
        return True
    return _ends_sentence(text, b) or (j > b and _sea(text[b - 1]) and _sea(text[j]))


def judge(quote_text: str, source: str) -> dict:
    """Where the quote is in its file and whether it starts and ends whole ("found": False when it is not in the
    file verbatim). A quote carrying the ellipsis a window or the budget put where it cut the passage is cut there."""
    try:
        raw = Path(source).read_text(encoding="utf-8-sig")
    except OSError:
        return {"found": False}
    head_cut, tail_cut = quote_text.startswith("…"), quote_text.endswith("…")
    core = quote_text.strip("… ") if head_cut or tail_cut else quote_text
    text = raw if core in raw else unicodedata.normalize("NFC", raw)
    at = text.find(core if core in raw else unicodedata.normalize("NFC", core))
    if at < 0:
        return {"found": False}
    end = at + len(core if core in raw else unicodedata.normalize("NFC", core))
    return {"found": True, "start_whole": not head_cut and whole_at_start(text, at),
            "end_whole": not tail_cut and whole_at_end(text, end), "before": text[max(0, at - 30):at],
            "after": text[end:end + 30]}


def summarise(rows: list[dict], asked: int) -> dict:
    found = [r for r in rows if r.get("found")]
    return {"asked": asked, "shown": len(rows), "not_found": len(rows) - len(found),
            "quote_gold": proportion([r["gold"] for r in rows] + [False] * (asked - len(rows))),
            "start_mid": proportion([not r["start_whole"] for r in found]),
            "end_mid": proportion([not r["end_whole"] for r in found]),
            "either_mid": proportion([not (r["start_whole"] and r["end_whole"]) for r in found]),
            "citation_precision": ratio_of_sums([(r["cited_right"], r["cited_total"]) for r in rows
                                                 if "cited_total" in r])}


def parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--split", choices=sorted(SPLITS), default="xquad")
    ap.add_argument("--limit", type=int)
    ap.add_argument("--embedder", default="auto")
    ap.add_argument("--kind-bonus", type=float, help="the quote selector's answer-kind bonus (default: as shipped)")
    ap.add_argument("--min-sea-unit", type=int,
                    help="characters a Thai (Lao, Khmer, Myanmar) unit holds at least (default: as shipped)")
    ap.add_argument("--langs", nargs="*", help="ask only the questions in these languages (all are indexed)")
    ap.add_argument("--cross", nargs="*", default=[], metavar="Q:D",
                    help="also ask Q's questions over a library of D's articles alone (D's gold answers)")
    ap.add_argument("--also-without", metavar="IDS",
                    help="also report each language over the questions whose id the file IDS does not list (e.g. "
                         "qa-xquad-final2/english_asked.txt: the ids asked in English before), as LANG-fresh")
    ap.add_argument("--label", default="")
    ap.add_argument("--out")
    ap.add_argument("--judge", metavar="JSON", help="only judge the quotes of an earlier results file again")
    return ap.parse_args()


def report(rows: list[dict], asked: dict[str, int], head: str) -> dict:
    """Per language and over all: the summary, printed."""
    summary = {lang: summarise([r for r in rows if r["lang"] == lang], asked[lang]) for lang in sorted(asked)}
    summary["all"] = summarise(rows, sum(asked.values()))
    print(head)
    for lang, s in summary.items():
        print(f"  {lang:<4} shown {s['shown']:>3}  starts mid {fmt(s['start_mid'])}  ends mid {fmt(s['end_mid'])}  "
              f"either {fmt(s['either_mid'])}  not found {s['not_found']}  quote holds gold {fmt(s['quote_gold'])}  "
              f"cite-prec {fmt(s['citation_precision'])}")
    return summary


def minus_english(rows: list[dict], questions: list, suffix: str = "") -> dict:
    """On a parallel split (the same question ids in every language), each language's share of quotes holding gold
    minus English's over the ids asked in both, with a paired bootstrap interval, as "<lang>-minus-en"."""
    gold = {(r["lang"], r["id"]) for r in rows if r["gold"]}
    ids: dict[str, set[str]] = {}
    for q in questions:
        ids.setdefault(q.lang, set()).add(q.id)
    out = {}
    for lang in sorted(set(ids) - {"en"}):
        both = sorted(ids[lang] & ids.get("en", set()))
        if both:
            diff = paired_difference([(lang, i) in gold for i in both], [("en", i) in gold for i in both])
            out[f"{lang}{suffix}-minus-en{suffix}"] = {"quote_gold_minus_en": diff}
            print(f"  {lang}{suffix} minus en{suffix} (quote holds gold, {len(both)} paired ids): {fmt(diff)}")
    return out


def without(rows: list[dict], questions: list, listed: Path) -> dict:
    """Each language reported again over the questions whose id `listed` (one id per line) does not hold, as
    "<lang>-fresh", and each one's difference from English over them."""
    skip = set(listed.read_text(encoding="utf-8").split())
    kept = [{**r, "lang": f"{r['lang']}-fresh"} for r in rows if r["id"] not in skip]
    asked: dict[str, int] = {}
    for q in questions:
        if q.id not in skip:
            asked[f"{q.lang}-fresh"] = asked.get(f"{q.lang}-fresh", 0) + 1
    fresh = report(kept, asked, f"the questions {listed} does not list")
    out = {lang: s for lang, s in fresh.items() if lang != "all"}
    out.update(minus_english([r for r in rows if r["id"] not in skip], [q for q in questions if q.id not in skip],
                             "-fresh"))
    return out


def rejudge(path: str, out: str | None) -> int:
    """Judge the quotes of a results file again (the judge changed, the quotes did not); saved to `out` if given."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    rows = [{**r, **judge(r["quote"], r["source"])} for r in data["rows"]]
    summary = report(rows, {lang: s["asked"] for lang, s in data["summary"].items() if lang != "all"},
                     f"{path} ({data.get('label', '')}), judged again")
    if out:
        data.pop("machine", None)
        save("quote_units", {**data, "summary": summary, "rows": rows, "judged_again": True}, out)
    return 0


def ask_all(lib, model, runtime, questions, golds: dict[str, tuple[str, ...]], tag: str = "") -> list[dict]:
    """Every question asked through the library's ChatService (generation skipped), one row per quote shown;
    `golds` replaces a question's answers by id (a cross-lingual pair: the articles' language), `tag` its lang."""
    lib._chat = chat_service(lib, cached_retriever(lib), {str(model): Kept(runtime, skip_generation=True)}, None)
    rows: list[dict] = []
    for i, q in enumerate(questions, 1):
        answers = golds.get(q.id, q.answers)
        answer = lib.ask(q.question, max_tokens=96, model_path=str(model))
        quote = answer.quote
        if quote is not None and not answer.refused:
            cited = {c.n for c in answer.citations}
            holds = {p.n for p in answer.passages if contains_any(p.content, answers)}
            rows.append({"id": q.id, "lang": tag or q.lang, "quote": quote.text, "source": quote.source,
                         "gold": contains_any(quote.text, answers), "cited_right": len(cited & holds),
                         "cited_total": len(cited), **judge(quote.text, quote.source)})
        print(f"  {tag} {i}/{len(questions)}", file=sys.stderr, end="\r", flush=True)
    return rows


def cross_rows(args, data: Path, settings: Settings, questions: list, model, runtime) -> tuple[list[dict], dict]:
    """The --cross pairs: Q's questions over a library of D's articles alone; rows and questions asked per pair."""
    rows: list[dict] = []
    asked: dict[str, int] = {}
    for pair in args.cross:
        q_lang, d_lang = pair.split(":")
        golds = {q.id: q.answers for q in questions if q.lang == d_lang}
        asking = [q for q in questions if q.lang == q_lang and q.id in golds]
        home = Path(tempfile.mkdtemp(prefix="trove-quote-units-x-"))
        lib = Library(home, settings=settings)
        try:
            lib.add_folder(data / "articles" / d_lang)
            lib.sync(wait=True)
            rows += ask_all(lib, model, runtime, asking, golds, pair)
        finally:
            lib.close()
            shutil.rmtree(home, ignore_errors=True)
        asked[pair] = len(asking)
    return rows, asked


def main() -> int:
    args = parse_args()
    if args.judge:
        return rejudge(args.judge, args.out)
    data = SPLITS[args.split]
    settings = Settings(embedder=args.embedder)
    every = [q for q in load_questions(args.limit, data) if not q.impossible]
    questions = [q for q in every if not args.langs or q.lang in args.langs]
    if args.min_sea_unit is not None:
        sentence_split.MIN_SEA_UNIT = args.min_sea_unit
    home = Path(tempfile.mkdtemp(prefix="trove-quote-units-"))
    lib, index_s = build_library(home, settings, data)
    model = resolve_model("bundled")
    runtime = LlamaCppRuntime(model, n_ctx=settings.n_ctx, n_threads=settings.n_threads)
    if args.kind_bonus is not None:
        quote_default.KIND_BONUS = args.kind_bonus  # read when each ChatService builds its selector
    try:
        try:
            rows = ask_all(lib, model, runtime, questions, {})
        finally:
            lib.close()
            shutil.rmtree(home, ignore_errors=True)
        more, cross_asked = cross_rows(args, data, settings, every, model, runtime)
    finally:
        runtime.close()
    asked = {lang: sum(q.lang == lang for q in questions) for lang in {q.lang for q in questions}}
    summary = report(rows, asked, f"split {args.split} ({len(questions)} answerable questions, indexed in "
                                  f"{index_s:.0f} s, load {os.getloadavg()[0]:.1f}) {args.label}")
    if more:
        cross = report(more, cross_asked, "cross-lingual (questions:articles)")
        summary.update({pair: s for pair, s in cross.items() if pair != "all"})
    if args.also_without:
        summary.update(without(rows, questions, Path(args.also_without)))
    summary.update(minus_english(rows, questions))
    save("quote_units", {"label": args.label, "split": args.split, "embedder": args.embedder, "commit": git_head(),
                         "command": " ".join(sys.argv), "summary": summary, "rows": rows + more},
         args.out or str(RESULTS / f"quote_units_{args.split}.json"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

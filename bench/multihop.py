"""Answers that span passages (issue 48) on HotpotQA's dev distractor questions: the shown answer's supporting-fact
recall and whether it holds the gold answer, quotes from several documents (span/compose.py) against today's single
quote, same library, same run.

    python bench/multihop.py --part dev|final1|final2 [--limit N] [--keep X]
    python bench/multihop.py --sweep bench/results/multihop_dev.json   (span.KEEP chosen on the dev rows)
    python bench/multihop.py --part final1 --keep 0 --second 0 --out F1   (then final2 to F2)
    python bench/multihop.py --merge F1 F2     (the final part at the shipped floors, replayed from the recorded picks)
    python bench/multihop.py --part dev --limit N --model QWEN.gguf   (a third side: that model's prose over the quotes)

Data: bench/data/multihop/hotpot_dev_100.jsonl.gz, the first 100 questions of HotpotQA v1 dev distractor (CC BY-SA
4.0; README beside it). Each question's 10 paragraphs (2 gold, 8 distractors) are .txt files in a folder of their own
(title line, blank line, the sentences as one paragraph); one library holds all folders, indexed on real SQLite with
the real MiniLM, and each question is asked scoped to its folder: the distractor setting. Questions 1-40 are the dev
part (tune on it), 41-100 the final part (looked at once), run in halves (final1: 41-70, final2: 71-100) and
merged. On this shared 2-core machine (load average ~20) the dev part took 18 minutes and a half 9 minutes of
indexing and about 10 of asking: over the 10-15 minute budget, so --home keeps a built library for the next run.

Both answers go through ChatService.ask with the bundled SmolLM2-135M GGUF loaded, the chat's reranker and quote
selector; generation is skipped: for a model under the small-model size the shown answer is the quote (or quotes)
whatever the model writes. "single" is today's path (`span_answers` off), "span" the shipped one. Retrieval is
memoised per query, and the reranker's scores and the quote selector's choice per input (Memo: pure functions of
their input, asked again by the span side for the same question), so both see the same passages and the second
side costs only what it adds. A question span/question.py reads as no span shape runs the
very same code in both (span_step returns before any work), so it is asked once and its row copied to both sides.
The span side's picks and their scores are recorded (a wrapper around span_step.choose) so that `--sweep` can
replay any floor over the dev rows without asking again.

Measures, per question then averaged with 95% intervals (Wilson for shares, a normal interval for means):
  - sp_recall: the share of the gold supporting sentences present in the shown answer (a gold sentence is present
    when the shown text holds it, whitespace aside, or a shown quote inside it covers half of it or more);
  - all_sp: every supporting sentence present;
  - contains_gold: the normalised gold answer (SQuAD normalisation) inside the normalised shown text; yes/no answers
    (comparison questions) are left out of it: a quote never says "yes";
  - sp_precision: the share of shown quotes that are (part of) a supporting sentence; words shown.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import string
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import RESULTS, save  # noqa: E402
from _qa_stats import proportion, wilson  # noqa: E402
from qa import Kept, cached_retriever, chat_service  # noqa: E402

from desktop_app.core.chat.answer.quote.default import default_selector  # noqa: E402
from desktop_app.core.chat.answer.rerank_step import chat_reranker  # noqa: E402
from desktop_app.core.chat.answer.span import compose as span  # noqa: E402
from desktop_app.core.chat.answer.span import prose as span_prose
from desktop_app.core.chat.answer.span import step as span_step
from desktop_app.core.chat.answer.span.question import read_span_question  # noqa: E402
from desktop_app.core.chat.models.files import resolve_model_path  # noqa: E402
from desktop_app.core.chat.runtime.base import Generation  # noqa: E402
from desktop_app.core.chat.runtime.llama import LlamaCppRuntime  # noqa: E402
from desktop_app.core.library import Library  # noqa: E402
from desktop_app.core.settings import Settings  # noqa: E402

DATA = Path(__file__).resolve().parent / "data" / "multihop" / "hotpot_dev_100.jsonl.gz"
PARTS = {"dev": (0, 40), "final1": (40, 70), "final2": (70, 100)}
KEEPS = (0.0, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.7, 1.0)
SECONDS = (0.0, 0.1, 0.2, 9.0)  # 9: never a second sentence
BULLET = re.compile(r"\s*\[\d+\]$")  # a bullet's citation marker
SETTINGS = {"embedder": "minilm", "n_threads": 2, "temperature": 0.0, "answer_reserve_tokens": 96}


def load(path: Path = DATA) -> list[dict]:
    """The questions, in the dev file's order: {_id, question, answer, type, supporting_facts, context}."""
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def slug(title: str) -> str:
    return re.sub(r"[^\w.-]+", "_", title).strip("_")[:80] or "untitled"


def write_folders(questions: list[dict], root: Path) -> dict[str, Path]:
    """One folder per question with its 10 paragraphs as .txt files; question id -> folder."""
    out = {}
    for i, q in enumerate(questions):
        folder = root / f"q{i:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        for j, (title, sentences) in enumerate(q["context"]):
            (folder / f"{j:02d}_{slug(title)}.txt").write_text(f"{title}\n\n{''.join(sentences).strip()}\n",
                                                              encoding="utf-8")
        out[q["_id"]] = folder
    return out


def flat(text: str) -> str:
    return " ".join(text.split())


def normalize_answer(text: str) -> str:
    """SQuAD's answer normalisation: lower case, no punctuation, no articles, single spaces."""
    text = "".join(ch for ch in text.lower() if ch not in set(string.punctuation))
    return " ".join(re.sub(r"\b(a|an|the)\b", " ", text).split())


def gold_sentences(q: dict) -> list[str]:
    paragraphs = {title: sentences for title, sentences in q["context"]}
    out = []
    for title, i in q["supporting_facts"]:
        sentences = paragraphs.get(title, [])
        if i < len(sentences) and flat(sentences[i]):
            out.append(flat(sentences[i]))
    return out


def present(sentence: str, shown: str, quotes: list[str]) -> bool:
    """Whether a gold sentence is in the shown answer: whole, or a quote inside it covering at least half of it."""
    if sentence in shown:
        return True
    return any(q and q in sentence and len(q) >= 0.5 * len(sentence) for q in quotes)


def is_span(answer) -> bool:
    """An answer of quotes from several passages (with or without prose above them)."""
    return answer.hidden_because == span_step.SEVERAL or any(
        line.startswith("- ") and BULLET.search(line) for line in answer.text.splitlines())


def shown_quotes(answer) -> list[str]:
    """The verbatim units the answer shows: its quote (single) or each bullet (span)."""
    if is_span(answer):
        return [flat(BULLET.sub("", line[2:])) for line in answer.text.splitlines() if line.startswith("- ")]
    return [flat(answer.quote.text)] if answer.quote is not None and not answer.refused else []


def prose_of(answer) -> str:
    """The prose a larger model wrote above a span answer's quotes ("" when none is shown)."""
    if not (is_span(answer) and answer.generation_shown and answer.generation):
        return ""
    return answer.text.split("\n\n**", 1)[0]


def score(q: dict, answer, seconds: float) -> dict:
    shown, prose = flat(answer.text), prose_of(answer)
    quotes = shown_quotes(answer)
    gold = gold_sentences(q)
    found = [present(s, shown, quotes) for s in gold]
    yes_no = normalize_answer(q["answer"]) in ("yes", "no")
    on_gold = [any(qt in s or s in qt for s in gold) for qt in quotes]
    return {"id": q["_id"], "type": q["type"], "shape": _shape(q["question"]), "refused": answer.refused,
            "sp_recall": sum(found) / len(found) if found else 0.0, "all_sp": all(found) if found else False,
            "contains_gold": None if yes_no else normalize_answer(q["answer"]) in normalize_answer(shown),
            "quotes": len(quotes), "sp_precision": sum(on_gold) / len(on_gold) if on_gold else 0.0,
            "words": len(shown.split()), "seconds": round(seconds, 2), "shown": answer.text,
            "prose_shown": bool(prose), "prose_words": len(prose.split()), "generation": answer.generation,
            "prose_gold": bool(prose) and normalize_answer(q["answer"]) in normalize_answer(prose).split()
            if yes_no else bool(prose) and normalize_answer(q["answer"]) in normalize_answer(prose)}


def _shape(question: str) -> str:
    read = read_span_question(question)
    return read.shape.value if read else ""


def mean_ci(values: list[float]) -> dict:
    """Mean with a normal-approximation 95% interval."""
    n = len(values)
    if not n:
        return {"value": 0.0, "lo": 0.0, "hi": 0.0, "n": 0}
    m = sum(values) / n
    sd = (sum((v - m) ** 2 for v in values) / (n - 1)) ** 0.5 if n > 1 else 0.0
    half = 1.96 * sd / n ** 0.5
    return {"value": round(m, 4), "lo": round(m - half, 4), "hi": round(m + half, 4), "n": n}


def summarise(rows: list[dict]) -> dict:
    answered = [r for r in rows if r["contains_gold"] is not None]
    return {"sp_recall": mean_ci([r["sp_recall"] for r in rows]), "all_sp": proportion([r["all_sp"] for r in rows]),
            "contains_gold": proportion([bool(r["contains_gold"]) for r in answered]),
            "sp_precision": mean_ci([r["sp_precision"] for r in rows if r["quotes"]]),
            "quotes": mean_ci([float(r["quotes"]) for r in rows]), "words": mean_ci([float(r["words"]) for r in rows]),
            "refused": proportion([r["refused"] for r in rows]),
            "prose_shown": proportion([bool(r.get("prose_shown")) for r in rows]),
            "prose_gold": proportion([bool(r.get("prose_gold")) for r in rows]),  # yes/no questions included
            "prose_words": mean_ci([float(r.get("prose_words", 0)) for r in rows if r.get("prose_shown")]),
            "seconds_mean": round(sum(r["seconds"] for r in rows) / max(1, len(rows)), 2)}


def paired(single: list[dict], span: list[dict]) -> dict:
    """Per question, span vs single: recall higher / lower, gold gained / lost, and the share that differ."""
    up = sum(b["sp_recall"] > a["sp_recall"] for a, b in zip(single, span, strict=True))
    down = sum(b["sp_recall"] < a["sp_recall"] for a, b in zip(single, span, strict=True))
    gained = sum(bool(b["contains_gold"]) and not a["contains_gold"] for a, b in zip(single, span, strict=True)
                 if a["contains_gold"] is not None)
    lost = sum(bool(a["contains_gold"]) and not b["contains_gold"] for a, b in zip(single, span, strict=True)
               if a["contains_gold"] is not None)
    changed = sum(a["shown"] != b["shown"] for a, b in zip(single, span, strict=True))
    return {"recall_up": up, "recall_down": down, "gold_gained": gained, "gold_lost": lost,
            "answer_changed": changed, "changed_share": list(wilson(changed, len(single)))}


class Memo:
    """A reranker or quote selector whose `score` / `select` answers are kept per input (everything else passed on):
    the span side asks the same question of them as the single side did."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.memo: dict = {}

    def __getattr__(self, name: str):
        return getattr(self.inner, name)

    def score(self, query, texts):
        key = ("score", query, tuple(texts))
        if key not in self.memo:
            self.memo[key] = self.inner.score(query, texts)
        return self.memo[key]

    def select(self, question, passages):
        key = ("select", question, tuple((p.n, p.source, p.content) for p in passages))
        if key not in self.memo:
            self.memo[key] = self.inner.select(question, passages)
        return self.memo[key]


def recording_choose(log: list):
    """span_step.choose, recording each question's picks (angle, score, text) in `log`."""
    real = span_step.choose

    def choose(*args, **kwargs):
        picks = real(*args, **kwargs)
        log.append([{"angle": p.angle, "score": round(p.score, 4), "text": flat(p.candidate.text)} for p in picks])
        return picks

    return choose


class ProseOnly(Kept):
    """A larger model that writes only the prose over span answers' quotes (span/prose.py's prompt): every other
    prompt (a question falling through to the usual path) is skipped as on the other sides, so the prose side
    differs from the span side by the prose alone."""

    def generate(self, messages, **kwargs) -> Generation:
        if messages and messages[0].get("content") == span_prose.SPAN_SYSTEM:
            return self.runtime.generate(messages, **kwargs)
        return Kept(self.runtime, skip_generation=True).generate(messages, **kwargs)


def run(questions: list[dict], folders: dict[str, Path], lib: Library, runtime: Kept,
        checkpoint=None, prose: tuple[str, ProseOnly] | None = None) -> dict[str, list[dict]]:
    """Every question as a single quote and as quotes from several documents; with `prose` (a larger model's path
    and runtime) also with that model's prose above the quotes."""
    runtimes = {None: runtime, **({prose[0]: prose[1]} if prose else {})}
    service = chat_service(lib, cached_retriever(lib), runtimes, None)
    reranker = chat_reranker(lib.settings.search_rerank)
    service._reranker = Memo(reranker) if reranker is not None else None
    service._selector = Memo(default_selector(lib.settings, lambda: lib.embedder))
    modes = ("single", "span", "prose") if prose else ("single", "span")
    rows: dict[str, list[dict]] = {m: [] for m in modes}
    picked: list = []
    span_step.choose = recording_choose(picked)
    for i, q in enumerate(questions):
        for mode in modes if _shape(q["question"]) else ("single",):
            service.span_answers = mode != "single"  # type: ignore[attr-defined]
            picked.clear()
            started = time.perf_counter()
            answer = service.ask(q["question"], scope=(str(folders[q["_id"]]),),
                                 model_path=prose[0] if prose and mode == "prose" else None)
            rows[mode].append({**score(q, answer, time.perf_counter() - started), "picks": list(picked[-1:])})
        for mode in modes[1:]:
            if len(rows[mode]) < len(rows["single"]):
                rows[mode].append(rows["single"][-1])  # no span shape: the same code, the same answer
        a, b = rows["single"][-1], rows["span"][-1]
        c = rows["prose"][-1] if prose else None
        print(f"{i + 1}/{len(questions)} {q['type']:<10} {b['shape'] or '-':<8} recall {a['sp_recall']:.2f} -> "
              f"{b['sp_recall']:.2f} gold {a['contains_gold']} -> {b['contains_gold']} "
              + (f"prose {c['prose_shown']} gold {c['prose_gold']} ({c['seconds']} s) " if c else "")
              + f"({a['seconds']}+{b['seconds']} s)", flush=True)
        if checkpoint is not None:
            checkpoint(rows)  # a run stopped early keeps the questions it asked
    return rows


def replay(q: dict, single: dict, span_row: dict, keep: float, second: float) -> dict:
    """The span row as it would have been with floors `keep` (an angle's sentence) and `keep + second` (a hop
    document's second sentence): the first quote and the recorded picks that clear them."""
    picks = span_row["picks"][0] if span_row.get("picks") else []
    kept, hop = [], False
    for p in picks:
        if p["angle"] in ("question", "list", "topic") or (p["angle"] != "hop2" and p["score"] >= keep):
            kept.append(p["text"])
            hop = hop or p["angle"] == "hop"
        elif p["angle"] == "hop2" and hop and p["score"] >= keep + second:
            kept.append(p["text"])
    if len(kept) < 2:
        return single
    gold = gold_sentences(q)
    shown = " ".join(kept)
    found = [present(s, shown, kept) for s in gold]
    yes_no = normalize_answer(q["answer"]) in ("yes", "no")
    return {**span_row, "sp_recall": sum(found) / len(found) if found else 0.0,
            "all_sp": all(found) if found else False,
            "contains_gold": None if yes_no else normalize_answer(q["answer"]) in normalize_answer(shown),
            "quotes": len(kept), "words": len(shown.split()),
            "sp_precision": sum(any(k in g or g in k for g in gold) for k in kept) / len(kept)}


def sweep(path: str) -> None:
    """Recall, gold and words per floor over a results file recorded with --keep 0."""
    data = json.loads(Path(path).read_text())
    by_id = {q["_id"]: q for q in load()}
    single, spans = data["rows"]["single"], data["rows"]["span"]
    base = summarise(single)
    print(f"single   recall {base['sp_recall']['value']:.3f} gold {base['contains_gold']['value']:.3f} "
          f"words {base['words']['value']:.1f}")
    for second in SECONDS:
        for keep in KEEPS:
            rows = [replay(by_id[a["id"]], a, b, keep, second) for a, b in zip(single, spans, strict=True)]
            s = summarise(rows)
            print(f"keep {keep:<4} second +{second:<4} recall {s['sp_recall']['value']:.3f} "
                  f"gold {s['contains_gold']['value']:.3f} all_sp {s['all_sp']['value']:.3f} "
                  f"words {s['words']['value']:.1f} quotes {s['quotes']['value']:.2f}")


def merge(paths: list[str], keep: float, second: float) -> dict:
    """One result from parts' files recorded with --keep 0 (the final part's halves), the span side replayed at the
    floors `keep` / `second` (chosen on the dev part before these files were read)."""
    parts = [json.loads(Path(p).read_text()) for p in paths]
    by_id = {q["_id"]: q for q in load()}
    single = [r for d in parts for r in d["rows"]["single"]]
    spans = [replay(by_id[a["id"]], a, b, keep, second)
             for d in parts for a, b in zip(d["rows"]["single"], d["rows"]["span"], strict=True)]
    rows = {"single": single, "span": spans}
    return {"part": "+".join(d["part"] for d in parts), "questions": sum(d["questions"] for d in parts),
            "keep": keep, "second": second, "replayed_from": [Path(p).name for p in paths],
            "loadavg_1m": [(d["loadavg_1m_at_start"], d["loadavg_1m_at_end"]) for d in parts],
            "summary": {m: summarise(r) for m, r in rows.items()}, "paired": paired(single, spans),
            "by_type": {t: {m: summarise([r for r in rs if r["type"] == t]) for m, rs in rows.items()}
                        for t in sorted({r["type"] for r in single})},
            "by_shape": {sh or "none": {m: summarise([r for r in rs if r["shape"] == sh]) for m, rs in rows.items()}
                         for sh in sorted({r["shape"] for r in single})}}


def parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", choices=sorted(PARTS), default="dev")
    ap.add_argument("--limit", type=int, default=0, help="ask only the first N questions of the part")
    ap.add_argument("--home", help="build (or reuse) the library here (default: a new temporary folder)")
    ap.add_argument("--keep", type=float, help="span.KEEP for this run (default: the shipped one)")
    ap.add_argument("--second", type=float, help="span.SECOND for this run (default: the shipped one)")
    ap.add_argument("--sweep", help="replay floors over this results file (recorded with --keep 0)")
    ap.add_argument("--merge", nargs="+", help="results files recorded with --keep 0, merged and replayed at the "
                    "floors (--keep/--second, default the shipped ones) into bench/results/multihop_final.json")
    ap.add_argument("--out", help="results file (default: bench/results/multihop_<part>.json)")
    ap.add_argument("--model", help="a larger GGUF (e.g. ~/.cache/trove-bench/models/qwen2.5-coder-0.5b-instruct-"
                    "q4_k_m.gguf): a third side, 'prose', where it writes prose above the span side's quotes")
    return ap.parse_args()


def main() -> int:
    args = parse_args()
    if args.sweep:
        sweep(args.sweep)
        return 0
    if args.merge:
        result = merge(args.merge, span.KEEP if args.keep is None else args.keep,
                       span.SECOND if args.second is None else args.second)
        save("multihop", result, args.out or str(RESULTS / "multihop_final.json"))
        report(result)
        return 0
    if args.keep is not None:
        span.KEEP = args.keep
    if args.second is not None:
        span.SECOND = args.second
    lo, hi = PARTS[args.part]
    questions = load()[lo:hi][: args.limit or None]
    home = Path(args.home) if args.home else Path(tempfile.mkdtemp(prefix="trove-multihop-"))
    folders = write_folders(questions, home / "docs")
    lib = Library(home / "lib", settings=Settings(**SETTINGS))
    started = time.perf_counter()
    for folder in folders.values():
        lib.add_folder(folder)
    lib.sync(wait=True)
    index_s = time.perf_counter() - started
    print(f"indexed {len(questions)} questions' paragraphs in {index_s:.1f}s; load {os.getloadavg()[0]:.1f}",
          flush=True)
    runtime = Kept(LlamaCppRuntime(resolve_model_path(), n_ctx=lib.settings.n_ctx, n_threads=2), skip_generation=True)
    prose = (args.model, ProseOnly(LlamaCppRuntime(Path(args.model), n_ctx=lib.settings.n_ctx, n_threads=2))
             ) if args.model else None
    load_start = os.getloadavg()[0]
    out = args.out or str(RESULTS / f"multihop_{args.part}.json")

    def result_of(rows: dict[str, list[dict]], partial: bool) -> dict:
        return {"part": args.part, "keep": span.KEEP, "second": span.SECOND, "questions": len(rows["single"]),
                "partial": partial, "data": DATA.name, "index_seconds": round(index_s, 1),
                "loadavg_1m_at_start": load_start, "loadavg_1m_at_end": os.getloadavg()[0],
                "command": " ".join(sys.argv), "summary": {m: summarise(r) for m, r in rows.items()},
                "paired": paired(rows["single"], rows["span"]), "model": args.model,
                **({"paired_prose": paired(rows["span"], rows["prose"])} if "prose" in rows else {}),
                "by_type": {t: {m: summarise([r for r in rs if r["type"] == t]) for m, rs in rows.items()}
                            for t in sorted({r["type"] for r in rows["single"]})},
                "rows": rows}

    try:
        rows = run(questions, folders, lib, runtime, lambda r: save("multihop", result_of(r, True), out), prose)
    finally:
        runtime.runtime.close()
        if prose:
            prose[1].runtime.close()
        lib.close()
    result = result_of(rows, False)
    save("multihop", result, out)
    report(result)
    return 0


def report(result: dict) -> None:
    for mode, s in result["summary"].items():
        print(f"{mode:<7} sp_recall {s['sp_recall']['value']:.3f} "
              f"[{s['sp_recall']['lo']:.3f}, {s['sp_recall']['hi']:.3f}]"
              f"  contains_gold {s['contains_gold']['value']:.3f} [{s['contains_gold']['lo']:.3f}, "
              f"{s['contains_gold']['hi']:.3f}] n={s['contains_gold']['n']}  all_sp {s['all_sp']['value']:.3f}"
              f"  quotes {s['quotes']['value']:.2f}  words {s['words']['value']:.1f}"
              f"  prose shown {s['prose_shown']['value']:.3f} holds gold {s['prose_gold']['value']:.3f}")
    print(json.dumps(result["paired"]))
    if "paired_prose" in result:
        print("prose vs span:", json.dumps(result["paired_prose"]))


if __name__ == "__main__":
    raise SystemExit(main())

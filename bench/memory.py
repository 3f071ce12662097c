"""Conversation memory on LoCoMo: does memory search surface a turn that holds the answer?

    python bench/memory.py --data PATH/locomo10.json [--split tune|report|all] [--embedder minilm|hash]
        [--target-chars N] [--only 5,6] [--json bench/results/memory.json] [--keep DIR]
    python bench/memory.py --data PATH --split all --latency-from DIR   # time search alone on kept libraries
    python bench/memory.py --merge A.json B.json --json OUT.json       # one report of runs over other conversations
    python bench/memory.py --data PATH --after-use 300 ...             # also after 300 earlier questions (issue 42)

The data: LoCoMo (snap-research/LoCoMo on GitHub, file `data/locomo10.json`: 10 long two-person conversations,
about 2,000 questions, each with the dialogue ids of the turns that hold its answer). Its licence is CC BY-NC 4.0
(LICENSE.txt of that repository): it is NOT in this repository; download it and pass its path.

Splits: conversations 0-4 are where choices were made (chunk size, thresholds): `--split tune`; conversations
5-9 are the held-out figures to quote: `--split report` (the default).

Each conversation gets its own library (SQLite in a temp folder, the real embedder). Every session is one chat,
replayed turn by turn: each utterance goes through the fact extractor (`memory.remember`), and the turns are saved
as compaction saves them: when the chat's turns outgrow 80 % of a 4,096-token window, the oldest go to raw memory
until 60 % is left, and when the session ends (the chat goes quiet) the rest follows. Then every question is a
memory search (scope "memory"): evidence recall@5 and @10 = share of questions whose top k hits hold one of its
evidence turns (a history excerpt whose turn range covers it, or a fact stated in it); automatic recall for the
question as a new chat's first message (facts within 200 tokens + up to two excerpts): its tokens and whether an
excerpt holds the evidence; search latency p50/p95 (the store's work, with the query's vector already made) and,
apart, the query embedding's p50/p95. With 95% intervals (bench/_qa_stats.py): Wilson for each recall, a paired
bootstrap over questions for memory minus baseline, a bootstrap for the mean tokens injected, order statistics for
the search p95; overall, per split and per category. The per-question rows are kept in the JSON (no question text,
only flags and counts), so runs over different conversations merge into one report (`--merge`).

Long use (`--after-use N`, issue 42): each conversation is also replayed into a second library whose memory first
took N earlier question/answer turns in N/10 quiet chats of 10, as the chat saves them (`raw.chat_turns`; each
question through the fact extractor too): SQuAD questions of bench/data/qa/questions_all.jsonl, each answered by
the sentence of its article that holds its gold answer with a citation marker, as Trove's quote-first answer shows
it, or by Trove's refusal when SQuAD has none. Every question is then searched in both; the report adds recall@5 and
@10 after use, its paired difference from the fresh library's, and the share of top-10 hits that come from the
earlier chats.

Baselines in the same run: the whole transcript as one document, chunked by the library's own chunker to about
the same size as memory's chunks and ranked by the library's hybrid search (search_store's candidates and convex
fusion; its snippet highlights left out, they only cost time), scored the same way; and the full transcript's
token count (what putting all history in the prompt would cost). Tokens are
counted as characters / 4 throughout (one rule for memory, baseline and transcript).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import _qa_stats  # noqa: E402
import numpy as np  # noqa: E402
from _qa_stats import proportion, quantile, ratio_of_sums  # noqa: E402

from desktop_app.core.embed.base import Embedder, HashEmbedder, embed_passages, embed_query  # noqa: E402
from desktop_app.core.index.indexer import content_hash  # noqa: E402
from desktop_app.core.ingest.chunking import ChunkConfig, chunk_spans  # noqa: E402
from desktop_app.core.memory.raw import RAW_TARGET_CHARS, TurnText, chat_turns, turn_block  # noqa: E402
from desktop_app.core.memory.recall import approx_tokens  # noqa: E402
from desktop_app.core.memory.service import MemoryService  # noqa: E402
from desktop_app.core.search.service import SearchParams, candidate_count, fuse  # noqa: E402
from desktop_app.core.store.rows import ChunkVectors, NewChunk, NewDocument  # noqa: E402
from desktop_app.core.store.sqlite import SQLiteStore  # noqa: E402

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
N_CTX, COMPACT_AT, COMPACT_TO = 4096, 0.8, 0.6
PARAMS = SearchParams()  # the library's defaults (convex fusion)
SPLITS = {"tune": range(0, 5), "report": range(5, 10), "all": range(0, 10)}


def sessions(conv: dict) -> list[tuple[int, str, list[dict]]]:
    """(number, date, turns) of each session, in order."""
    out = []
    for key, turns in conv.items():
        if key.startswith("session_") and isinstance(turns, list) and not key.endswith("date_time"):
            n = int(key.split("_")[1])
            out.append((n, str(conv.get(f"{key}_date_time", "")), turns))
    return sorted(out)


def utterance(turn: dict) -> str:
    """One LoCoMo turn as text ("Name: …", with the shared photo's caption when there is one)."""
    caption = f" [shares a photo: {turn['blip_caption']}]" if turn.get("blip_caption") else ""
    return f"{turn['speaker']}: {turn.get('text', '')}{caption}"


USE_DATA = Path(__file__).resolve().parent / "data" / "qa"
USE_CHAT_TURNS = 10  # earlier questions per chat (as bench/qa_long_use.py asks them)
REFUSAL = "The documents in your library do not cover this."
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")


def use_turns(n: int) -> list[tuple[str, str]]:
    """`n` (question, answer) pairs of earlier use: SQuAD dev questions (questions_all.jsonl, its order, repeated if
    it runs out), each answered as Trove's quote-first answer shows it: the sentence of its article holding the first
    gold answer (of those, the one sharing most words with the question), with a citation marker, or the refusal
    when SQuAD has no answer."""
    rows = [json.loads(line) for line in (USE_DATA / "questions_all.jsonl").read_text(encoding="utf-8").splitlines()
            if line.strip()]
    sentences: dict[str, list[str]] = {}
    out = []
    for i in range(n):
        row = rows[i % len(rows)]
        article = row["article"]
        if article not in sentences:
            text = (USE_DATA / "articles" / f"{article}.txt").read_text(encoding="utf-8")
            sentences[article] = [s.strip() for s in _SENTENCE_END.split(text) if s.strip()]
        golds = row["answers"] if not row.get("is_impossible") else []
        words = set(row["question"].lower().split())
        holding = [s for s in sentences[article] if golds and golds[0] in s]
        quote = max(holding, key=lambda s: len(words & set(s.lower().split())), default=None)
        out.append((row["question"], f"{' '.join(quote.split())} [1]" if quote else REFUSAL))
    return out


class Replay:
    """One conversation replayed into a fresh library's memory; maps (chat, turn) to LoCoMo dialogue ids. With `use`,
    those (question, answer) turns are saved first, in quiet chats of USE_CHAT_TURNS (earlier use of the library)."""

    def __init__(self, sample: dict, embedder: Embedder, home: Path, target_chars: int,
                 use: list[tuple[str, str]] | None = None) -> None:
        self.store = SQLiteStore(home / "library.db")
        self.memory = MemoryService(self.store, embedder, target_chars=target_chars)
        self.dia: dict[tuple[int, int], str] = {}
        self.transcript: list[tuple[str, str]] = []  # (dia id, line)
        self.use_chats: set[int] = set()
        for start in range(0, len(use or []), USE_CHAT_TURNS):
            self.replay_use((use or [])[start:start + USE_CHAT_TURNS])
        for number, date, turns in sessions(sample["conversation"]):
            self.replay_session(number, date, turns)

    def replay_use(self, pairs: list[tuple[str, str]]) -> None:
        """One chat of earlier questions, saved as the chat saves a quiet chat (its questions' facts remembered)."""
        chat = self.store.create_chat(f"earlier use {len(self.use_chats) + 1}", time.time())
        self.use_chats.add(chat)
        for i, (question, _) in enumerate(pairs, start=1):
            self.memory.remember(question, chat_id=chat, turn=i)
        self.memory.save_history(chat, chat_turns([SimpleNamespace(question=q, answer=a) for q, a in pairs]))

    def from_use(self, hit) -> bool:
        """Whether a search hit comes from an earlier-use chat."""
        return hit.provenance.get("chat_id") in self.use_chats

    def replay_session(self, number: int, date: str, turns: list[dict]) -> None:
        chat = self.store.create_chat(f"session {number} ({date})", time.time())
        pending: list[TurnText] = []
        for i, turn in enumerate(turns, start=1):
            text = utterance(turn)
            self.dia[(chat, i)] = turn["dia_id"]
            self.transcript.append((turn["dia_id"], text))
            self.memory.remember(turn.get("text", ""), chat_id=chat, turn=i)
            pending.append(TurnText(i, text))
            if sum(approx_tokens(turn_block(t)) for t in pending) > COMPACT_AT * N_CTX:
                keep = []
                while pending and sum(approx_tokens(turn_block(t)) for t in pending) > COMPACT_TO * N_CTX:
                    keep.append(pending.pop(0))
                self.memory.save_history(chat, keep)
        self.memory.save_history(chat, pending)  # the session ends: the chat goes quiet

    def hit_dias(self, hit) -> set[str]:
        """The dialogue ids a search hit holds."""
        p = hit.provenance
        if hit.kind == "fact":
            return {self.dia.get((p.get("chat_id"), p.get("turn")), "")}
        first, last = p["turns"]
        return {self.dia.get((p["chat_id"], t), "") for t in range(first, last + 1)}


class TranscriptBaseline:
    """The whole transcript as one document, chunked by the library's chunker, searched by the library's hybrid."""

    def __init__(self, replay: Replay, embedder: Embedder, home: Path, words: int) -> None:
        self.store = SQLiteStore(home / "baseline.db")
        self.embedder = embedder
        self.store.ensure_embedding_model(embedder.model_id, embedder.dim)
        text, self.spans = "", []
        for dia, line in replay.transcript:
            start = len(text)
            text += line + "\n\n"
            self.spans.append((start, start + len(line), dia))
        self.text = text
        folder = self.store.add_folder("locomo:").id
        spans = chunk_spans(text, ChunkConfig(chunk_size=words, chunk_overlap=words // 8, min_chunk_size=10))
        transcript = NewDocument(folder_id=folder, path="locomo://transcript", title="", type="text", size=len(text),
                                 digest=content_hash(text.encode()))
        doc = self.store.write_document(transcript, [NewChunk(s, None) for s in spans])
        rows = self.store.pending_chunks(len(spans) + 1, document_id=doc)
        vectors = embed_passages(embedder, [r.text for r in rows])
        self.store.store_vectors(ChunkVectors(r.id, r.text_hash, v) for r, v in zip(rows, vectors, strict=True))
        self.chars = sum(len(s.text) for s in spans) / max(len(spans), 1)

    def hit_dias(self, span: tuple[int, int]) -> set[str]:
        start, end = span
        return {dia for s, e, dia in self.spans if s < end and e > start}

    def search(self, question: str, k: int) -> list[tuple[int, int]]:
        """(start, end) of the top k chunks by the library's hybrid ranking (search_store's candidates and fusion,
        without its snippet highlights, which only cost time here)."""
        n = candidate_count(k, PARAMS)
        keyword = self.store.keyword_candidates(question, n, title_weight=PARAMS.title_weight)
        dense = [h for h in self.store.dense_candidates(embed_query(self.embedder, question), n)
                 if h[1] >= PARAMS.min_similarity]
        ranked = fuse(keyword, dense, PARAMS)[:k]
        rows = self.store.chunk_rows([cid for cid, _ in ranked])
        return [(rows[cid].start, rows[cid].end) for cid, _ in ranked if cid in rows]


def run_conversation(sample: dict, embedder: Embedder, target_chars: int, baseline_words: int,
                     keep: Path | None = None, use: list[tuple[str, str]] | None = None) -> dict:
    """Every question of one conversation against memory and the baseline (the replayed library kept in `keep`);
    with `use`, also against a second library that took those earlier turns first ("used@k")."""
    with tempfile.TemporaryDirectory(prefix="trove-bench-memory-") as tmp:
        home = Path(tmp)
        if keep is not None:
            home = keep / str(sample.get("sample_id"))
            home.mkdir(parents=True, exist_ok=False)
        t0 = time.perf_counter()
        replay = Replay(sample, embedder, home, target_chars)
        replay_s = time.perf_counter() - t0
        used = None
        if use:
            (Path(tmp) / "used").mkdir()
            used = Replay(sample, embedder, Path(tmp) / "used", target_chars, use)
        baseline = TranscriptBaseline(replay, embedder, Path(tmp), baseline_words)
        rows, latencies, embed_ms = [], [], []
        for qa in sample["qa"]:
            evidence = {e.strip() for e in qa.get("evidence", []) for e in e.split(";") if e.strip()}
            if not evidence:
                continue
            t = time.perf_counter()
            replay.memory.searcher.query_vector(qa["question"])  # the model's part, timed on its own
            embed_ms.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            hits = replay.memory.search(qa["question"], top_k=10)  # the store's part (query vector cached)
            latencies.append((time.perf_counter() - t) * 1000)
            recall = replay.memory.recall(None, [qa["question"]])
            base = baseline.search(qa["question"], 10)
            if used is not None:
                after = used.memory.search(qa["question"], top_k=10)
                later = used.memory.recall(None, [qa["question"]])
                extra = {"used@5": any(used.hit_dias(h) & evidence for h in after[:5]),
                         "used@10": any(used.hit_dias(h) & evidence for h in after[:10]),
                         "used_recall_hit": any(used.hit_dias(h) & evidence for h in later.excerpts),
                         "used_hits_from_use": sum(used.from_use(h) for h in after[:10]),
                         "used_hits": len(after[:10])}
            else:
                extra = {}
            rows.append(extra | {
                "category": CATEGORIES.get(qa.get("category"), str(qa.get("category"))),
                "memory@5": any(replay.hit_dias(h) & evidence for h in hits[:5]),
                "memory@10": any(replay.hit_dias(h) & evidence for h in hits[:10]),
                "baseline@5": any(baseline.hit_dias(r) & evidence for r in base[:5]),
                "baseline@10": any(baseline.hit_dias(r) & evidence for r in base[:10]),
                "recall_hit": any(replay.hit_dias(h) & evidence for h in recall.excerpts),
                "recall_excerpts": len(recall.excerpts),
                "recall_tokens": recall.tokens,
                "search_ms": round(latencies[-1], 3), "embed_ms": round(embed_ms[-1], 3),
            })
        out = {"sample_id": sample.get("sample_id"), "questions": rows,
               "transcript_tokens": approx_tokens(baseline.text), "chunks": replay.memory.chunk_sql.count(),
               "facts": len(replay.memory.list(include_outdated=True)), "replay_s": replay_s,
               "baseline_chunk_chars": baseline.chars}
        if used is not None:
            out["used_chunks"] = used.memory.chunk_sql.count()
            used.store.close()
        replay.store.close()
        baseline.store.close()
        return out


def summarise(rows: list[dict]) -> dict:
    """Per-measure means over question rows."""
    n = len(rows)
    if not n:
        return {"questions": 0}
    mean = lambda key: round(sum(float(r[key]) for r in rows) / n, 4)  # noqa: E731
    out = {"questions": n, "memory_recall@5": mean("memory@5"), "memory_recall@10": mean("memory@10"),
           "baseline_recall@5": mean("baseline@5"), "baseline_recall@10": mean("baseline@10"),
           "auto_recall_hit": mean("recall_hit"), "auto_recall_excerpts": mean("recall_excerpts"),
           "memory_tokens_injected": mean("recall_tokens")}
    if all("used@10" in r for r in rows):  # --after-use: the same after earlier use
        hits = sum(r["used_hits"] for r in rows)
        out |= {"after_use_recall@5": mean("used@5"), "after_use_recall@10": mean("used@10"),
                "after_use_auto_recall_hit": mean("used_recall_hit"),
                "after_use_top10_from_earlier_chats": round(sum(r["used_hits_from_use"] for r in rows) / hits, 4)
                if hits else 0.0}
    return out


def paired_difference(rows: list[dict], a: str, b: str) -> dict:
    """mean(a) - mean(b) over the same questions (_qa_stats.paired_difference): memory and the baseline answer the
    same questions, so their difference is paired, not two independent shares."""
    return _qa_stats.paired_difference([r[a] for r in rows], [r[b] for r in rows])


def intervals(rows: list[dict]) -> dict:
    """95% intervals of one group of questions: Wilson for each recall, the paired bootstrap for memory minus the
    baseline, a question bootstrap for the mean memory tokens injected."""
    out = {k: proportion([bool(r[k]) for r in rows]) for k in ("memory@5", "memory@10", "baseline@5", "baseline@10")}
    out["memory_minus_baseline@5"] = paired_difference(rows, "memory@5", "baseline@5")
    out["memory_minus_baseline@10"] = paired_difference(rows, "memory@10", "baseline@10")
    out["memory_tokens_injected"] = ratio_of_sums([(int(r["recall_tokens"]), 1) for r in rows])
    if rows and all("used@10" in r for r in rows):
        out |= {k: proportion([bool(r[k]) for r in rows]) for k in ("used@5", "used@10")}
        out["after_use_minus_fresh@5"] = paired_difference(rows, "used@5", "memory@5")
        out["after_use_minus_fresh@10"] = paired_difference(rows, "used@10", "memory@10")
    return {k: {m: round(v, 4) if isinstance(v, float) else v for m, v in stat.items()} for k, stat in out.items()}


def grouped(rows: list[dict]) -> dict:
    """Summary and intervals: of categories 1-4 overall and per split present (tune 0-4, report 5-9), and of each
    category (adversarial included) on its own."""
    answerable = [r for r in rows if r["category"] != "adversarial"]
    groups = {"overall": answerable}
    for name in ("tune", "report"):
        groups[name] = [r for r in answerable if r["conversation"] in SPLITS[name]]
    by_cat = defaultdict(list)
    for r in rows:
        by_cat[r["category"]].append(r)
    groups |= {f"category {c}": v for c, v in sorted(by_cat.items())}
    return {name: {"conversations": sorted({r["conversation"] for r in g}), **summarise(g),
                   "intervals": intervals(g)} for name, g in groups.items() if g}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 2) if ordered else 0.0


class QueryCache:
    """The embedder with its last query's vector kept: memory and the baseline search each question once, and
    both are timed with the same (cached or not) query cost."""

    def __init__(self, embedder: Embedder) -> None:
        self.inner = embedder
        self.model_id, self.dim = embedder.model_id, embedder.dim
        self.last: tuple[str, np.ndarray] | None = None

    def embed(self, texts):
        return self.inner.embed(texts)

    def embed_passages(self, texts, max_windows: int = 8):
        return embed_passages(self.inner, texts, max_windows)

    def embed_query(self, text: str) -> np.ndarray:
        if self.last is None or self.last[0] != text:
            self.last = (text, embed_query(self.inner, text))
        return self.last[1]


def make_embedder(name: str) -> Embedder:
    if name == "hash":
        return HashEmbedder()
    from desktop_app.core.embed.minilm import MiniLMEmbedder

    embedder = MiniLMEmbedder()
    embedder.embed(["warm up"])
    return QueryCache(embedder)


def time_kept(data: list, chosen: list[int], embedder: Embedder, kept: Path) -> dict:
    """Search latency alone, on libraries a quality run kept (`--keep`): each question's vector made first, then
    the store's search timed; for a timing run under the shared lock, without replaying the conversations."""
    latencies, embed_ms = [], []
    for index in chosen:
        store = SQLiteStore(kept / str(data[index].get("sample_id")) / "library.db")
        memory = MemoryService(store, embedder)
        for qa in data[index]["qa"]:
            if not any(e.strip() for e in qa.get("evidence", [])):
                continue
            t = time.perf_counter()
            memory.searcher.query_vector(qa["question"])
            embed_ms.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            memory.search(qa["question"], top_k=10)
            latencies.append((time.perf_counter() - t) * 1000)
        store.close()
    p95 = quantile(latencies, 0.95)
    return {"conversations": chosen, "embedder": embedder.model_id, "searches": len(latencies),
            "search_ms_p50": percentile(latencies, 0.5), "search_ms_p95": percentile(latencies, 0.95),
            "search_ms_p95_interval": [round(p95["lo"], 2), round(p95["hi"], 2)],
            "query_embedding_ms_p50": percentile(embed_ms, 0.5), "query_embedding_ms_p95": percentile(embed_ms, 0.95)}


def make_report(meta: dict, rows: list[dict], per_conv: list[dict]) -> dict:
    """The JSON report of the conversations measured so far (`meta`: split, conversations, embedder, sizes). The
    search times here are a quality run's, taken beside the replay; quote a `--latency-from` run's."""
    by_cat = defaultdict(list)
    for r in rows:
        by_cat[r["category"]].append(r)
    answerable = [r for r in rows if r["category"] != "adversarial"]
    latencies, embed_ms = [r["search_ms"] for r in rows], [r["embed_ms"] for r in rows]
    p95 = quantile(latencies, 0.95)
    return meta | {
        "overall_categories_1_4": summarise(answerable), "overall_all": summarise(rows),
        "per_category": {c: summarise(v) for c, v in sorted(by_cat.items())},
        "categories_1_4_with_intervals": grouped(rows),
        "search_ms_p50": percentile(latencies, 0.5), "search_ms_p95": percentile(latencies, 0.95),
        "search_ms_p95_interval": [round(p95["lo"], 2), round(p95["hi"], 2)],
        "query_embedding_ms_p50": percentile(embed_ms, 0.5), "query_embedding_ms_p95": percentile(embed_ms, 0.95),
        "transcript_tokens_mean": round(statistics.mean(c["transcript_tokens"] for c in per_conv), 1),
        "per_conversation": per_conv, "rows": rows,
    }


def merge(paths: list[Path]) -> dict:
    """One report of several runs over different conversations (each conversation's rows from the file that has
    it; a conversation in two files is an error: which run to quote would be a choice)."""
    reports = [json.loads(p.read_text(encoding="utf-8")) for p in paths]
    seen: dict[int, Path] = {}
    for path, report in zip(paths, reports):
        for c in report["conversations"]:
            if c in seen:
                raise SystemExit(f"conversation {c} is in both {seen[c]} and {path}")
            seen[c] = path
    keys = ("embedder", "target_chars", "baseline_chunk_words")
    if len({tuple(r[k] for k in keys) for r in reports}) != 1:
        raise SystemExit("the runs differ in embedder or sizes: " + ", ".join(str(p) for p in paths))
    rows = sorted((row for r in reports for row in r["rows"]), key=lambda row: row["conversation"])
    per_conv = sorted((c for r in reports for c in r["per_conversation"]), key=lambda c: c["conversation"])
    meta = {"split": "merged", "merged_from": [str(p) for p in paths], "conversations": sorted(seen)}
    return make_report(meta | {k: reports[0][k] for k in keys}, rows, per_conv)


def write(path: Path, report: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, help="LoCoMo's data/locomo10.json")
    parser.add_argument("--split", choices=tuple(SPLITS), default="report")
    parser.add_argument("--embedder", choices=("minilm", "hash"), default="minilm")
    parser.add_argument("--target-chars", type=int, default=RAW_TARGET_CHARS)
    parser.add_argument("--only", type=lambda t: [int(x) for x in t.split(",")], metavar="I,J",
                        help="only these conversations of the split (a slow machine: fewer of the held-out ones)")
    parser.add_argument("--json", type=Path, help="write the results here (e.g. bench/results/memory.json)")
    parser.add_argument("--keep", type=Path, help="keep each replayed library in a folder of this (new) folder")
    parser.add_argument("--latency-from", type=Path, metavar="KEPT",
                        help="only time memory search on the libraries a run kept with --keep (no replay)")
    parser.add_argument("--after-use", type=int, default=0, metavar="N",
                        help="also measure each conversation after N earlier questions in N/10 chats (issue 42)")
    parser.add_argument("--merge", type=Path, nargs="+", metavar="RUN",
                        help="one report of these result files (runs over different conversations); no --data")
    args = parser.parse_args()
    if args.data is None and not args.merge:
        parser.error("--data is required (except with --merge)")
    return args


def print_summary(report: dict) -> None:
    o = report["overall_categories_1_4"]
    d = report["categories_1_4_with_intervals"]["overall"]["intervals"]["memory_minus_baseline@10"]
    print(f"\nconversations {report['conversations']}: memory recall@10 {o['memory_recall@10']:.3f} vs transcript "
          f"chunks {o['baseline_recall@10']:.3f} (difference {d['value']:+.3f} [{d['lo']:+.3f}, {d['hi']:+.3f}]); "
          f"recall@5 {o['memory_recall@5']:.3f} vs {o['baseline_recall@5']:.3f}")
    if "after_use_recall@10" in o:
        u = report["categories_1_4_with_intervals"]["overall"]["intervals"]["after_use_minus_fresh@10"]
        print(f"after {report['after_use']} earlier questions: recall@10 {o['after_use_recall@10']:.3f} (minus fresh "
              f"{u['value']:+.3f} [{u['lo']:+.3f}, {u['hi']:+.3f}]), recall@5 {o['after_use_recall@5']:.3f}; "
              f"{o['after_use_top10_from_earlier_chats']:.3f} of the top 10 hits from the earlier chats")
    share = o["memory_tokens_injected"] / report["transcript_tokens_mean"]
    print(f"memory tokens injected per question {o['memory_tokens_injected']:.0f} vs the full transcript "
          f"{report['transcript_tokens_mean']:.0f} ({share:.3%}); search p50 {report['search_ms_p50']} ms, "
          f"p95 {report['search_ms_p95']} ms (+ query embedding p50 {report['query_embedding_ms_p50']} ms)")


def main() -> None:
    args = parse_args()
    if args.merge:
        report = merge(args.merge)
        print_summary(report)
        if args.json:
            write(args.json, report)
        return
    chosen = [i for i in SPLITS[args.split] if args.only is None or i in args.only]
    data = json.loads(args.data.read_text(encoding="utf-8"))
    embedder = make_embedder(args.embedder)
    if args.latency_from:
        timing = time_kept(data, chosen, embedder, args.latency_from)
        print(json.dumps(timing))
        if args.json:
            write(args.json, timing)
        return
    baseline_words = max(20, args.target_chars // 6)  # LoCoMo's English: about 6 characters a word
    meta = {"split": args.split, "conversations": chosen, "embedder": embedder.model_id,
            "target_chars": args.target_chars, "baseline_chunk_words": baseline_words, "after_use": args.after_use}
    use = use_turns(args.after_use) if args.after_use else None
    per_conv: list[dict] = []
    rows: list[dict] = []
    for index in chosen:
        result = run_conversation(data[index], embedder, args.target_chars, baseline_words, args.keep, use)
        conv_rows = [r | {"conversation": index} for r in result.pop("questions")]
        rows += conv_rows
        result = {"conversation": index} | result | summarise(conv_rows)
        per_conv.append(result)
        print(f"conversation {index} ({result['sample_id']}): {json.dumps(result)}", flush=True)
        if args.json and len(per_conv) < len(chosen):  # a long run stopped early keeps what it measured
            write(args.json, make_report(meta | {"conversations": chosen[:len(per_conv)], "partial": True}, rows,
                                         per_conv))
    report = make_report(meta, rows, per_conv)
    print_summary(report)
    if args.json:
        write(args.json, report)


if __name__ == "__main__":
    main()

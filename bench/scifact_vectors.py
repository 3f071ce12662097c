"""Embed SciFact once with the real MiniLM (one vector per document, and the test queries) and save them.

    python bench/scifact_vectors.py [--dataset ../shared/eval/scifact] [--out ~/.cache/trove-bench/scifact_minilm.npz]

bench/server_scale.py builds a ≥100k-chunk library from these saved vectors (replicated with small noise)
instead of re-embedding, so the benchmark measures the stores, not the model.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from _common import ROOT

DEFAULT_OUT = Path.home() / ".cache" / "trove-bench" / "scifact_minilm.npz"


def load(root: Path) -> tuple[list[dict], list[dict]]:
    with open(root / "corpus.jsonl", encoding="utf-8") as fh:
        docs = [json.loads(line) for line in fh if line.strip()]
    with open(root / "queries.jsonl", encoding="utf-8") as fh:
        queries = [json.loads(line) for line in fh if line.strip()]
    return docs, queries


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dataset", default=str(ROOT.parent / "shared" / "eval" / "scifact"))
    ap.add_argument("--out", default=str(DEFAULT_OUT))
    args = ap.parse_args()
    from desktop_app.core.embed.minilm import MiniLMEmbedder

    docs, queries = load(Path(args.dataset))
    model = MiniLMEmbedder()
    started = time.monotonic()
    texts = [f"{d.get('title', '')}\n\n{d.get('text', '')}" for d in docs]
    doc_vecs = np.concatenate([model.embed(texts[i:i + 256]) for i in range(0, len(texts), 256)])
    query_vecs = model.embed([q["text"] for q in queries])
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.out, doc_ids=np.array([d["_id"] for d in docs]), doc_vecs=doc_vecs.astype(np.float32),
                        query_ids=np.array([q["_id"] for q in queries]), query_vecs=query_vecs.astype(np.float32),
                        model=np.array(model.model_id))
    print(f"embedded {len(docs)} documents and {len(queries)} queries in {time.monotonic() - started:.0f}s "
          f"-> {args.out}")


if __name__ == "__main__":
    main()

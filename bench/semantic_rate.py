"""The semantic phase's chunks/s on a real log, with the default embedder (MiniLM): what `keyword_only_mb` is set from.

    nice -n 15 python bench/semantic_rate.py [--log /var/log/dpkg.log] [--mb 6] [--floor-chunks 256] [--max-seconds S]

The log (a real one; repeated to `--mb` MB when it is smaller) is indexed in a fresh library with every file given
vectors (keyword_only_mb=0). The keyword phase is timed apart from the semantic phase (Library.sync(wait=False),
then wait_for_embeddings). Floor, same process: bare `encode` of the same work - the library's own embedder (the
"minilm" setting: MiniLM int8 in onnxruntime) called once on the windows the phase embeds for the first
`--floor-chunks` chunks (a chunk past 256 word pieces gets one vector per window, up to MAX_WINDOWS; a 512-word
log chunk is ~14 windows, so 8). Also printed, for comparison with the figure before: the old floor, sentence-
transformers MiniLM on the same chunk texts cut at 256 word pieces (one window per chunk, a fraction of the work).
Prints chunks, MB, chunks per MB, windows per chunk, chunks/s of the phase and the floors, the ratios, and the MB
of log whose semantic phase takes 10 and 30 minutes at the measured rate; saves JSON.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path

from _common import save

from desktop_app.core.embed.base import MAX_WINDOWS, make_embedder
from desktop_app.core.embed.minilm import MiniLMEmbedder
from desktop_app.core.library import Library
from desktop_app.core.settings import Settings


def write_log(source: Path, folder: Path, mb: float) -> Path:
    data = source.read_bytes()
    out = folder / "server.log"
    with out.open("wb") as f:
        written = 0
        while written < mb * 1_000_000:
            f.write(data)
            written += len(data)
    return out


def bare_encode_same_windows(texts: list[str]) -> dict[str, float]:
    """The floor: the phase's embedder (the "minilm" setting) encoding exactly the windows the phase embeds for
    `texts`, in one call (it batches by length itself)."""
    embedder = make_embedder("minilm")
    embedder.embed(["warm up"])
    windows = [w for text in texts for w in embedder.windows(text)[:MAX_WINDOWS]]  # type: ignore[attr-defined]
    t = time.perf_counter()
    embedder.embed(windows)
    return {"windows": len(windows), "chunks_per_s": len(texts) / (time.perf_counter() - t)}


def torch_truncated(texts: list[str]) -> float:
    """The floor before: sentence-transformers MiniLM on the chunk texts in batches of 32, each cut at 256 word
    pieces (one window per chunk). Chunks/s."""
    embedder = MiniLMEmbedder()
    embedder.embed(["warm up"])
    t = time.perf_counter()
    for i in range(0, len(texts), 32):
        embedder.embed(texts[i:i + 32])
    return len(texts) / (time.perf_counter() - t)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--log", default="/var/log/dpkg.log")
    ap.add_argument("--mb", type=float, default=6.0)
    ap.add_argument("--floor-chunks", type=int, default=256)
    ap.add_argument("--max-seconds", type=float, default=0, help="semantic phase time limit (0: none)")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="trove-semrate-"))
    try:
        folder = tmp / "logs"
        folder.mkdir()
        log = write_log(Path(args.log), folder, args.mb)
        size_mb = log.stat().st_size / 1_000_000
        lib = Library(home=tmp / "home", settings=Settings(embedder="minilm", keyword_only_mb=0))
        try:
            lib.add_folder(folder)
            t0 = time.perf_counter()
            lib.sync(wait=False)
            keyword_s = time.perf_counter() - t0
            chunks = lib.store.count_pending()
            t1 = time.perf_counter()
            lib.wait_for_embeddings(args.max_seconds or None)  # the rate then counts the chunks done by then
            semantic_s = time.perf_counter() - t1
            left = lib.store.count_pending()
            rows = lib.store.chunk_rows(list(range(1, args.floor_chunks + 1)))
            texts = [rows[i].text for i in sorted(rows)]
        finally:
            lib.close()
        rate = (chunks - left) / semantic_s
        floor = bare_encode_same_windows(texts)
        old_floor = torch_truncated(texts)
        per_mb = chunks / size_mb
        data = {
            "log": args.log, "log_mb": round(size_mb, 2), "chunks": chunks, "chunks_left": left,
            "chunks_per_mb": round(per_mb, 1), "keyword_s": round(keyword_s, 2), "semantic_s": round(semantic_s, 1),
            "semantic_chunks_per_s": round(rate, 2), "floor_chunks": len(texts),
            "floor_windows_per_chunk": round(floor["windows"] / len(texts), 2),
            "floor_bare_encode_same_windows_chunks_per_s": round(floor["chunks_per_s"], 2),
            "ratio_to_floor": round(rate / floor["chunks_per_s"], 3),
            "old_floor_torch_truncated_chunks_per_s": round(old_floor, 2),
            "ratio_to_old_floor": round(rate / old_floor, 3),
            "mb_for_10_min": round(600 * rate / per_mb, 1), "mb_for_30_min": round(1800 * rate / per_mb, 1),
            "loadavg_1m_at_end": round(os.getloadavg()[0], 2),
        }
        for key, value in data.items():
            print(f"{key:32} {value}")
        save("semantic_rate", data, args.out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()

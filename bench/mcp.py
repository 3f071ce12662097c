"""`trove mcp` against the same search in-process: what the protocol costs an assistant per call.

    python bench/mcp.py                          # 1500 passages, 60 queries
    python bench/mcp.py --docs 5000 --json bench/results/mcp_5000.json

The library is built once through the real path (files on disk, Library.sync, MiniLM vectors) from generated
documents (a fixed vocabulary, seeded: two short paragraphs each, one passage per document) and cached under
--work; later runs reuse it (an interrupted build resumes). The vector phase is the slow part of the build: about
1.5 passages a second with MiniLM on the loaded 2-core machine of the recorded run, so the default is 1500.

Measured query by query, each query in-process and over stdio (one after the other, never at once, so both meet
the same load; which goes first alternates, as the second finds the query's pages cached; the two must return the
same passages in the same order):
  - in-process: `Library.search(query, top_k=10)` (hybrid), after a warm-up: p50 / p95 ms;
  - over stdio: `trove mcp` started by the MCP SDK's client (a new process, as a desktop app starts it), then
    the `search` tool with k=10: round-trip p50 / p95 ms, and the ratio to in-process;
  - start to first answer: from launching the process to the first `search` result (Python start, imports, the
    library open, the embedder load, the first query), and to the tool list.
The machine's load average is recorded with the figures: on a shared machine they are indicative.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path

from _common import ROOT, percentile, save

# This file is bench/mcp.py and its folder is first on sys.path: without it there, `import mcp` is the SDK.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

K = 10
WORDS = ("harbour lantern copper meadow glacier orchard ledger quarry beacon thistle falcon cedar marble ember "
         "tundra saffron pylon granary compass lagoon velvet bramble cobalt harvest turbine archive mosaic prairie "
         "anchor cavern dune estuary fjord grove heron isthmus juniper kiln lichen mangrove nebula obsidian "
         "pelican quartz reef sierra tannery umber valley willow yarrow zephyr budget contract invoice warranty "
         "schedule protocol sample reagent enzyme protein ledger audit policy tenant lease turbine sensor circuit "
         "voltage bridge tunnel railway freight cargo vessel pilot crew engine piston gasket valve boiler furnace "
         "recipe flour yeast oven dough crust pastry butter sugar honey vinegar pepper garlic onion tomato basil"
         ).split()


def sentence(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(8, 16))]
    return " ".join(words).capitalize() + "."


def build(work: Path, n_docs: int) -> Path:
    """The cached library home (documents written and indexed with MiniLM vectors on the first run)."""
    from desktop_app.core.library import Library

    home, docs, marker = work / "home", work / "docs", work / "built.json"
    if marker.is_file() and json.loads(marker.read_text())["docs"] == n_docs:
        return home
    rng = random.Random(46)
    docs.mkdir(parents=True, exist_ok=True)
    home.mkdir(parents=True, exist_ok=True)
    (home / "settings.json").write_text(json.dumps({"embedder": "minilm"}), encoding="utf-8")
    for i in range(n_docs):
        paragraphs = [" ".join(sentence(rng) for _ in range(rng.randint(5, 9))) for _ in range(2)]
        (docs / f"doc{i:05d}.txt").write_text("\n\n".join(paragraphs), encoding="utf-8")
    started = time.perf_counter()
    with Library(home=home) as library:
        library.add_folder(docs)
        library.sync()
        library.wait_for_embeddings(timeout=3600)
        stats = library.stats()
    marker.write_text(json.dumps({"docs": n_docs, "chunks": stats["chunks"], "embedded": stats["chunks_embedded"],
                                  "build_s": round(time.perf_counter() - started, 1)}), encoding="utf-8")
    return home


def queries(n: int) -> list[str]:
    rng = random.Random(4646)
    return [" ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 5))) for _ in range(n)]


def ms_stats(seconds: list[float]) -> dict:
    ms = [s * 1000 for s in seconds]
    return {"n": len(ms), "p50_ms": round(percentile(ms, 50), 2), "p95_ms": round(percentile(ms, 95), 2)}


def measure(home: Path, texts: list[str], warm: int) -> tuple[dict, dict]:
    """In-process and over-stdio search, query by query: the same query in-process, then through the server, so
    both meet the same machine load (never at the same time). Returns (in-process, stdio) figures."""
    import anyio
    from mcp import Client, StdioServerParameters

    from desktop_app.core.library import Library

    params = StdioServerParameters(command=sys.executable, args=["-m", "desktop_app", "--home", str(home), "mcp"],
                                   env={"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "PYTHONPATH": str(ROOT)},
                                   cwd=str(ROOT))

    async def run(library: Library) -> tuple[dict, dict]:
        launched = time.perf_counter()
        async with Client(params, read_timeout_seconds=600) as client:
            await client.list_tools()
            to_tools = time.perf_counter() - launched
            first = await client.call_tool("search", {"query": texts[0], "k": K})
            to_answer = time.perf_counter() - launched
            assert not first.is_error and first.structured_content["results"], first.content
            for text in texts[:warm]:
                library.search(text, top_k=K)
                await client.call_tool("search", {"query": text, "k": K})
            local, remote = [], []
            for i, text in enumerate(texts):
                # whichever runs second finds the query's pages in the OS cache: alternate which goes first
                for side in ("local", "remote") if i % 2 == 0 else ("remote", "local"):
                    t = time.perf_counter()
                    if side == "local":
                        hits = library.search(text, top_k=K)
                        local.append(time.perf_counter() - t)
                    else:
                        result = await client.call_tool("search", {"query": text, "k": K})
                        remote.append(time.perf_counter() - t)
                assert not result.is_error, result.content
                served = [r["passage_id"] for r in result.structured_content["results"]]
                assert served == [h.metadata["chunk_id"] for h in hits], "the server ranked differently"
        return ms_stats(local), {**ms_stats(remote), "start_to_tool_list_s": round(to_tools, 2),
                                 "start_to_first_answer_s": round(to_answer, 2)}

    with Library(home=home) as library:
        return anyio.run(run, library)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, default=1500, help="generated documents (one passage each)")
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument("--warm", type=int, default=10)
    parser.add_argument("--work", default=str(Path.home() / ".cache" / "trove-bench" / "mcp"))
    parser.add_argument("--json", help="where to save (default bench/results/mcp.json)")
    args = parser.parse_args()
    work = Path(args.work) / f"docs{args.docs}"
    home = build(work, args.docs)
    built = json.loads((work / "built.json").read_text())
    print(f"library: {built['chunks']} passages ({built['embedded']} with vectors), built in {built['build_s']} s")
    texts = queries(args.queries)
    load_before = os.getloadavg()
    local, remote = measure(home, texts, args.warm)
    print(f"in-process Library.search: p50 {local['p50_ms']} ms, p95 {local['p95_ms']} ms")
    print(f"trove mcp over stdio: p50 {remote['p50_ms']} ms, p95 {remote['p95_ms']} ms; "
          f"start to tool list {remote['start_to_tool_list_s']} s, "
          f"to first answer {remote['start_to_first_answer_s']} s")
    ratio = {"p50": round(remote["p50_ms"] / local["p50_ms"], 2), "p95": round(remote["p95_ms"] / local["p95_ms"], 2)}
    print(f"ratio stdio / in-process: p50 {ratio['p50']}x, p95 {ratio['p95']}x")
    save("mcp", {"command": "python " + " ".join(sys.argv), "library": built, "k": K, "mode": "hybrid",
                 "in_process": local, "stdio": remote, "ratio_stdio_to_in_process": ratio,
                 "load_average_before": [round(x, 2) for x in load_before],
                 "load_average_after": [round(x, 2) for x in os.getloadavg()],
                 "note": "a shared 2-core machine under other engineers' load: figures are indicative"}, args.json)


if __name__ == "__main__":
    main()

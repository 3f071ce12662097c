"""Peak memory of each chat model, measured: load it and answer one grounded question, in a fresh process.

    .venv/bin/python bench/model_ram.py [--model bundled|ID|GGUF ...] [--n-ctx 4096] [--prompt-tokens 2048]

Each model runs in its own child process (so one model's pages never count for the next): the child imports
llama.cpp, reads its resident set (the baseline), loads the model at the app's context size and answers a
question over about `--prompt-tokens` tokens of a real article (the chat's passage budget), then reads the
peak resident set the kernel recorded (VmHWM: weights mapped and touched, KV cache, compute buffers). The model's
need is peak − baseline; the catalog's `measured_ram_bytes` come from this. Writes bench/results/model_ram.json.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from _common import RESULTS, save

ARTICLES = Path(__file__).resolve().parent / "data" / "qa-final" / "articles"


def status_bytes(field: str) -> int:
    """A memory line of /proc/self/status (VmRSS, VmHWM), in bytes."""
    for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no {field} in /proc/self/status")


def child(model: str, n_ctx: int, prompt_tokens: int, models_dir: Path, threads: int) -> dict:
    """Runs in the child: load, answer once, report the resident set before and at its peak."""
    from qa import resolve_model

    from desktop_app.core.chat.runtime.llama import LlamaCppRuntime

    path = resolve_model(model, models_dir)
    import llama_cpp  # noqa: F401  (its library is part of the baseline, not of the model)

    baseline = status_bytes("VmRSS")
    runtime = LlamaCppRuntime(path, n_ctx=n_ctx, n_threads=threads)
    started = time.perf_counter()
    text = " ".join(p.read_text(encoding="utf-8") for p in sorted(ARTICLES.iterdir())[:3])
    words = text.split()
    while runtime.count_tokens(" ".join(words)) > prompt_tokens:
        words = words[: int(len(words) * 0.9)]
    passage = " ".join(words)
    messages = [{"role": "system", "content": "Answer from the passage only, in a few words."},
                {"role": "user", "content": f"Passage:\n{passage}\n\nQuestion: What is this passage about?"}]
    gen = runtime.generate(messages, max_tokens=32, temperature=0.0)
    seconds = time.perf_counter() - started
    peak = status_bytes("VmHWM")
    runtime.close()
    return {"model": path.stem, "file_bytes": path.stat().st_size, "n_ctx": n_ctx, "prompt_tokens": gen.prompt_tokens,
            "generated_tokens": gen.tokens, "baseline_rss_bytes": baseline, "peak_rss_bytes": peak,
            "model_bytes": peak - baseline, "load_and_answer_s": seconds}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", action="append", default=[], metavar="bundled|ID|GGUF")
    ap.add_argument("--n-ctx", type=int, default=4096, help="context size (the app's default, Settings.n_ctx)")
    ap.add_argument("--prompt-tokens", type=int, default=2048, help="passage tokens (Settings.max_context_tokens)")
    ap.add_argument("--models-dir", default=str(Path.home() / ".cache" / "trove-bench" / "models"))
    ap.add_argument("--threads", type=int, default=1,
                    help="llama.cpp threads (1: on a shared machine more threads spin waiting for each other)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--out", default=str(RESULTS / "model_ram.json"))
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.n_ctx, args.prompt_tokens, Path(args.models_dir), args.threads)))
        return 0
    rows = []
    for model in args.model or ["bundled", "qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b"]:
        out = subprocess.run([sys.executable, __file__, "--child", model, "--n-ctx", str(args.n_ctx),
                              "--prompt-tokens", str(args.prompt_tokens), "--models-dir", args.models_dir,
                              "--threads", str(args.threads)],
                             capture_output=True, text=True, check=True)
        row = json.loads(out.stdout.strip().splitlines()[-1])
        rows.append(row)
        print(f"{row['model']:<48} file {row['file_bytes'] / 1e6:7.0f} MB  "
              f"baseline {row['baseline_rss_bytes'] / 1e6:5.0f} MB  peak {row['peak_rss_bytes'] / 1e6:6.0f} MB  "
              f"model {row['model_bytes'] / 1e6:6.0f} MB  "
              f"({row['prompt_tokens']} prompt tokens, {row['load_and_answer_s']:.1f} s)", flush=True)
    save("model_ram", {"command": " ".join(sys.argv), "loadavg_1m_at_end": os.getloadavg()[0], "results": rows},
         args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Run a full sync of FOLDER into HOME with a deliberately slow copy of the hash embedder (same model id),
so a test can SIGKILL it while vectors are being written. Usage: python slow_embed_run.py HOME FOLDER"""

import sys
import time

from desktop_app.core.embed.base import HashEmbedder
from desktop_app.core.library import Library
from desktop_app.core.settings import Settings


class SlowHashEmbedder(HashEmbedder):
    def embed(self, texts):
        time.sleep(0.3)
        return super().embed(texts)


def report_rounds(event) -> None:
    """Print each committed embedding round's running total (the worker reports a round after its commit)."""
    if getattr(event, "phase", "") == "semantic":
        print(f"embedded {event.chunks_embedded}", flush=True)


if __name__ == "__main__":
    home, folder = sys.argv[1], sys.argv[2]
    with Library(home, settings=Settings(embedder="hash"), embedder=SlowHashEmbedder()) as lib:
        lib.embed_worker.batch = 64
        lib.subscribe(report_rounds)
        lib.add_folder(folder)
        lib.sync(wait=True)

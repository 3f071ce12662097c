"""What `trove index HOME FOLDER` does (Library.sync, waiting for vectors), with an embedder slowed down so a test
can kill -9 it at chosen points of either phase. Usage: python -m tests.support.index_runner HOME FOLDER SLEEP

The embedder is the hash embedder (same model id) sleeping SLEEP seconds per model batch; rounds are a few
batches, so vectors are committed many times during the run. The keyword phase's write batches are cut to 8 files
(256 in the app): on a fast machine one batch would hold most of the folder, leaving the keyword phase few points
to be killed at; with 8 a kill still lands inside a batch, between one file's SAVEPOINT and the next. Each
committed batch is followed by a pause of BATCH_PAUSE seconds, so how many files a kill overshoots its target by
does not grow with the machine's speed (a fast machine otherwise finished the keyword phase before the test had
killed it 8 times).
"""

from __future__ import annotations

import sys
import time

from desktop_app.core.embed.base import HashEmbedder
from desktop_app.core.index import indexer
from desktop_app.core.library import Library
from desktop_app.core.settings import Settings

BATCH_PAUSE = 0.01


class SlowHashEmbedder(HashEmbedder):
    """The hash embedder, `sleep` seconds slower per call."""

    def __init__(self, sleep: float) -> None:
        super().__init__()
        self.sleep = sleep

    def embed(self, texts):
        time.sleep(self.sleep)
        return super().embed(texts)


def paused(close):
    """`_Batches.close`, then a pause."""

    def close_then_pause(self, exc=None):
        close(self, exc)
        time.sleep(BATCH_PAUSE)

    return close_then_pause


def main(home: str, folder: str, sleep: float) -> None:
    indexer.BATCH_FILES = 8
    indexer._Batches.close = paused(indexer._Batches.close)  # type: ignore[method-assign]
    settings = Settings(embedder="hash", chunk_size=64, chunk_overlap=8, min_chunk_size=10, embed_batch_size=8)
    with Library(home, settings=settings, embedder=SlowHashEmbedder(sleep)) as lib:
        lib.add_folder(folder)
        lib.sync(wait=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], float(sys.argv[3]))

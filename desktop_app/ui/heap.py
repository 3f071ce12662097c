"""Keeps Python's cyclic garbage collector from freezing the window.

A full (generation 2) collection walks every tracked object while holding the GIL, on whichever thread
triggers it. Once torch, transformers and llama.cpp's bindings are loaded that is millions of objects,
and a collection took 0.2 to 0.8 s here: the event loop stalls for that long even though no work runs on
the UI thread. Those objects live as long as the process, so after a heavy load we move everything alive
into the permanent generation (gc.freeze), which full collections skip.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

from desktop_app.core.log import get_logger

log = get_logger("ui")


def freeze_long_lived(reason: str) -> int:
    """Exempt every object alive now from future collections. Returns how many objects are frozen in all."""
    gc.freeze()
    frozen = gc.get_freeze_count()
    log.info("froze %d long-lived objects (%s)", frozen, reason)
    return frozen


@contextmanager
def collector_paused(reason: str) -> Iterator[None]:
    """No automatic collections while a heavy library loads, then freeze what it left alive.

    Importing torch and loading a model allocate so many objects that the collector runs full passes over
    an ever larger heap again and again (measured: 0.1, 0.2, 0.3, 0.4, 0.5, 0.9 s, each pausing every
    thread). Pausing it for the load and freezing afterwards replaces all of that with nothing.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
        freeze_long_lived(reason)

"""Ending the process when a background phase cannot be stopped.

An OCR or semantic step inside native code (onnxruntime building a session or reading a dense page, the embedder's
matrix code) cannot be interrupted, and the interpreter's teardown under such a thread aborts ("terminate called
without an active exception", exit 134). When `Library.close()` reports a phase still running, the CLI and the
window end the process with `end_now`: what was committed stays, the atexit handlers (the extraction worker's
shutdown, the log file) run, and SQLite rolls back the step in flight, which is done again on the next start.
"""

from __future__ import annotations

import atexit
import os
import sys
from typing import NoReturn


def end_now(rc: int) -> NoReturn:
    """Run the atexit handlers, flush stdout and stderr, and end with `rc` without the interpreter's teardown."""
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):  # a closed or absent stream (a windowed build's sink)
            pass
    os._exit(rc)

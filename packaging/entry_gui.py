"""Entry point of the windowed executables (Windows `trove-gui.exe`, the macOS `Trove.app`).

Started without arguments (a double-click, the Start menu, Finder) it opens the window; with arguments it is
the same command line as `trove`.
"""

import multiprocessing
import sys

if __name__ == "__main__":
    # Before anything else: a spawned extraction worker re-runs this executable (see entry.py).
    if sys.argv[1:2] == ["--trove-extract-worker"]:  # the extraction sandbox's worker (core/ingest/sandbox.py)
        from desktop_app.core.ingest.sandbox_worker import main as extraction_worker

        sys.exit(extraction_worker(sys.argv[2:]))
    multiprocessing.freeze_support()

    from desktop_app.cli import main

    # Old macOS versions pass a process serial number when Finder launches an app; it is not ours to parse.
    args = [arg for arg in sys.argv[1:] if not arg.startswith("-psn_")]
    sys.exit(main(args or ["gui"]))

"""Entry point of the frozen `trove` executable: the same command line as `python -m desktop_app`."""

import multiprocessing
import sys

if __name__ == "__main__":
    # The extraction sandbox (desktop_app/core/ingest/sandbox.py) starts its worker with multiprocessing's "spawn",
    # which in a frozen app re-runs this executable with `--multiprocessing-fork ...` (and the resource tracker
    # with `-c ...`). freeze_support() recognises those arguments, runs the child's code and exits; PyInstaller's
    # runtime hook makes it do so on Linux and macOS too, not only on Windows. It comes before the CLI is imported
    # so a worker does not load the command line (and Qt-free but sizeable modules) it never uses.
    if sys.argv[1:2] == ["--trove-extract-worker"]:  # the extraction sandbox's worker (core/ingest/sandbox.py)
        from desktop_app.core.ingest.sandbox_worker import main as extraction_worker

        sys.exit(extraction_worker(sys.argv[2:]))
    multiprocessing.freeze_support()

    from desktop_app.cli import main

    sys.exit(main())

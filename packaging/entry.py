"""Entry point of the frozen `trove` executable: the same command line as `python -m desktop_app`."""

import multiprocessing
import sys

from desktop_app.cli import main

if __name__ == "__main__":
    # A frozen app re-executes itself for worker processes; this lets those children start cleanly.
    multiprocessing.freeze_support()
    sys.exit(main())

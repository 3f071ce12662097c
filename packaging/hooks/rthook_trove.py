"""PyInstaller runtime hook: runs before Trove's own code in the frozen app.

- Nothing is fetched from a model hub: the embedding models, the OCR models and the GGUF ship inside the bundle,
  and no Hugging Face library is in it. The variables are kept as a guard for anything that might still read
  them (the CLI sets them too); setting them here also covers code imported before `main()` runs.
- A windowed executable (Windows `trove-gui.exe`, the macOS .app) starts with sys.stdout/sys.stderr set to
  None; progress bars and logging would then fail on `.write`, so they get a sink instead.
"""

import os
import sys

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")

if sys.stdout is None:
    sys.stdout = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - lives as long as the process
if sys.stderr is None:
    sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115

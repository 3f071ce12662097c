"""The sample library: the bundled documents copied somewhere writable, so `trove gui --sample` just works."""

from __future__ import annotations

import shutil
from pathlib import Path

from desktop_app.core.library_tools import default_home
from desktop_app.resources import sample_docs_dir

SAMPLE_FOLDER = "sample-documents"
SAMPLE_HOME = "sample-library"


def sample_home() -> Path:
    """Where `trove gui --sample` keeps its own library when no --home is given (beside the user's, never in it)."""
    return default_home() / SAMPLE_HOME


def install_sample_docs(home: Path) -> Path:
    """Copy the bundled sample documents into `home/sample-documents` (the bundle may be read-only, e.g. frozen).

    Files the user changed or deleted there are restored; other files they added are left alone.
    """
    source = sample_docs_dir()
    if not source.is_dir():
        raise FileNotFoundError(f"The sample documents are missing from this installation: {source}")
    target = Path(home) / SAMPLE_FOLDER
    target.mkdir(parents=True, exist_ok=True)
    for item in sorted(source.iterdir()):
        if item.is_file():
            dest = target / item.name
            if not dest.exists() or dest.stat().st_size != item.stat().st_size:
                shutil.copy2(item, dest)
    return target

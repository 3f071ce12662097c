"""Finding the files a model package installed, without importing the package (some import heavy things)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from desktop_app.core.errors import UnavailableError


def package_dir(module: str, distribution: str) -> Path:
    """The folder of the installed package `module` (a frozen app ships it as data under the same name).

    Raises UnavailableError naming the pip `distribution` when it is not installed.
    """
    frozen = getattr(sys, "_MEIPASS", None)
    if frozen and (Path(frozen) / module).is_dir():
        return Path(frozen) / module
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        raise UnavailableError(f"The embedding model package {distribution} is not installed.")
    return Path(next(iter(spec.submodule_search_locations)))


def model_file(module: str, distribution: str, relative: str) -> Path:
    """A file inside an installed model package; UnavailableError if the package or the file is missing."""
    path = package_dir(module, distribution) / relative
    if not path.is_file():
        raise UnavailableError(f"The embedding model file {relative} is missing from {path.parent}.")
    return path

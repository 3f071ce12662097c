"""Where Trove keeps its data: TROVE_HOME, else the platform's user data dir."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP_NAME = "Trove"


def default_home() -> Path:
    """The library home: $TROVE_HOME if set, else the platform's user data dir."""
    env = os.environ.get("TROVE_HOME")
    if env:
        return Path(env).expanduser()
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def resolve_home(home: str | os.PathLike[str] | None) -> Path:
    """The home to use for an explicit argument (None falls back to default_home())."""
    path = Path(home).expanduser() if home is not None else default_home()
    path.mkdir(parents=True, exist_ok=True)
    return path.resolve()

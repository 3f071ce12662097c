"""Where Trove keeps its data: TROVE_HOME, else the platform's user data dir."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import platformdirs

APP_NAME = "Trove"


def default_home() -> Path:
    """The library home: $TROVE_HOME if set, else the platform's user data dir."""
    env = os.environ.get("TROVE_HOME")
    if env:
        return Path(env).expanduser()
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def cache_dir() -> Path:
    """Where Trove keeps files it can always rebuild (unpacked model weights): $TROVE_CACHE, else the platform's
    user cache dir. Not created here; whoever writes to it does, and copes when it cannot."""
    env = os.environ.get("TROVE_CACHE")
    if env:
        return Path(env).expanduser()
    return Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False))


def resolve_home(home: str | os.PathLike[str] | None) -> Path:
    """The home to use for an explicit argument (None falls back to default_home()), made private (0700)."""
    path = Path(home).expanduser() if home is not None else default_home()
    path.mkdir(parents=True, exist_ok=True)
    make_private(path)
    return path.resolve()


PRIVATE_DIR, PRIVATE_FILE = 0o700, 0o600


def make_private(path: Path) -> None:
    """Take group and other access away from a folder (0700) or file (0600) of this user's library: the index
    holds every document's text, settings may name servers. Left alone when another user owns it or on Windows
    (where the user profile's ACL already keeps others out)."""
    if os.name != "posix":
        return
    try:
        st = os.stat(path)
        wanted = PRIVATE_DIR if path.is_dir() else PRIVATE_FILE
        if st.st_uid == os.getuid() and st.st_mode & 0o777 != wanted:
            os.chmod(path, wanted)
    except OSError:
        pass  # a read-only or foreign file system: the library still opens


def create_private(path: Path) -> None:
    """Create an empty file readable by this user only, unless it exists (then make_private it)."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE))
    except FileExistsError:
        make_private(path)
    except OSError:
        pass  # whoever opens it next reports what is wrong


def frozen_root() -> Path | None:
    """The data folder of a frozen (PyInstaller) app, or None when running from source."""
    root = getattr(sys, "_MEIPASS", None)
    return Path(root) if root else None


def package_dir(package: str) -> Path | None:
    """Where an installed package's files are, found without importing it (model packages import heavy things):
    `<frozen root>/<package>` in a frozen app, else the package's folder in site-packages. None when absent."""
    root = frozen_root()
    if root is not None and (root / package).is_dir():
        return root / package
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0])

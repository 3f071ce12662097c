"""Before the window opens on Linux: can Qt's X11 (xcb) platform plugin load? If not, which packages are missing.

Qt 6.5+ needs xcb and xkb libraries that a fresh Debian or Ubuntu desktop may not have (libxcb-cursor0 most
often); Qt then aborts with "Could not load the Qt platform plugin "xcb"", naming none of them. `xcb_problem()`
runs `ldd` on the plugin (it lists every library the plugin needs, transitively) and turns each "not found" into
the package that provides it, as one line to print. It first simply loads the plugin (what Qt does next anyway),
so a system that has everything pays only that.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

# soname -> Debian/Ubuntu package (what `dpkg -S` says on Debian 12; the same names on Ubuntu 22.04+)
PACKAGES = {
    "libxcb-cursor.so.0": "libxcb-cursor0", "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-util.so.1": "libxcb-util1", "libxcb-image.so.0": "libxcb-image0",
    "libxcb-keysyms.so.1": "libxcb-keysyms1", "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-render-util.so.0": "libxcb-render-util0", "libxcb-render.so.0": "libxcb-render0",
    "libxcb-shm.so.0": "libxcb-shm0", "libxcb-sync.so.1": "libxcb-sync1", "libxcb-xfixes.so.0": "libxcb-xfixes0",
    "libxcb-shape.so.0": "libxcb-shape0", "libxcb-xkb.so.1": "libxcb-xkb1", "libxcb.so.1": "libxcb1",
    "libX11-xcb.so.1": "libx11-xcb1", "libX11.so.6": "libx11-6", "libxkbcommon.so.0": "libxkbcommon0",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0", "libGL.so.1": "libgl1", "libEGL.so.1": "libegl1",
    "libfontconfig.so.1": "libfontconfig1", "libfreetype.so.6": "libfreetype6", "libglib-2.0.so.0": "libglib2.0-0",
    "libgthread-2.0.so.0": "libglib2.0-0", "libdbus-1.so.3": "libdbus-1-3",
}

Ldd = Callable[[Path], str]
Loader = Callable[[Path], object]


def missing_libraries(ldd_output: str) -> list[str]:
    """The sonames `ldd` reports as "not found", in its order, each once."""
    found: list[str] = []
    for line in ldd_output.splitlines():
        name, arrow, where = line.strip().partition("=>")
        if arrow and where.strip().startswith("not found") and name.strip() not in found:
            found.append(name.strip())
    return found


def _ldd(path: Path) -> str:
    ldd = shutil.which("ldd")
    if ldd is None:
        return ""
    try:
        return subprocess.run([ldd, str(path)], capture_output=True, text=True, timeout=30, check=False).stdout
    except (OSError, subprocess.SubprocessError):
        return ""


def xcb_plugin() -> Path | None:
    """Qt's xcb platform plugin in this PySide6 (None when there is none)."""
    from PySide6.QtCore import QLibraryInfo

    plugin = Path(QLibraryInfo.path(QLibraryInfo.LibraryPath.PluginsPath)) / "platforms" / "libqxcb.so"
    return plugin if plugin.is_file() else None


def wants_xcb(environ: dict[str, str] | None = None) -> bool:
    """Whether Qt will use the xcb platform: asked for, or the default on Linux outside a Wayland session."""
    env = os.environ if environ is None else environ
    if not sys.platform.startswith("linux"):
        return False
    platform = env.get("QT_QPA_PLATFORM", "").strip().lower()
    if platform:
        return platform.split(";")[0].split(":")[0] == "xcb"
    return not env.get("WAYLAND_DISPLAY")


def _load(path: Path) -> object:
    return ctypes.CDLL(str(path))


def xcb_problem(plugin: Path | None, ldd: Ldd | None = None, load: Loader | None = None) -> str | None:
    """One line naming what the xcb plugin lacks and the apt-get command that installs it, or None if it loads."""
    if plugin is None:
        return None
    try:
        (load or _load)(plugin)
        return None
    except OSError as exc:
        failure = str(exc)
    missing = missing_libraries((ldd or _ldd)(plugin))
    if not missing:
        return f"the window cannot open: Qt's X11 platform plugin does not load ({failure})"
    packages = sorted({PACKAGES.get(name, "") for name in missing} - {""})
    unknown = [name for name in missing if name not in PACKAGES]
    line = (f"the window cannot open: Qt's X11 platform plugin needs {', '.join(missing)}, missing on this system."
            + (f" On Debian or Ubuntu: sudo apt-get install {' '.join(packages)}" if packages else ""))
    if unknown:
        line += f" (find the package{'s' if len(unknown) > 1 else ''} for {', '.join(unknown)} in your distribution)"
    return line

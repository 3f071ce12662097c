"""Data from other desktops is data: which paths a search result may hand to the operating system to open.

In a team library a result's path was written by whichever desktop indexed it. Opening it here is safe only if it
names a document in one of THIS machine's own folders: after resolving links it must lie under a folder root,
not be a network (UNC) path, and not be a program or a script the desktop would run instead of show.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from pathlib import Path, PurePosixPath, PureWindowsPath

# Types a desktop runs (or installs, or follows as a launcher) rather than shows.
EXECUTABLE_SUFFIXES = frozenset({
    ".exe", ".com", ".bat", ".cmd", ".scr", ".pif", ".cpl", ".msi", ".msp", ".msc", ".hta", ".jar", ".jse",
    ".js", ".vbs", ".vbe", ".wsf", ".wsh", ".ps1", ".psm1", ".reg", ".lnk", ".url", ".inf", ".dll", ".sys",
    ".application", ".appref-ms", ".gadget", ".desktop", ".sh", ".bash", ".zsh", ".csh", ".command", ".tool",
    ".app", ".pkg", ".dmg", ".run", ".bin", ".appimage", ".deb", ".rpm", ".apk", ".action", ".workflow",
    ".scpt", ".terminal", ".py", ".pyw", ".pl", ".rb", ".elf", ".out", ".so", ".dylib",
})
_PROGRAM_MAGIC = (b"\x7fELF", b"MZ", b"#!", b"\xcf\xfa\xed\xfe", b"\xfe\xed\xfa\xcf", b"\xca\xfe\xba\xbe")


def is_unc(path: str) -> bool:
    """A network path (\\\\server\\share, //server/share), which would make the desktop connect to that server."""
    return path.startswith(("\\\\", "//")) or bool(PureWindowsPath(path).drive.startswith("\\\\"))


def is_under(path: str, roots: Sequence[str]) -> bool:
    """Whether `path` (already resolved) is one of `roots` (resolved too) or below one."""
    for root in roots:
        base = os.path.realpath(root)
        if path == base or path.startswith(base.rstrip(os.sep) + os.sep):
            return True
    return False


def is_program(path: str) -> bool:
    """A type the desktop would run: a known program/script suffix, or an executable file that starts like one."""
    if PurePosixPath(path.lower()).suffix in EXECUTABLE_SUFFIXES:
        return True
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode) or not info.st_mode & 0o111:
            return False
        with open(path, "rb") as head:
            return head.read(4).startswith(_PROGRAM_MAGIC)
    except OSError:
        return False


def refusal(path: str, roots: Sequence[str]) -> str | None:
    """Why Trove will not open `path` from this machine's folders `roots` (None: it may)."""
    name = Path(path).name or path
    if is_unc(path):
        return f"Trove does not open {name}: its path is on a network server ({path}), not in your folders."
    resolved = os.path.realpath(path)
    if not is_under(resolved, roots):
        where = f" (it leads to {resolved})" if resolved != os.path.abspath(path) else ""
        return f"Trove does not open {name}: it is not in one of this computer's library folders{where}."
    if os.path.isdir(resolved):
        return None
    if is_program(resolved):
        return f"Trove does not open {name}: it is a program or script, which would run instead of being shown."
    return None


def folder_to_show(path: str, roots: Sequence[str]) -> str | None:
    """The folder holding a refused `path`, when that folder is one of this machine's own (safe to show)."""
    if is_unc(path):
        return None
    parent = os.path.dirname(os.path.realpath(path))
    return parent if is_under(parent, roots) and os.path.isdir(parent) else None

"""`trove gui` names the libraries (and the packages) Qt's X11 plugin lacks, in one line, before Qt aborts."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from desktop_app.ui.xcb_check import missing_libraries, wants_xcb, xcb_plugin, xcb_problem

ROOT = Path(__file__).resolve().parents[2]
LDD = """\tlinux-vdso.so.1 (0x00007ffd)
\tlibGL.so.1 => /lib/x86_64-linux-gnu/libGL.so.1 (0x00007f6d)
\tlibxcb-cursor.so.0 => not found
\tlibxcb-icccm.so.4 => not found
\tlibxcb-cursor.so.0 => not found
\tlibxcb-frobnicate.so.7 => not found
\tlibxcb.so.1 => /lib/x86_64-linux-gnu/libxcb.so.1 (0x00007f6d)
"""


def _no_load(path: Path) -> object:
    raise OSError(f"libxcb-cursor.so.0: cannot open shared object file: No such file or directory ({path.name})")


def test_not_found_lines_become_sonames_once_each():
    assert missing_libraries(LDD) == ["libxcb-cursor.so.0", "libxcb-icccm.so.4", "libxcb-frobnicate.so.7"]
    assert missing_libraries("\tlibc.so.6 => /lib/libc.so.6 (0x1)\n") == []


def test_the_line_names_the_libraries_and_the_apt_get_command(tmp_path):
    plugin = tmp_path / "libqxcb.so"
    line = xcb_problem(plugin, ldd=lambda _p: LDD, load=_no_load)
    assert line is not None and "\n" not in line
    assert "libxcb-cursor.so.0, libxcb-icccm.so.4, libxcb-frobnicate.so.7" in line
    assert "sudo apt-get install libxcb-cursor0 libxcb-icccm4" in line
    assert "libxcb-frobnicate.so.7 in your distribution" in line
    # a plugin that loads is no problem (ldd is not even asked); one that fails for another reason says why
    assert xcb_problem(plugin, ldd=lambda _p: LDD, load=lambda _p: None) is None
    other = xcb_problem(plugin, ldd=lambda _p: "", load=_no_load)
    assert other is not None and "does not load (libxcb-cursor.so.0: cannot open" in other


def test_xcb_is_checked_only_where_qt_will_use_it():
    if sys.platform.startswith("linux"):
        assert wants_xcb({"QT_QPA_PLATFORM": "xcb"}) and wants_xcb({})
        assert not wants_xcb({"QT_QPA_PLATFORM": "offscreen"}) and not wants_xcb({"WAYLAND_DISPLAY": "wayland-0"})
        assert wants_xcb({"QT_QPA_PLATFORM": "xcb:display=:1"})


def test_the_real_plugin_loads_here_with_the_packages_the_readme_names():
    plugin = xcb_plugin()
    assert plugin is not None and plugin.name == "libqxcb.so"
    assert xcb_problem(plugin) is None
    readme = (ROOT / "README.md").read_text()
    [line] = [ln for ln in readme.splitlines() if "apt-get install" in ln and "libxcb-cursor0" in ln]
    from desktop_app.ui.xcb_check import _ldd

    needed = {name.split("=>")[0].strip() for name in _ldd(plugin).splitlines() if "=>" in name}
    assert {"libxcb-cursor.so.0", "libxcb-icccm.so.4", "libxcb-keysyms.so.1"} <= needed
    for package in ("libxcb-cursor0", "libxcb-icccm4", "libxcb-keysyms1", "libxkbcommon-x11-0"):
        assert package in line.split()


def test_trove_gui_prints_the_line_and_exits_when_libraries_are_missing(tmp_path):
    code = ("import sys; from desktop_app.ui import xcb_check as x; from pathlib import Path\n"
            f"x._ldd = lambda p: {LDD!r}\n"
            "def _no(p): raise OSError('libxcb-cursor.so.0: cannot open shared object file')\n"
            "x._load = _no\n"
            "from desktop_app.cli import main\n"
            f"sys.exit(main(['--home', {str(tmp_path / 'home')!r}, 'gui']))\n")
    env = {**os.environ, "QT_QPA_PLATFORM": "xcb", "HF_HUB_OFFLINE": "1"}
    env.pop("WAYLAND_DISPLAY", None)
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 1, done.stderr
    lines = [ln for ln in done.stderr.splitlines() if ln.startswith("trove: ")]
    assert lines == [lines[0]] and "sudo apt-get install libxcb-cursor0 libxcb-icccm4" in lines[0]

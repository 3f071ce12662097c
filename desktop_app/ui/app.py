"""`trove gui`: create the application, the library and the window; run until the window closes."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication

from desktop_app.core.errors import KnownError
from desktop_app.core.library_tools import end_now
from desktop_app.core.log import get_logger
from desktop_app.resources import icon_path
from desktop_app.ui.crash import install_crash_notices

log = get_logger("ui")
STOP_SECONDS = 5.0  # at close: how long an OCR or semantic step gets to finish before the process just ends


def make_application() -> QApplication:
    """The QApplication (reused if one exists, as under pytest-qt), named so QSettings has a home."""
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setOrganizationName("Trove")
    app.setApplicationName("Trove")
    app.setDesktopFileName("trove")
    icon = icon_path()
    if icon.is_file():
        app.setWindowIcon(QIcon(str(icon)))
    return app


def _platform_problem() -> str | None:
    """Why Qt's X11 plugin would not load (the missing libraries and packages), before Qt aborts saying less."""
    from desktop_app.ui.xcb_check import wants_xcb, xcb_plugin, xcb_problem

    if QApplication.instance() is not None or not wants_xcb():
        return None
    return xcb_problem(xcb_plugin())


def run_gui(home: str | os.PathLike[str] | None = None, sample: bool = False, screenshot: str | None = None,
            query: str | None = None, ask: str | None = None, db: str | None = None, theme: str | None = None) -> int:
    """Open the Trove window. With `screenshot`, render it to that PNG (after `query`/`ask`) and return.

    `sample` opens a library of the bundled documents (its own home unless `home` is given). A
    screenshot with a query or a question and no `home` implies `sample`, so it always has something to show.
    `theme` is "system" (the default, or TROVE_THEME), "light" or "dark" (ui/theme.py).
    """
    from desktop_app.core.library import Library
    from desktop_app.ui.sample import sample_home
    from desktop_app.ui.window.main_window import MainWindow

    if screenshot and (query or ask) and home is None:
        sample = True  # something to show; a named home is shown as it is, never given the sample folder
    if sample and home is None:
        home = sample_home()
    problem = _platform_problem()
    if problem:
        print(f"trove: {problem}", file=sys.stderr)
        return 1
    app = make_application()
    from desktop_app.ui.theme import apply_theme

    apply_theme(app, theme)
    try:
        library = Library(home, db=db)
    except KnownError as exc:
        print(f"trove: {exc}", file=sys.stderr)
        return 1
    from desktop_app.ui.log_file import start_log_file

    start_log_file(library.home)  # Help → About says where
    window = MainWindow(library)
    undo_crash_hook = install_crash_notices(window.on_notice)  # a bug becomes a notice with details to copy
    rc = 0
    try:
        if sample:
            window.open_sample()
        window.show()
        if screenshot:
            window.resize(1400, 860)  # the same picture whatever size the last session left behind
            from desktop_app.ui.screenshot import ScreenshotScript

            script = ScreenshotScript(window, str(Path(screenshot).expanduser()), sample=sample, query=query, ask=ask)
            script.finished.connect(app.exit)
            script.start()
        rc = app.exec()
    finally:
        if not screenshot:  # a scripted run must not change the user's remembered layout
            window.save_layout()
        undo_crash_hook()
        window.shutdown()
        window.deleteLater()
        if not library.close(timeout=STOP_SECONDS):  # the teardown would abort under a thread in native code
            log.warning("an OCR or semantic step was still running %.0f s after the window closed: the process "
                        "ends without waiting for it (the step is done again on the next start)", STOP_SECONDS)
            end_now(rc)
    if window.restore_after_close:  # File → Restore…: verified and confirmed; put in place, then open again
        return _restore_and_reopen(library, window.restore_after_close, db=db, theme=theme)
    return rc


def _restore_and_reopen(library, path: str, **options) -> int:
    try:
        report = library.backups.restore(path)
    except KnownError as exc:
        print(f"trove: {exc}", file=sys.stderr)
        return 1
    log.warning("restored the backup %s; the replaced library is kept in %s", path, report.kept_aside)
    return run_gui(home=library.home, **options)

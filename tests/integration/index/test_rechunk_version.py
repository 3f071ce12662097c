"""A library chunked by another chunker version re-reads its files once; one chunked by this version does not."""

from __future__ import annotations

from desktop_app.core.ingest.chunking import CHUNKER_VERSION
from desktop_app.core.library import Library
from desktop_app.core.settings import Settings

THAI = "ระบบเก็บเอกสารแบบถาวรและค้นหาได้สำหรับการดึงข้อมูล" * 60


def test_an_older_chunker_version_makes_the_next_sync_cut_every_file_again(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "thai.txt").write_text(THAI, encoding="utf-8")
    (docs / "english.txt").write_text("A short English note about backups.", encoding="utf-8")
    with Library(tmp_path / "home", settings=Settings(embedder="hash")) as lib:
        lib.add_folder(docs)
        assert lib.sync().indexed == 2
        assert lib.store.get_meta("chunker") == str(CHUNKER_VERSION)
        assert lib.sync().indexed == 0  # the same version: nothing to redo
        assert lib.stats()["chunks"] > 2  # the Thai run is several chunks
        lib.store.set_meta("chunker", "1")  # as a library written before chunks were counted in Thai words

    with Library(tmp_path / "home", settings=Settings(embedder="hash")) as again:
        assert again.sync().indexed == 2
        assert again.store.get_meta("chunker") == str(CHUNKER_VERSION)
        assert again.sync().indexed == 0

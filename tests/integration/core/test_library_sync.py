"""Library sync with real files, real PDFs (fpdf2 → pdfplumber) and the real SQLite/FTS5/sqlite-vec index."""

import os
import time
from pathlib import Path

import pytest

from desktop_app.core.errors import FolderNotFoundError
from tests.support.helpers import assert_consistent, write_docx, write_pdf


def sources(results):
    return [Path(r.source).name for r in results]


def test_pdf_hit_names_page_two(make_library, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    write_pdf(
        docs / "report.pdf",
        ["The first page talks about budgets and plans.", "The second page mentions the quokka exactly once."],
    )
    lib = make_library()
    lib.add_folder(docs)
    lib.sync()
    hits = lib.search("quokka", mode="keyword")
    assert sources(hits) == ["report.pdf"]
    assert hits[0].metadata["page"] == 2
    assert "quokka" in hits[0].content
    doc = lib.stats()
    assert doc["documents"] == 1


def test_bad_files_are_recorded_and_the_rest_indexed(make_library, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    write_pdf(docs / "secret.pdf", ["classified kangaroo"], password="hunter2")
    good = write_pdf(docs / "good.pdf", ["a perfectly fine wombat"])
    (docs / "truncated.pdf").write_bytes(good.read_bytes()[:300])
    (docs / "notes.txt").write_text("plain platypus notes", encoding="utf-8")
    (docs / "empty.txt").write_text("", encoding="utf-8")
    lib = make_library()
    lib.add_folder(docs)
    report = lib.sync()
    reasons = {Path(f["path"]).name: f["reason"] for f in lib.stats()["failures"]}
    assert "encrypted" in reasons["secret.pdf"]
    assert "corrupt" in reasons["truncated.pdf"] or "unreadable" in reasons["truncated.pdf"]
    assert reasons["empty.txt"] == "empty: no text to index"
    assert report.failed == 3
    assert sources(lib.search("wombat", mode="keyword")) == ["good.pdf"]
    assert sources(lib.search("platypus", mode="keyword")) == ["notes.txt"]
    assert lib.search("kangaroo", mode="keyword") == []
    # failed files are not retried while unchanged
    again = lib.sync()
    assert again.failed == 0 and again.indexed == 0 and again.unchanged == 5
    (tmp_path / "docs" / "empty.txt").write_text("no longer empty: echidna", encoding="utf-8")
    fixed = lib.sync()
    assert fixed.indexed == 1 and sources(lib.search("echidna", mode="keyword")) == ["empty.txt"]
    assert "empty.txt" not in {Path(f["path"]).name for f in lib.stats()["failures"]}


def test_incremental_sync_edit_and_delete(make_library, tmp_path):
    docs = tmp_path / "docs"
    (docs / "sub").mkdir(parents=True)
    for i in range(5):
        (docs / "sub" / f"note{i}.md").write_text(f"# Note {i}\n\nshared words and token{i}\n", encoding="utf-8")
    lib = make_library()
    lib.add_folder(docs)
    first = lib.sync()
    assert first.indexed == 5
    second = lib.sync()
    assert (second.indexed, second.unchanged) == (0, 5)

    target = docs / "sub" / "note2.md"
    target.write_text("# Note 2\n\ncompletely new aardvark content\n", encoding="utf-8")
    os.utime(target, ns=(time.time_ns(), time.time_ns() + 5_000_000_000))
    third = lib.sync()
    assert (third.indexed, third.unchanged) == (1, 4)
    assert lib.search("token2", mode="keyword") == []
    assert sources(lib.search("aardvark", mode="keyword")) == ["note2.md"]
    assert sources(lib.search("aardvark", mode="semantic")) == ["note2.md"]

    target.unlink()
    fourth = lib.sync()
    assert fourth.removed == 1
    assert lib.search("aardvark", mode="hybrid") == []
    c = assert_consistent(lib.db_path)
    assert c["chunks"] == 4


def test_touched_but_identical_file_is_not_reextracted(make_library, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    f = docs / "same.txt"
    f.write_text("unchanging text", encoding="utf-8")
    lib = make_library()
    lib.add_folder(docs)
    lib.sync()
    os.utime(f, ns=(time.time_ns(), time.time_ns() + 10_000_000_000))
    report = lib.sync()
    assert (report.indexed, report.unchanged) == (0, 1)


def test_removed_folder_leaves_no_rows(make_library, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    for i in range(3):
        (a / f"a{i}.txt").write_text(f"alpha file {i} " * 30, encoding="utf-8")
    (b / "keep.txt").write_text("beta keeps this", encoding="utf-8")
    lib = make_library()
    lib.add_folder(a)
    lib.add_folder(b)
    lib.sync()
    assert lib.remove_folder(a) == 3
    c = assert_consistent(lib.db_path)
    assert c["chunks"] == 1 and c["vectors"] == 1 and c["fts_rows"] == 1
    assert [f.path for f in lib.folders()] == [str(b.resolve())]
    assert lib.search("alpha", mode="keyword") == []


def test_skips_hidden_excluded_binary_and_oversize(make_library, tmp_path):
    docs = tmp_path / "docs"
    for d in ("node_modules", ".git", "__pycache__", "real"):
        (docs / d).mkdir(parents=True)
        (docs / d / "x.txt").write_text("needle", encoding="utf-8")
    (docs / ".hidden.txt").write_text("needle", encoding="utf-8")
    (docs / "image.png").write_bytes(b"\x89PNG needle")
    (docs / "binary.txt").write_bytes(b"needle\x00\x01\x02")
    (docs / "big.txt").write_text("needle " * 200_000, encoding="utf-8")  # 1.4 MB
    (docs / "loop").symlink_to(docs, target_is_directory=True)
    lib = make_library(max_file_mb=1, max_text_file_mb=1)  # text is streamed: it has its own limit
    lib.add_folder(docs)
    lib.sync()
    assert sources(lib.search("needle", mode="keyword")) == ["x.txt"]
    reasons = {Path(f["path"]).name: f["reason"] for f in lib.stats()["failures"]}
    assert "too large" in reasons["big.txt"]
    assert "binary" in reasons["binary.txt"]


def test_encodings_html_and_docx(make_library, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "latin1.txt").write_bytes("Café crème brûlée über naïve façade señor".encode("cp1252"))
    (docs / "utf16.txt").write_bytes("unicode sixteen walrus".encode("utf-16"))
    (docs / "broken.txt").write_bytes(b"valid start \xff\xfe\xfa invalid middle narwhal end")
    (docs / "page.html").write_text(
        "<html><head><title>Zoo</title><script>var hidden_lemur=1</script>"
        "<style>.x{}</style></head><body><p>visible okapi</p></body></html>",
        encoding="utf-8",
    )
    write_docx(docs / "memo.docx", ["A memo about the capybara."], title="Memo")
    lib = make_library()
    lib.add_folder(docs)
    report = lib.sync()
    assert report.failed == 0, report.errors
    assert sources(lib.search("brûlée", mode="keyword")) == ["latin1.txt"]
    assert sources(lib.search("walrus", mode="keyword")) == ["utf16.txt"]
    assert sources(lib.search("narwhal", mode="keyword")) == ["broken.txt"]
    assert sources(lib.search("okapi", mode="keyword")) == ["page.html"]
    assert lib.search("hidden_lemur", mode="keyword") == []
    hit = lib.search("capybara", mode="keyword")[0]
    assert Path(hit.source).name == "memo.docx" and hit.metadata["title"] == "Memo"


def test_result_metadata_and_highlights(make_library, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    text = "Intro paragraph.\n\nThe retrieval pipeline fuses rankings."
    (docs / "guide.md").write_text(text, encoding="utf-8")
    lib = make_library()
    lib.add_folder(docs)
    lib.sync()
    hit = lib.search('"retriev', mode="keyword")[0]
    meta = hit.metadata
    assert hit.source == str((docs / "guide.md").resolve())
    assert meta["chunk_index"] == 0 and meta["page"] is None and meta["title"] == "guide"
    assert text[meta["start"] : meta["end"]] == hit.content
    assert [hit.content[a:b] for a, b in meta["highlights"]] == ["retrieval"]
    assert hit.score > 0


def test_title_matches_file_name(make_library, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "quarterly_budget_2024.txt").write_text("numbers and more numbers", encoding="utf-8")
    (docs / "other.txt").write_text("nothing relevant", encoding="utf-8")
    lib = make_library()
    lib.add_folder(docs)
    lib.sync()
    assert sources(lib.search("budget", mode="keyword")) == ["quarterly_budget_2024.txt"]


def test_add_missing_folder_is_a_clear_error(make_library, tmp_path):
    lib = make_library()
    with pytest.raises(FolderNotFoundError, match="Not a folder"):
        lib.add_folder(tmp_path / "nope")


def test_vanished_folder_goes_offline_and_keeps_its_index(make_library, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "keep.txt").write_text("persistent pangolin", encoding="utf-8")
    lib = make_library()
    lib.add_folder(docs)
    lib.sync()
    docs.rename(tmp_path / "elsewhere")
    lib.sync()
    assert lib.folders()[0].state == "offline"
    assert sources(lib.search("pangolin", mode="keyword")) == ["keep.txt"]
    (tmp_path / "elsewhere").rename(docs)
    lib.sync()
    assert lib.folders()[0].state == "active"
    assert sources(lib.search("pangolin", mode="keyword")) == ["keep.txt"]


def test_group_by_document_and_filters(make_library, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    (a / "long.txt").write_text(
        "\n\n".join(f"heron paragraph {i} " + "filler " * 100 for i in range(6)), encoding="utf-8"
    )
    (b / "short.md").write_text("# heron\n\nheron heron", encoding="utf-8")
    lib = make_library(chunk_size=120, chunk_overlap=10)
    lib.add_folder(a)
    lib.add_folder(b)
    lib.sync()
    chunks = lib.search("heron", mode="keyword", top_k=20)
    docs = lib.search("heron", mode="keyword", top_k=20, group_by_document=True)
    assert len(chunks) > len(docs) == 2
    assert sources(lib.search("heron", mode="keyword", folders=[b])) == ["short.md"]
    assert set(sources(lib.search("heron", mode="keyword", types=["text"]))) == {"long.txt"}


def test_close_stops_a_long_sync_after_the_file_in_flight(make_library, tmp_path):
    import threading

    from tests.support.helpers import assert_consistent

    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(300):
        (docs / f"f{i:03}.txt").write_text(f"file {i} about ibex{i}", encoding="utf-8")
    lib = make_library()
    lib.add_folder(docs)
    started = threading.Event()
    real = lib.indexer._index_found

    def slow_index_found(*args, **kwargs):  # a slow disk: each file takes 20 ms
        started.set()
        time.sleep(0.02)
        return real(*args, **kwargs)

    lib.indexer._index_found = slow_index_found
    worker = threading.Thread(target=lambda: lib.sync(wait=False))
    worker.start()
    assert started.wait(10)
    lib.close()
    worker.join(30)
    assert not worker.is_alive()
    c = assert_consistent(lib.db_path)
    assert 0 < c["chunks"] < 300  # stopped part-way, every indexed file whole
    again = make_library(home=lib.home)
    report = again.sync(wait=False)
    assert report.indexed == 300 - c["chunks"] and report.unchanged == c["chunks"]


def test_unreadable_file_is_recorded_with_permission_denied(make_library, tmp_path, monkeypatch):
    # Tests run as root, which reads any file; the OS error is raised by hand for one path instead.
    docs = tmp_path / "docs"
    docs.mkdir()
    locked = docs / "locked.txt"
    locked.write_text("private", encoding="utf-8")
    (docs / "open.txt").write_text("public gazelle", encoding="utf-8")
    real_open = os.open

    def os_open(path, flags, *args, **kwargs):  # the indexer opens files with os.open (O_NOFOLLOW | O_NONBLOCK)
        if Path(path) == locked.resolve():
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", os_open)
    lib = make_library()
    lib.add_folder(docs)
    report = lib.sync()
    assert report.errors == [(str(locked.resolve()), "permission denied")]
    assert sources(lib.search("gazelle", mode="keyword")) == ["open.txt"]


def test_quick_files_of_every_folder_are_indexed_before_any_pdf(make_library, tmp_path):
    """Folders are not taken in alphabetical order: a notes folder is searchable before a papers folder's PDFs."""
    papers, notes = tmp_path / "a-papers", tmp_path / "z-notes"
    papers.mkdir()
    notes.mkdir()
    for i in range(3):
        write_pdf(papers / f"paper{i}.pdf", [f"paper {i} about tides"])
        (papers / f"readme{i}.txt").write_text(f"readme {i}", encoding="utf-8")
        (notes / f"note{i}.md").write_text(f"# note {i}\n\nabout tides", encoding="utf-8")
    lib = make_library()
    lib.add_folder(papers)
    lib.add_folder(notes)
    order: list[str] = []
    lib.subscribe(lambda e: getattr(e, "phase", "") == "keyword" and order.append(Path(e.current_file).suffix))
    report = lib.sync(wait=False)
    assert report.indexed == 9 and len(order) == 9
    assert set(order[:6]) == {".txt", ".md"} and order[6:] == [".pdf"] * 3


def test_a_file_moved_while_nobody_watched_keeps_its_document_and_vectors(make_library, tmp_path):
    docs = tmp_path / "docs"
    (docs / "a").mkdir(parents=True)
    (docs / "b").mkdir()
    for i in range(3):
        (docs / "a" / f"n{i}.txt").write_text(f"shared words and marker{i}\n", encoding="utf-8")
    lib = make_library()
    lib.add_folder(docs)
    lib.sync()
    assert lib.wait_for_embeddings(60)
    before = lib.store.document_by_path(str(docs / "a" / "n1.txt"))
    (docs / "a" / "n1.txt").rename(docs / "b" / "moved.txt")
    report = lib.sync()
    assert (report.moved, report.removed, report.indexed) == (1, 0, 0)
    after = lib.store.document_by_path(str(docs / "b" / "moved.txt"))
    assert after is not None and after.id == before.id  # the same row: its chunks and vectors followed
    assert sources(lib.search("marker1", mode="keyword")) == ["moved.txt"]
    assert lib.stats()["chunks_embedded"] == lib.stats()["chunks"] == 3
    assert lib.sync().moved == 0 and lib.store.document_by_path(str(docs / "b" / "moved.txt")) is not None

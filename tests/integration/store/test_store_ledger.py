"""The ledger on both engines: every document row with its derived state and reason, filtered, sorted and paged;
its counts add up to the kept counts `trove stats` reads."""

from __future__ import annotations

from desktop_app.core.store.ledger_rows import FAILED_SIDE, INDEXED_SIDE, FileState, LedgerQuery, LedgerSort
from desktop_app.core.store.rows import OcrPageRef
from tests.integration.store.test_store_protocol import chunks, doc, embed_all

ARABIC = "تقع المكتبة في وسط المدينة القديمة وتضم آلاف المخطوطات النادرة عن تاريخ العلوم والفلك والطب"
REASONS = {
    "enc.pdf": "encrypted PDF (needs a password)",
    "drm.epub": "DRM-protected EPUB (its text is encrypted)",
    "fifo.txt": "not a regular file (fifo): never opened",
    "loop.md": "symlink loop: never followed",
    "big.txt": "too large (300.0 MB; the limit is 100 MB)",
    "elf.md": "binary file (contains NUL bytes; it looks like an ELF executable)",
    "bomb.docx": "inflates past the limit: refused",
    "locked.txt": "permission denied: not read",
}
NOT_READ = {
    ".hidden.md": "hidden file: not read",
    "photo.png": "unsupported file type (.png): not read",
}
EXPECTED = {
    "a.txt": FileState.INDEXED, "ar.txt": FileState.INDEXED, "sub/b.txt": FileState.WAITING_SEMANTIC,
    "scan.pdf": FileState.WAITING_OCR,
    "enc.pdf": FileState.ENCRYPTED, "drm.epub": FileState.ENCRYPTED,
    "fifo.txt": FileState.SKIPPED, "loop.md": FileState.SKIPPED, "big.txt": FileState.SKIPPED,
    "elf.md": FileState.SKIPPED,
    "bomb.docx": FileState.FAILED, "locked.txt": FileState.FAILED,
    ".hidden.md": FileState.SKIPPED, "photo.png": FileState.SKIPPED,
}


def fill(store, folder) -> str:
    """The EXPECTED library in `folder`; returns the folder path with a trailing separator."""
    root = folder.path + "/"
    store.write_document(doc(folder.id, root + "a.txt", size=30), chunks("lighthouse keeper notes for the winter"))
    store.write_document(doc(folder.id, root + "ar.txt", size=900), chunks(ARABIC))
    embed_all(store)
    store.write_document(doc(folder.id, root + "sub/b.txt", size=20), chunks("waiting for its vectors"))
    store.write_document(doc(folder.id, root + "scan.pdf", type_="pdf", size=5000),
                         chunks("the first page has text", page=1), ocr_pages=[OcrPageRef(2, "2")])
    for name, reason in REASONS.items():
        store.record_failure(doc(folder.id, root + name, type_=name.rsplit(".", 1)[1]), reason)
    for name, reason in NOT_READ.items():
        store.record_failure(doc(folder.id, root + name, type_=""), reason)
        store.mark_not_read(folder.id, root + name)
    return root


def test_every_row_has_its_state_and_reason(store, folder):
    root = fill(store, folder)
    rows = store.ledger_page(LedgerQuery(), 0, 100)
    assert {r.path.removeprefix(root): r.state for r in rows} == EXPECTED
    assert {r.path.removeprefix(root): r.reason for r in rows if r.reason} == REASONS | NOT_READ
    assert {r.path.removeprefix(root) for r in rows if r.not_read} == set(NOT_READ)
    assert [r.path for r in rows] == sorted(r.path for r in rows)
    assert {r.folder for r in rows} == {folder.path}
    by_name = {r.path.removeprefix(root): r for r in rows}
    assert by_name["ar.txt"].lang == "ar" and by_name["a.txt"].lang == "en" and by_name["enc.pdf"].lang == ""
    assert by_name["scan.pdf"].type == "pdf" and by_name["scan.pdf"].chunks == 1


def test_counts_add_up_to_the_kept_counts(store, folder):
    fill(store, folder)
    counts = store.ledger_counts(LedgerQuery())
    kept = store.counts()
    assert sum(counts.get(s, 0) for s in INDEXED_SIDE) == kept.documents == 4
    not_read = store.ledger_not_read(LedgerQuery())
    assert (kept.failed, not_read) == (len(REASONS), len(NOT_READ))  # never read: not a failure
    assert sum(counts.get(s, 0) for s in FAILED_SIDE) == kept.failed + not_read
    assert counts == {s: list(EXPECTED.values()).count(s) for s in set(EXPECTED.values())}
    assert [f.path.rsplit("/", 1)[1] for f in store.failures()] == sorted(REASONS)


def test_filters_sort_and_pages(store, folder):
    root = fill(store, folder)

    def names(query: LedgerQuery, offset: int = 0, limit: int = 100) -> list[str]:
        return [r.path.removeprefix(root) for r in store.ledger_page(query, offset, limit)]

    assert names(LedgerQuery(states=(FileState.SKIPPED, FileState.ENCRYPTED))) == sorted(
        n for n, s in EXPECTED.items() if s in (FileState.SKIPPED, FileState.ENCRYPTED))
    assert names(LedgerQuery(folder=root + "sub")) == ["sub/b.txt"]
    assert names(LedgerQuery(type="pdf")) == ["enc.pdf", "scan.pdf"]
    assert names(LedgerQuery(lang="ar")) == ["ar.txt"]
    assert store.ledger_counts(LedgerQuery(type="pdf")) == {FileState.ENCRYPTED: 1, FileState.WAITING_OCR: 1}
    by_size = names(LedgerQuery(sort=LedgerSort.SIZE, descending=True))
    assert by_size[:2] == ["scan.pdf", "ar.txt"]
    by_state = store.ledger_page(LedgerQuery(sort=LedgerSort.STATE), 0, 100)
    assert [r.state for r in by_state] == sorted(r.state for r in by_state)
    assert store.ledger_not_read(LedgerQuery(folder=root + "sub")) == 0
    pages = [names(LedgerQuery(), offset, 5) for offset in (0, 5, 10)]
    assert [len(p) for p in pages] == [5, 5, 4]
    assert sum(pages, []) == names(LedgerQuery())


def test_a_folder_filter_is_not_a_name_prefix(store, tmp_path):
    """/docs must not take in /docs2: the filter is the folder and what is below it."""
    one, two = (store.add_folder(str(tmp_path / n)) for n in ("docs", "docs2"))
    store.write_document(doc(one.id, one.path + "/x.txt"), chunks("one folder"))
    store.write_document(doc(two.id, two.path + "/y.txt"), chunks("the other folder"))
    assert [r.path for r in store.ledger_page(LedgerQuery(folder=one.path), 0, 10)] == [one.path + "/x.txt"]


def test_files_never_read_keep_the_kept_counts_true(store, folder, request, tmp_path):
    """A row marked never read leaves the failure counts by the triggers, and the kept counts still equal a scan
    (a folder and type holding only such rows counts nothing)."""
    fill(store, folder)
    store.record_failure(doc(folder.id, folder.path + "/song.mp3", type_=""), "unsupported file type (.mp3): not read")
    assert store.counts().failed == len(REASONS) + 1
    store.mark_not_read(folder.id, folder.path + "/song.mp3")
    assert store.counts().failed == len(REASONS) and store.ledger_not_read(LedgerQuery()) == len(NOT_READ) + 1
    if request.node.callspec.params["store"] == "sqlite":
        from tests.support.helpers import assert_consistent

        assert_consistent(tmp_path / "library.db")
    else:
        from tests.support.pg_server import assert_server_consistent

        assert_server_consistent(request.getfixturevalue("pg_url"))

"""File names at the database boundary and on screen: every str round-trips, nothing unprintable is shown."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_app.core.pathnames import ESC, clean_text, display_path, from_db, to_db
from desktop_app.core.store.sqlite.connect import connect

# any code point, lone surrogates and the escape character included
anything = st.text(alphabet=st.one_of(st.characters(), st.sampled_from(["\udcff", "\udc80", "\ud800", ESC, "/"])),
                   max_size=40)


@given(anything)
def test_to_db_round_trips_and_is_valid_utf8(text):
    stored = to_db(text)
    stored.encode("utf-8")  # raises if anything unbindable is left
    assert from_db(stored) == text


@given(anything, anything)
def test_to_db_is_injective_and_keeps_prefixes(a, b):
    if a != b:
        assert to_db(a) != to_db(b)
    assert to_db(a + b).startswith(to_db(a))  # folder-prefix matching on stored paths stays correct


def test_plain_names_are_stored_unchanged():
    for name in ("/home/ana/notes.md", "/tmp/日本語/ファイル.txt", "/x/📚 notes 🦊.md"):
        assert to_db(name) is name or to_db(name) == name


@given(anything)
def test_display_path_is_one_printable_line(text):
    shown = display_path(text)
    assert "\n" not in shown and "\r" not in shown and "\x1b" not in shown and "\u202e" not in shown
    shown.encode("utf-8")  # no lone surrogate reaches a terminal or Qt


def test_display_path_escapes_undecodable_bytes_and_controls():
    assert display_path("/d/bad\udcffname.txt") == "/d/bad\\xffname.txt"
    assert display_path("new\nline.txt") == "new\\nline.txt"
    assert display_path("evil\u202etxt.md") == "evil\\u202etxt.md"
    assert display_path("\x1b[31mred.txt") == "\\x1b[31mred.txt"
    assert display_path("café.md") == "café.md"


@given(anything)
def test_clean_text_is_valid_unicode_and_keeps_clean_text(text):
    cleaned = clean_text(text)
    cleaned.encode("utf-8")
    if not any(0xD800 <= ord(c) <= 0xDFFF for c in text):
        assert cleaned == text


def test_clean_text_recovers_utf8_bytes_from_argv():
    argv = b"caf\xc3\xa9 \xff".decode("ascii", "surrogateescape")  # what a C-locale argv gives Python
    assert clean_text(argv) == "café \ufffd"


names_on_disk = anything.filter(lambda t: "\x00" not in t)  # no file system allows NUL in a name


@settings(max_examples=60, deadline=None)
@given(st.lists(names_on_disk, min_size=1, max_size=5))
def test_a_real_connection_stores_any_name(tmp_path_factory, names):
    db = tmp_path_factory.mktemp("db") / "t.db"
    conn = connect(db)
    try:
        conn.execute("CREATE TABLE t (path TEXT)")
        for name in names:
            conn.execute("INSERT INTO t VALUES (?)", (name,))
        assert [r[0] for r in conn.execute("SELECT path FROM t ORDER BY rowid")] == names
        for name in names:
            assert conn.execute("SELECT COUNT(*) FROM t WHERE path = ?", (name,)).fetchone()[0] >= 1
            prefix_hits = conn.execute("SELECT COUNT(*) FROM t WHERE substr(path, 1, length(?1)) = ?1",
                                       (name,)).fetchone()[0]
            assert prefix_hits >= 1
    finally:
        conn.close()

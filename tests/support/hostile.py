"""The hostile folder of issue 15, built on the spot: nothing binary is committed.

`build_hostile_folder(root)` makes every case under `root` and returns what each should end as;
`build_case(name, root)` makes one (the measuring script indexes each case alone).

Expectations after the fixes: `indexed` (searchable by `word`), `failed` (listed in `trove stats` with a
reason containing `reason`), `skipped` (listed the same way, but never opened), or `absent` (a link to a
place inside the library: its target is indexed once, under its own path).
"""

from __future__ import annotations

import os
import socket
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tests.support import bombs
from tests.support.helpers import write_docx, write_pdf

MIB = bombs.MIB


@dataclass(frozen=True)
class Case:
    """One hostile entry: where it is, what should become of it, and how to check."""

    name: str
    path: Path
    expect: str  # indexed | failed | skipped | absent
    reason: str = ""  # a substring of the recorded reason (failed / skipped)
    word: str = ""  # a word a keyword search must find (indexed)


def _p(root: Path, name: str | bytes) -> Path:
    return root / (os.fsdecode(name) if isinstance(name, bytes) else name)


def _text(root: Path, name: str | bytes, body: str | bytes, word: str, case: str) -> Case:
    path = _p(root, name)
    path.write_bytes(body if isinstance(body, bytes) else body.encode("utf-8"))
    return Case(case, path, "indexed", word=word)


# ---- special files and links ---------------------------------------------------------------------


def fifo(root: Path) -> list[Case]:
    path = root / "fifo.txt"
    os.mkfifo(path)
    return [Case("fifo", path, "skipped", "not a regular file")]


def unix_socket(root: Path) -> list[Case]:
    path = root / "chan.txt"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.bind(str(path))
    finally:
        sock.close()
    assert stat.S_ISSOCK(os.lstat(path).st_mode)
    return [Case("socket", path, "skipped", "not a regular file")]


def symlinks(root: Path, *, nested: bool = True) -> list[Case]:
    """Links of every kind. `nested`: `root` is a sub-folder of the library folder, so `up -> ..` leads to the
    library folder itself (left out: already indexed) and `upup -> ../..` leads outside."""
    (root / "plain.txt").write_text("plain lighthouse keeper notes\n", encoding="utf-8")
    os.symlink("self.txt", root / "self.txt")
    os.symlink("loop_b.txt", root / "loop_a.txt")
    os.symlink("loop_a.txt", root / "loop_b.txt")
    os.symlink("missing.md", root / "dangling.md")
    os.symlink("..", root / "up")
    os.symlink("../..", root / "upup")
    os.symlink("/etc", root / "etc")
    os.symlink("/etc/hostname" if os.path.exists("/etc/hostname") else "/etc/passwd", root / "system.txt")
    os.symlink("plain.txt", root / "inner_link.txt")
    os.mkdir(root / "sub")
    os.symlink("..", root / "sub" / "back")
    return [
        Case("plain", root / "plain.txt", "indexed", word="lighthouse"),
        Case("self-link", root / "self.txt", "skipped", "symlink loop"),
        Case("loop-a", root / "loop_a.txt", "skipped", "symlink loop"),
        Case("loop-b", root / "loop_b.txt", "skipped", "symlink loop"),
        Case("dangling", root / "dangling.md", "skipped", "dangling symlink"),
        Case("up", root / "up", "absent") if nested else Case("up", root / "up", "skipped", "outside the library"),
        Case("upup", root / "upup", "skipped", "outside the library"),
        Case("etc", root / "etc", "skipped", "outside the library"),
        Case("system-file", root / "system.txt", "skipped", "outside the library"),
        Case("inner-link", root / "inner_link.txt", "absent"),
        Case("back-link", root / "sub" / "back", "absent"),
    ]


# ---- names ---------------------------------------------------------------------------------------


def names(root: Path) -> list[Case]:
    # A name holding an image tag (with the image beside it, so a renderer that follows it would find it).
    (root / "pic.gif").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 64)
    return [
        _text(root, "new\nline.txt", "newline quokka", "quokka", "name-newline"),
        _text(root, "evil\u202etxt.md", "override narwhal", "narwhal", "name-rtl"),
        _text(root, "📚 notes 🦊.md", "emoji axolotl", "axolotl", "name-emoji"),
        _text(root, "a" * 251 + ".txt", "long pangolin", "pangolin", "name-255-ascii"),
        _text(root, "é" * 125 + ".txt", "long wombat", "wombat", "name-254-bytes-utf8"),
        _text(root, b"bad\xffname.txt", "undecodable capybara", "capybara", "name-undecodable"),
        _text(root, b"latin\xe9-\xe0.md", "latin name ocelot", "ocelot", "name-latin1-bytes"),
        _text(root, "<img src=pic.gif>.txt", "markup tapir", "tapir", "name-html"),
        _text(root, "\x1b[31mred\x07.txt", "escape meerkat", "meerkat", "name-terminal-escape"),
        _text(root, "-rf .txt", "dash lemur", "lemur", "name-dash"),
    ]


def long_path(root: Path) -> list[Case]:
    """A file 5,000 bytes deep (over PATH_MAX): made with directory fds, since no absolute path reaches it."""
    part = "d" * 250
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(20):
            os.mkdir(part, dir_fd=fd)
            nxt = os.open(part, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = nxt
        out = os.open("deep.txt", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(out, b"deep platypus\n")
        os.close(out)
    finally:
        os.close(fd)
    # reported at the first folder whose path is over the limit (the case's path is the top of the chain)
    return [Case("long-path", root / part, "skipped", "too long")]


# ---- encodings and binaries ----------------------------------------------------------------------


def encodings(root: Path) -> list[Case]:
    jp = "日本語のテキストです。東京タワーは高い。" * 20
    return [
        _text(root, "sjis.txt", jp.encode("shift_jis"), "東京タワーは高い", "shift-jis"),
        _text(root, "latin1.txt", ("Un café naïve et une crème brûlée, s'il vous plaît. " * 8).encode("latin-1"),
              "naïve", "latin-1"),
        _text(root, "invalid_utf8.txt", b"valid start \xff\xfe broken \xc3 bytes then okapi words\n", "okapi",
              "invalid-utf8"),
        _text(root, "utf16_nobom.txt", ("Plain English text about a jaguarundi, stored as UTF-16. " * 8)
              .encode("utf-16-le"), "jaguarundi", "utf16-no-bom"),
    ]


def elf_binary(root: Path) -> list[Case]:
    source = Path("/bin/true")
    body = source.read_bytes()[:65536] if source.is_file() else b"\x7fELF\x02\x01\x01" + bytes(range(256)) * 64
    path = root / "program.md"
    path.write_bytes(body)
    return [Case("elf-as-md", path, "failed", "binary")]


def sparse_zeros(root: Path) -> list[Case]:
    path = root / "zeros.txt"
    with open(path, "wb") as fh:
        fh.truncate(64 * MIB)
    return [Case("sparse-zeros", path, "failed", "binary")]


# ---- sizes and shapes ----------------------------------------------------------------------------


def no_whitespace(root: Path) -> list[Case]:
    unit = "abcdefghijklmnopqrstuvwxyz0123456789" * 2
    body = (unit * (5 * MIB // len(unit) + 1))[: 5 * MIB]
    return [_text(root, "nospace.txt", "startmarker" + body, "startmarker" + unit[:5], "no-whitespace-5mb")]


def one_line(root: Path) -> list[Case]:
    words = "alpha bravo charlie delta echo foxtrot golf hotel india juliett kilo lima".split()
    body = " ".join(words[i % len(words)] + str(i % 997) for i in range(int(2.3 * MIB) // 9))
    return [_text(root, "oneline.txt", body + " endofline", "endofline", "single-line-2.3mb")]


def nested_html(root: Path) -> list[Case]:
    depth = int(1.1 * MIB) // 11
    body = "<html><body>" + "<div>" * depth + "deepest chinchilla" + "</div>" * depth + "</body></html>"
    return [_text(root, "nested.html", body, "chinchilla", "nested-html-1.1mb")]


def huge_text(root: Path, megabytes: int = 200, *, shape: str = "prose") -> list[Case]:
    """`megabytes` of text, streamed to disk a block at a time.

    shape "prose": English lines (what a 200 MB log costs to index: bench/hostile_index.py); "padded": a
    megabyte of prose, then spaces, then the marker at the very end — the same 200 MB pass through reading,
    decoding and chunking in seconds (the test suite's version; the marker proves the end was reached).
    """
    line = ("the quick brown fox jumps over the lazy dog while the sleepy harbour " * 14).encode() + b"\n"
    prose = (line * (MIB // len(line) + 1))[:MIB]
    filler = prose if shape == "prose" else b" " * MIB
    path = root / "huge.txt"
    with open(path, "wb") as fh:
        fh.write(b"hugefilemarker begins here\n\n" + prose)
        fh.writelines(filler for _ in range(megabytes - 1))
        fh.write(b"\n\nhugefileending is here\n")
    return [Case("huge-text", path, "indexed", word="hugefilemarker"),
            Case("huge-text-end", path, "indexed", word="hugefileending")]


# ---- documents -----------------------------------------------------------------------------------


def pdfs(root: Path) -> list[Case]:
    write_pdf(root / "fine.pdf", ["An ordinary page about a serval."])
    return [Case("pdf-fine", root / "fine.pdf", "indexed", word="serval")]


def pdf_encrypted(root: Path) -> list[Case]:
    from fpdf.enums import EncryptionMethod

    aes_user = _fpdf(root / "aes256_user.pdf", "secret", EncryptionMethod.AES_256)
    aes_owner = _fpdf(root / "aes256_owner.pdf", "", EncryptionMethod.AES_256)
    return [Case("pdf-aes256-user-password", aes_user, "failed", "encrypted"),
            Case("pdf-aes256-owner-password", aes_owner, "indexed", word="caracal")]


def _fpdf(path: Path, user_password: str, method) -> Path:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_font("Helvetica", size=12)
    pdf.add_page()
    pdf.multi_cell(0, 8, "A protected page about a caracal.")
    pdf.set_encryption(owner_password="the-owner", user_password=user_password, encryption_method=method)
    pdf.output(str(path))
    return path


def pdf_page_loop(root: Path) -> list[Case]:
    return [Case("pdf-page-loop", bombs.pdf_page_loop(root / "page_loop.pdf"), "failed", "")]


def pdf_deep_arrays(root: Path) -> list[Case]:
    return [Case("pdf-deep-arrays", bombs.pdf_deep_arrays(root / "deep_arrays.pdf"), "failed", "")]


def pdf_bomb_small(root: Path) -> list[Case]:
    # 10 MB of text operators on one page: PDFium reads it in about a second (pdfplumber needed minutes)
    return [Case("pdf-bomb-10mb", bombs.pdf_bomb(root / "bomb_small.pdf", 10 * MIB), "indexed", word="payload")]


def pdf_bomb_big(root: Path) -> list[Case]:
    return [Case("pdf-bomb-300mb", bombs.pdf_bomb(root / "bomb_300mb.pdf", 300 * MIB), "failed",
                 "needed more than")]


def docx_fine(root: Path) -> list[Case]:
    write_docx(root / "fine.docx", ["An ordinary paragraph about a margay."])
    return [Case("docx-fine", root / "fine.docx", "indexed", word="margay")]


def docx_bomb_small(root: Path, megabytes: int = 10) -> list[Case]:
    path = bombs.docx_bomb(root / "bomb_small.docx", megabytes * MIB)
    return [Case(f"docx-bomb-{megabytes}mb", path, "indexed", word="payload")]


def docx_bomb_big(root: Path) -> list[Case]:
    path = bombs.docx_bomb(root / "bomb_1.5gib.docx", 1536 * MIB, long_runs=True)
    return [Case("docx-bomb-1.5gib", path, "failed", "inflate")]


def docx_lying(root: Path) -> list[Case]:
    return [Case("docx-lying-size", bombs.docx_lying(root / "lying.docx", 64 * MIB), "failed", "")]


def docx_laughs(root: Path) -> list[Case]:
    # refused before parsing: a zip-based document may not declare XML entities (core/ingest/safezip.py)
    return [Case("docx-billion-laughs", bombs.docx_billion_laughs(root / "laughs.docx"), "failed", "declares entities")]


BUILDERS: dict[str, Callable[[Path], list[Case]]] = {
    "fifo": fifo, "socket": unix_socket, "symlinks": symlinks, "names": names, "long-path": long_path,
    "encodings": encodings, "elf": elf_binary, "sparse-zeros": sparse_zeros, "no-whitespace": no_whitespace,
    "one-line": one_line, "nested-html": nested_html, "huge-text": huge_text, "pdfs": pdfs,
    "pdf-encrypted": pdf_encrypted, "pdf-page-loop": pdf_page_loop, "pdf-deep-arrays": pdf_deep_arrays,
    "pdf-bomb-10mb": pdf_bomb_small, "pdf-bomb-300mb": pdf_bomb_big, "docx-fine": docx_fine,
    "docx-bomb-10mb": docx_bomb_small, "docx-bomb-1.5gib": docx_bomb_big, "docx-lying": docx_lying,
    "docx-billion-laughs": docx_laughs,
}


def build_case(name: str, root: Path) -> list[Case]:
    """Build one group of cases in `root` (created if needed)."""
    root.mkdir(parents=True, exist_ok=True)
    return BUILDERS[name](root)


QUICK: dict[str, Callable[[Path], list[Case]]] = {
    "huge-text": lambda root: huge_text(root, 200, shape="padded"),
    "docx-bomb-10mb": lambda root: docx_bomb_small(root, 1),
}


def build_hostile_folder(root: Path, *, quick: bool = False) -> list[Case]:
    """Every case, each group in its own sub-folder of `root` (so links like `up -> ..` stay inside root).

    `quick`: the two legitimate-but-slow files are made cheaper to index (the 200 MB file mostly padding,
    a 1 MB DOCX bomb instead of 10 MB); every hostile property stays.
    """
    cases: list[Case] = []
    for name, build in BUILDERS.items():
        folder = root / name
        folder.mkdir(parents=True, exist_ok=True)
        cases += (QUICK.get(name, build) if quick else build)(folder)
    return cases

"""Which files Trove reads, and as what: each format registered once (its kind, suffixes, badge, display name,
cost class, reader and the bytes it must start with), the way MemoryRegistry registers memory backends. The
extension sets, FORMAT_TYPES and DOCUMENT_TYPES below are views of the registry; extraction looks each file's
reader up here, and the window's badges and type names read it too.

A reader is named by "module:function" and imported on first use, so importing this module (the window does, for
badges) loads no parser, and the sandbox worker imports only the parsers of the files it is handed."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import PurePath
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from desktop_app.core.ingest.extract_rows import Extracted

# One document from a file's bytes (an attachment's too: readers never get a path) and the title to use when
# the document names none. Raises ExtractionError with the reason a person is shown.
Reader = Callable[[bytes, str], "Extracted"]


@dataclass(frozen=True)
class Magic:
    """The first bytes every file of a format holds, so a file that is plainly something else (a PNG named
    .docx) is refused with a reason before its parser sees it."""

    heads: tuple[bytes, ...]
    missing: str  # the reason when none is there: "not a zip archive"
    within: int = 0  # 0: the file starts with a head; n: a head occurs in its first n bytes

    def found_in(self, raw: bytes) -> bool:
        if self.within:
            return any(head in raw[:self.within] for head in self.heads)
        return raw.startswith(self.heads)


ZIP = Magic((b"PK\x03\x04", b"\xd0\xcf\x11\xe0"), "not a zip archive")  # OLE: an encrypted Office file
PDF = Magic((b"%PDF",), "no %PDF header", within=1024)


@dataclass(frozen=True, kw_only=True)
class Format:
    """One document kind Trove reads. `cost` orders the keyword phase: 0 plain text (cheap, batched), 1 office
    documents, e-books, mail and notebooks, 2 PDFs (pages, maybe OCR). `reader` is "module:function" (a Reader);
    `suffix_readers` names another for a suffix read differently (.tsv). E-mail has no reader: a message or
    mailbox holds several documents, which extract_many reads."""

    kind: str  # the type stored with the document and offered in type filters
    suffixes: tuple[str, ...]
    badge: str  # the short label on the result's icon
    name: str  # how the window names the kind
    cost: int = 1
    reader: str = ""
    suffix_readers: Mapping[str, str] = field(default_factory=dict)
    magic: Magic | None = None


class FormatRegistry:
    """Formats by kind: `FormatRegistry.register(Format(...))`, `FormatRegistry.get("pdf")`, `.all()`,
    `.reader("csv", ".tsv")`."""

    _formats: dict[str, Format] = {}

    @classmethod
    def register(cls, fmt: Format) -> Format:
        taken = {s for f in cls._formats.values() if f.kind != fmt.kind for s in f.suffixes} & set(fmt.suffixes)
        if taken:
            raise ValueError(f"format {fmt.kind!r}: suffixes already registered: {', '.join(sorted(taken))}")
        cls._formats[fmt.kind] = fmt
        return fmt

    @classmethod
    def get(cls, kind: str) -> Format | None:
        return cls._formats.get(kind)

    @classmethod
    def all(cls) -> tuple[Format, ...]:
        return tuple(cls._formats.values())

    @classmethod
    def kind_of_suffix(cls, suffix: str) -> str | None:
        return next((f.kind for f in cls._formats.values() if suffix in f.suffixes), None)

    @classmethod
    def reader(cls, kind: str, suffix: str = "") -> Reader:
        """The reader of `kind` (of `suffix` when that has its own), imported now. LookupError for a kind that
        is not registered or has no reader of one document."""
        fmt = cls._formats.get(kind)
        target = fmt.suffix_readers.get(suffix, fmt.reader) if fmt is not None else ""
        if not target:
            raise LookupError(f"no reader of one document is registered for {kind!r}")
        return _load(target)


@cache
def _load(target: str) -> Reader:
    module, _, name = target.partition(":")
    return cast(Reader, getattr(importlib.import_module(module), name))


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


_F = "desktop_app.core.ingest.formats."
for _format in (  # in the order of the window's type menu
    Format(kind="pdf", suffixes=(".pdf",), badge="PDF", name="PDF", cost=2, reader=_F + "pdf:extract_pdf",
           magic=PDF),
    Format(kind="markdown", suffixes=(".md", ".markdown", ".mdown", ".mkd"), badge="MD", name="Markdown", cost=0,
           reader=_F + "plain:read_markdown"),
    Format(kind="text", suffixes=_words(".txt .text .rst .log .org .adoc .tex .bib .ini .cfg .conf .toml .properties "
                                        ".env .srt .vtt"), badge="TXT", name="Text", cost=0,
           reader=_F + "plain:read_text"),
    Format(kind="code", suffixes=_words(
        ".py .pyi .js .jsx .mjs .cjs .ts .tsx .rs .go .java .kt .kts .scala .c .h .cc .cpp .cxx .hpp .hh .cs .rb "
        ".php .pl .pm .lua .r .jl .swift .m .mm .sh .bash .zsh .fish .ps1 .bat .sql .yaml .yml .json .jsonl .xml "
        ".css .scss .sass .less .vue .svelte .dart .ex .exs .erl .hs .ml .clj .el .vim .gradle .cmake .mk "
        ".dockerfile .proto .graphql .tf"), badge="</>", name="Code", cost=0, reader=_F + "plain:read_code"),
    Format(kind="html", suffixes=(".html", ".htm", ".xhtml"), badge="HTML", name="HTML", cost=0,
           reader=_F + "plain:read_html"),
    Format(kind="docx", suffixes=(".docx",), badge="DOC", name="Word", reader=_F + "ooxml:extract_docx", magic=ZIP),
    Format(kind="odt", suffixes=(".odt",), badge="ODT", name="OpenDocument text", reader=_F + "odf:extract_odt",
           magic=ZIP),
    Format(kind="rtf", suffixes=(".rtf",), badge="RTF", name="Rich Text", reader=_F + "rtf:extract_rtf"),
    Format(kind="epub", suffixes=(".epub",), badge="EPUB", name="E-book", reader=_F + "epub:extract_epub",
           magic=ZIP),
    Format(kind="pptx", suffixes=(".pptx",), badge="PPT", name="PowerPoint", reader=_F + "ooxml:extract_pptx",
           magic=ZIP),
    Format(kind="odp", suffixes=(".odp",), badge="ODP", name="OpenDocument slides", reader=_F + "odf:extract_odp",
           magic=ZIP),
    Format(kind="xlsx", suffixes=(".xlsx", ".xlsm"), badge="XLS", name="Excel", reader=_F + "ooxml:extract_xlsx",
           magic=ZIP),
    Format(kind="ods", suffixes=(".ods",), badge="ODS", name="OpenDocument sheet", reader=_F + "odf:extract_ods",
           magic=ZIP),
    Format(kind="csv", suffixes=(".csv", ".tsv"), badge="CSV", name="CSV", reader=_F + "plain:read_csv",
           suffix_readers={".tsv": _F + "plain:read_tsv"}),
    Format(kind="email", suffixes=(".eml", ".mbox", ".msg"), badge="@", name="E-mail"),
    Format(kind="notebook", suffixes=(".ipynb",), badge="NB", name="Notebook",
           reader=_F + "notebook:extract_notebook"),
    Format(kind="image", suffixes=(".png", ".jpg", ".jpeg", ".tif", ".tiff", ".webp"), badge="IMG",
           name="Image (OCR)", reader=_F + "image:extract_image"),
):
    FormatRegistry.register(_format)


def _suffixes(kind: str) -> frozenset[str]:
    fmt = FormatRegistry.get(kind)
    return frozenset(fmt.suffixes if fmt else ())


TEXT_EXTENSIONS = _suffixes("text")
MARKDOWN_EXTENSIONS = _suffixes("markdown")
CODE_EXTENSIONS = _suffixes("code")
HTML_EXTENSIONS = _suffixes("html")
_PLAIN_KINDS = ("html", "markdown", "code", "text")  # read as text; file_type() also knows names and no suffix
# Formats read by a library each; the value is the type stored with the document (and offered in type filters).
FORMAT_TYPES = {s: f.kind for f in FormatRegistry.all() if f.kind not in _PLAIN_KINDS for s in f.suffixes}
CODE_FILENAMES = frozenset(
    "Makefile Dockerfile CMakeLists.txt Rakefile Gemfile Procfile Jenkinsfile LICENSE README".split())
BINARY_EXTENSIONS = frozenset(
    (
        ".gif .bmp .ico .psd .mp3 .wav .flac .ogg .m4a .mp4 .mkv .mov .avi .webm .zip .gz .tgz .bz2 .xz .7z .rar "
        ".tar .exe .dll .so .dylib .o .a .lib .bin .class .jar .pyc .pyo .whl .iso .dmg .img .sqlite .sqlite3 .db "
        ".gguf .safetensors .pt .pth .onnx .npy .npz .pkl .woff .woff2 .ttf .otf .eot .xls .ppt .doc"
    ).split()
)


def file_type(path: PurePath) -> str | None:
    """The document type Trove reads `path` as ('pdf', 'docx', 'html', 'markdown', 'code', 'text', a value of
    FORMAT_TYPES), or None for files Trove does not read."""
    return _name_type(path.name)


@lru_cache(maxsize=1024)  # a file's type is asked for as it is found, read, extracted and written
def _name_type(name: str) -> str | None:
    dot = name.rfind(".")
    suffix = name[dot:].lower() if 0 < dot < len(name) - 1 else ""  # PurePath.suffix
    if suffix in FORMAT_TYPES:
        return FORMAT_TYPES[suffix]
    if suffix in HTML_EXTENSIONS:
        return "html"
    if suffix in MARKDOWN_EXTENSIONS:
        return "markdown"
    if suffix in CODE_EXTENSIONS or name in CODE_FILENAMES:
        return "code"
    if suffix in TEXT_EXTENSIONS:
        return "text"
    if suffix in BINARY_EXTENSIONS:
        return None
    if suffix == "":
        return "text"  # README-like files without an extension; the NUL sniff guards against binaries
    return None


# Every value file_type() can return, for type filters (`trove search --type`, the window's type menu).
DOCUMENT_TYPES = tuple(f.kind for f in FormatRegistry.all())


def cost_class(kind: str) -> int:
    """The keyword phase's cost class of a kind (1 for one not registered)."""
    fmt = FormatRegistry.get(kind)
    return fmt.cost if fmt is not None else 1

"""Which files Trove reads, and as what: each format registered once (its kind, suffixes, badge, display name and
cost class), the way MemoryRegistry registers memory backends. The extension sets, FORMAT_TYPES and
DOCUMENT_TYPES below are views of the registry; the window's badges and type names read it too."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePath


@dataclass(frozen=True, kw_only=True)
class Format:
    """One document kind Trove reads. `cost` orders the keyword phase: 0 plain text (cheap, batched), 1 office
    documents, e-books, mail and notebooks, 2 PDFs (pages, maybe OCR)."""

    kind: str  # the type stored with the document and offered in type filters
    suffixes: tuple[str, ...]
    badge: str  # the short label on the result's icon
    name: str  # how the window names the kind
    cost: int = 1


class FormatRegistry:
    """Formats by kind: `FormatRegistry.register(Format(...))`, `FormatRegistry.get("pdf")`, `.all()`."""

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


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


for _format in (  # in the order of the window's type menu
    Format(kind="pdf", suffixes=(".pdf",), badge="PDF", name="PDF", cost=2),
    Format(kind="markdown", suffixes=(".md", ".markdown", ".mdown", ".mkd"), badge="MD", name="Markdown", cost=0),
    Format(kind="text", suffixes=_words(".txt .text .rst .log .org .adoc .tex .bib .ini .cfg .conf .toml .properties "
                                        ".env .srt .vtt"), badge="TXT", name="Text", cost=0),
    Format(kind="code", suffixes=_words(
        ".py .pyi .js .jsx .mjs .cjs .ts .tsx .rs .go .java .kt .kts .scala .c .h .cc .cpp .cxx .hpp .hh .cs .rb "
        ".php .pl .pm .lua .r .jl .swift .m .mm .sh .bash .zsh .fish .ps1 .bat .sql .yaml .yml .json .jsonl .xml "
        ".css .scss .sass .less .vue .svelte .dart .ex .exs .erl .hs .ml .clj .el .vim .gradle .cmake .mk "
        ".dockerfile .proto .graphql .tf"), badge="</>", name="Code", cost=0),
    Format(kind="html", suffixes=(".html", ".htm", ".xhtml"), badge="HTML", name="HTML", cost=0),
    Format(kind="docx", suffixes=(".docx",), badge="DOC", name="Word"),
    Format(kind="odt", suffixes=(".odt",), badge="ODT", name="OpenDocument text"),
    Format(kind="rtf", suffixes=(".rtf",), badge="RTF", name="Rich Text"),
    Format(kind="epub", suffixes=(".epub",), badge="EPUB", name="E-book"),
    Format(kind="pptx", suffixes=(".pptx",), badge="PPT", name="PowerPoint"),
    Format(kind="odp", suffixes=(".odp",), badge="ODP", name="OpenDocument slides"),
    Format(kind="xlsx", suffixes=(".xlsx", ".xlsm"), badge="XLS", name="Excel"),
    Format(kind="ods", suffixes=(".ods",), badge="ODS", name="OpenDocument sheet"),
    Format(kind="csv", suffixes=(".csv", ".tsv"), badge="CSV", name="CSV"),
    Format(kind="email", suffixes=(".eml", ".mbox", ".msg"), badge="@", name="E-mail"),
    Format(kind="notebook", suffixes=(".ipynb",), badge="NB", name="Notebook"),
    Format(kind="image", suffixes=(".png", ".jpg", ".jpeg", ".tif", ".tiff", ".webp"), badge="IMG",
           name="Image (OCR)"),
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
    suffix = path.suffix.lower()
    if suffix in FORMAT_TYPES:
        return FORMAT_TYPES[suffix]
    if suffix in HTML_EXTENSIONS:
        return "html"
    if suffix in MARKDOWN_EXTENSIONS:
        return "markdown"
    if suffix in CODE_EXTENSIONS or path.name in CODE_FILENAMES:
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

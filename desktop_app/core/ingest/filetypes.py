"""Which files Trove reads, and as what."""

from __future__ import annotations

from pathlib import PurePath

TEXT_EXTENSIONS = frozenset(
    (
        ".txt .text .rst .log .org .adoc .tex .bib .ini .cfg .conf .toml .properties .env .srt .vtt"
    ).split()
)
MARKDOWN_EXTENSIONS = frozenset([".md", ".markdown", ".mdown", ".mkd"])
CODE_EXTENSIONS = frozenset(
    (
        ".py .pyi .js .jsx .mjs .cjs .ts .tsx .rs .go .java .kt .kts .scala .c .h .cc .cpp .cxx .hpp .hh .cs .rb "
        ".php .pl .pm .lua .r .jl .swift .m .mm .sh .bash .zsh .fish .ps1 .bat .sql .yaml .yml .json .jsonl .xml "
        ".css .scss .sass .less .vue .svelte .dart .ex .exs .erl .hs .ml .clj .el .vim .gradle .cmake .mk "
        ".dockerfile .proto .graphql .tf"
    ).split()
)
HTML_EXTENSIONS = frozenset([".html", ".htm", ".xhtml"])
# Formats read by a library each; the value is the type stored with the document (and offered in type filters).
FORMAT_TYPES = {
    ".pdf": "pdf", ".docx": "docx", ".odt": "odt", ".rtf": "rtf", ".epub": "epub",
    ".pptx": "pptx", ".odp": "odp",
    ".xlsx": "xlsx", ".xlsm": "xlsx", ".ods": "ods", ".csv": "csv", ".tsv": "csv",
    ".eml": "email", ".mbox": "email", ".msg": "email",
    ".ipynb": "notebook",
    ".png": "image", ".jpg": "image", ".jpeg": "image", ".tif": "image", ".tiff": "image", ".webp": "image",
}
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
DOCUMENT_TYPES = ("pdf", "docx", "odt", "rtf", "epub", "html", "markdown", "text", "code", "pptx", "odp", "xlsx",
                  "ods", "csv", "email", "notebook", "image")

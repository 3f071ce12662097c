"""Which files Trove reads, and as what."""

from __future__ import annotations

from pathlib import Path

TEXT_EXTENSIONS = frozenset(
    ".txt .text .rst .log .csv .tsv .org .adoc .tex .bib .ini .cfg .conf .toml .properties .env .srt .vtt".split()
)
MARKDOWN_EXTENSIONS = frozenset(".md .markdown .mdown .mkd".split())
CODE_EXTENSIONS = frozenset(
    (
        ".py .pyi .js .jsx .mjs .cjs .ts .tsx .rs .go .java .kt .kts .scala .c .h .cc .cpp .cxx .hpp .hh .cs "
        ".rb .php .pl .pm .lua .r .jl .swift .m .mm .sh .bash .zsh .fish .ps1 .bat .sql .yaml .yml .json "
        ".jsonl .xml .css .scss .sass .less .vue .svelte .dart .ex .exs .erl .hs .ml .clj .el .vim .gradle "
        ".cmake .mk .dockerfile .proto .graphql .tf"
    ).split()
)
HTML_EXTENSIONS = frozenset(".html .htm .xhtml".split())
CODE_FILENAMES = frozenset("Makefile Dockerfile CMakeLists.txt Rakefile Gemfile Procfile Jenkinsfile LICENSE README".split())
BINARY_EXTENSIONS = frozenset(
    (
        ".png .jpg .jpeg .gif .bmp .ico .webp .tif .tiff .psd .mp3 .wav .flac .ogg .m4a .mp4 .mkv .mov .avi "
        ".webm .zip .gz .tgz .bz2 .xz .7z .rar .tar .exe .dll .so .dylib .o .a .lib .bin .class .jar .pyc "
        ".pyo .whl .iso .dmg .img .sqlite .sqlite3 .db .gguf .safetensors .pt .pth .onnx .npy .npz .pkl "
        ".woff .woff2 .ttf .otf .eot .xls .xlsx .ppt .pptx .doc .odt .ods .odp .epub"
    ).split()
)


def file_type(path: Path) -> str | None:
    """'pdf' | 'docx' | 'html' | 'markdown' | 'code' | 'text', or None for files Trove does not read."""
    suffix = path.suffix.lower()
    if suffix == ".pdf":
        return "pdf"
    if suffix == ".docx":
        return "docx"
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

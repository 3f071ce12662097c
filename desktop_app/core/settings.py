"""User settings, stored as JSON beside the library database, checked field by field.

A value of the wrong type or out of range never reaches the code that uses it: constructing Settings with
one raises SettingsError naming the field; reading a settings.json that holds one keeps that field's
default and reports a one-line problem naming it. A file that is not JSON at all is reported the same way
(never silently replaced by defaults), and kept as settings.json.bad when settings are next saved.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import shutil
from dataclasses import asdict, dataclass, field, fields, replace
from enum import StrEnum
from pathlib import Path
from typing import Any

from desktop_app.core.embed.base import EMBEDDERS
from desktop_app.core.errors import KnownError
from desktop_app.core.log import get_logger
from desktop_app.core.paths import create_private
from desktop_app.core.types import ChatBackend, Fusion

log = get_logger("db")

DEFAULT_EXCLUDES = (
    ".git", "node_modules", "__pycache__", ".venv", "venv", "build", "dist",
    ".tox", ".mypy_cache", ".pytest_cache",
)


class SettingsError(KnownError):
    """A setting holds a value Trove cannot use; the message names the field."""


DEFAULT_EMBEDDER = "auto"  # MiniLM for an English library, the multilingual model for others (embed/auto.py)


@dataclass(frozen=True)
class Settings:
    """Every knob a user can turn. Unknown keys in the file are ignored; missing ones take defaults."""

    # ingestion
    chunk_size: int = 512
    chunk_overlap: int = 64
    min_chunk_size: int = 50
    max_file_mb: float = 50.0  # documents parsed whole (PDF, DOCX, HTML, ...)
    max_text_file_mb: float = 1024.0  # plain text, Markdown and code: streamed, so far bigger is fine
    extract_timeout_seconds: float = 60.0  # per file; a file over it fails and is retried when it changes
    extract_memory_mb: int = 1024  # per file, for the parser's worker process
    excluded_patterns: tuple[str, ...] = DEFAULT_EXCLUDES
    # embedding (core/embed/base.py EMBEDDERS): "auto" (the default: "minilm" for an English library,
    # "use-multilingual" once a tenth of it is in other languages; core/embed/auto.py),
    # "use-multilingual" (16 languages in one space, numpy only),
    # "e5-small" (multilingual-e5-small, ~100 languages, Linux x86-64 and macOS arm64), "minilm" (English
    # all-MiniLM-L6-v2 via onnxruntime), "minilm-torch" (the same via sentence-transformers: needs torch),
    # "hash" (deterministic, for tests and benchmarks). The model id is recorded with the vectors: a change
    # re-embeds the library.
    embedder: str = DEFAULT_EMBEDDER
    embed_batch_size: int = 64
    # logs, CSV exports and mailboxes bigger than this stay keyword-only (0: every file gets vectors) and the
    # folders whose semantic phase a person paused (core/index/semantic_scope.py)
    keyword_only_mb: float = 10.0
    semantic_paused_folders: tuple[str, ...] = ()
    # search
    top_k: int = 10
    keyword_weight: float = 1.0
    semantic_weight: float = 1.0
    rrf_k: int = 60
    fusion: Fusion = Fusion.CONVEX  # CONVEX (normalised score sum) or RRF (reciprocal rank fusion, k = rrf_k)
    # the search list's rerank (core/search/rerank.py): the window's Rerank toggle starts on, `trove search`
    # reranks without --rerank. Off by default: a second pass that reads every candidate with the query.
    search_rerank: bool = False
    # where the index lives: "" is the embedded SQLite file in the library folder; a postgresql:// URL a server
    server_url: str = ""
    # sync
    rescan_minutes: float = 30.0
    debounce_seconds: float = 0.5
    # OCR: pages with no text layer, and images, read in the background after the keyword phase
    ocr_enabled: bool = True
    ocr_languages: tuple[str, ...] = ("en", "ch")  # codes of the bundled models (core/ocr/engine.py)
    ocr_threads: int = 1  # onnxruntime threads: one keeps a core free for the window and the keyword phase
    # chat
    chat_backend: ChatBackend = ChatBackend.LLAMA
    model_path: str = ""  # empty: the bundled SmolLM2-135M-Instruct GGUF
    openai_base_url: str = "http://127.0.0.1:8080/v1"
    openai_model: str = "local"
    n_ctx: int = 4096
    n_threads: int = 0  # 0: let llama.cpp choose
    n_gpu_layers: int = 0
    context_enabled: bool = True
    context_top_k: int = 5
    context_min_score: float = 0.1
    max_context_tokens: int = 2048
    answer_reserve_tokens: int = 512
    refuse_without_context: bool = True
    check_model: str = ""  # a GGUF that checks each quote before it is shown (gate/check.py); empty: no check
    temperature: float = 0.2
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            checked = check_field(f.name, value)
            if checked is not value:
                object.__setattr__(self, f.name, checked)
        if self.chunk_overlap >= self.chunk_size:
            raise SettingsError(f"chunk_overlap ({self.chunk_overlap}) must be smaller than chunk_size "
                                f"({self.chunk_size})")

    def with_changes(self, **changes: Any) -> Settings:
        """A copy with some fields changed (SettingsError if a change is invalid or names no setting)."""
        unknown = sorted(set(changes) - _FIELDS.keys())
        if unknown:
            raise SettingsError(f"no such setting: {', '.join(unknown)}")
        return replace(self, **changes)


# ---- what each field accepts ---------------------------------------------------------------------------

_CHOICES = {"embedder": tuple(EMBEDDERS)}
# closed sets: the file holds the member's value, Settings holds the member
_MEMBERS: dict[str, type[StrEnum]] = {"fusion": Fusion, "chat_backend": ChatBackend}
_AT_LEAST: dict[str, float] = {
    "chunk_size": 1, "chunk_overlap": 0, "min_chunk_size": 0, "extract_memory_mb": 64, "embed_batch_size": 1,
    "top_k": 1, "keyword_weight": 0, "semantic_weight": 0, "rrf_k": 1, "debounce_seconds": 0, "n_ctx": 256,
    "n_threads": 0, "n_gpu_layers": -1, "context_top_k": 1, "max_context_tokens": 1, "answer_reserve_tokens": 0,
    "temperature": 0, "ocr_threads": 0, "keyword_only_mb": 0,
}
_ABOVE_ZERO = frozenset({"max_file_mb", "max_text_file_mb", "extract_timeout_seconds", "rescan_minutes"})


def _kind(name: str) -> str:
    return str(_FIELDS[name].type)


def check_field(name: str, value: Any) -> Any:
    """`value` in the form field `name` holds (ints for floats, lists for tuples, members for their values), or
    SettingsError."""
    if name in _MEMBERS:
        return _member(name, value)
    kind = _kind(name)
    value = _typed(name, kind, value)
    if name in _CHOICES and value not in _CHOICES[name]:
        raise SettingsError(f"{name} must be one of {', '.join(map(repr, _CHOICES[name]))}, not {_show(value)}")
    if name in _AT_LEAST and value < _AT_LEAST[name]:
        raise SettingsError(f"{name} must be at least {_AT_LEAST[name]:g}, not {_show(value)}")
    if name in _ABOVE_ZERO and value <= 0:
        raise SettingsError(f"{name} must be more than 0, not {_show(value)}")
    return value


def _member(name: str, value: Any) -> StrEnum:
    closed = _MEMBERS[name]
    if isinstance(value, str) and value in tuple(closed):
        return closed(value)
    raise SettingsError(f"{name} must be one of {', '.join(repr(m.value) for m in closed)}, not {_show(value)}")


def _typed(name: str, kind: str, value: Any) -> Any:
    if kind == "bool":
        if isinstance(value, bool):
            return value
        raise SettingsError(f"{name} must be true or false, not {_show(value)}")
    if kind == "int":
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        raise SettingsError(f"{name} must be a whole number, not {_show(value)}")
    if kind == "float":
        if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
            return value if isinstance(value, float) else float(value)
        raise SettingsError(f"{name} must be a number, not {_show(value)}")
    if kind == "str":
        if isinstance(value, str):
            return value
        raise SettingsError(f"{name} must be text, not {_show(value)}")
    if kind.startswith("tuple"):
        if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
            return value if isinstance(value, tuple) else tuple(value)
        raise SettingsError(f"{name} must be a list of text patterns, not {_show(value)}")
    if isinstance(value, dict):
        return value
    raise SettingsError(f"{name} must be an object, not {_show(value)}")


def _show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=repr) if not isinstance(value, float) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


_FIELDS = {f.name: f for f in fields(Settings)}


# ---- the file ------------------------------------------------------------------------------------------


def settings_from_dict(data: dict[str, Any]) -> tuple[Settings, list[str]]:
    """Settings from parsed JSON: each unusable field keeps its default and yields a problem naming it."""
    values: dict[str, Any] = {}
    problems: list[str] = []
    for key, value in data.items():
        if key not in _FIELDS:
            log.info("ignoring unknown setting %r", key)
            continue
        try:
            values[key] = check_field(key, value)
        except SettingsError as exc:
            problems.append(f"{exc}; using the default")
    size = values.get("chunk_size", Settings.chunk_size)
    if values.get("chunk_overlap", Settings.chunk_overlap) >= size:
        problems.append(f"chunk_overlap must be smaller than chunk_size ({size}); using {min(64, size - 1)}")
        values["chunk_overlap"] = min(Settings.chunk_overlap, size - 1)
    return Settings(**values), problems


def read_settings(path: Path) -> tuple[Settings, list[str]]:
    """Settings from `path` and the problems found there, one line each (none for a missing file)."""
    data: Any = {}
    problems: list[str] = []
    try:
        data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    except OSError as exc:
        problems.append(f"cannot read {path.name} ({exc.strerror or exc}); using the defaults")
    except ValueError as exc:
        problems.append(f"{path.name} is not valid JSON ({exc}); using the defaults, the file is left as it is")
    if not isinstance(data, dict):
        problems.append(f"{path.name} must hold a JSON object, not {type(data).__name__}; using the defaults")
        data = {}
    settings, more = settings_from_dict(data)
    problems += more
    env_embedder = os.environ.get("TROVE_EMBEDDER")
    if env_embedder:
        try:
            settings = settings.with_changes(embedder=env_embedder)
        except SettingsError as exc:
            problems.append(f"TROVE_EMBEDDER: {exc}; ignored")
    return settings, [p if p.startswith(("TROVE_", path.name)) else f"{path.name}: {p}" for p in problems]


def save_settings(path: Path, settings: Settings) -> None:
    """Write settings atomically (a crash leaves the old file, never half a file).

    A file that was not valid JSON is kept beside it as `<name>.bad` first: what the person wrote is not lost.
    """
    if path.exists():
        try:
            json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            shutil.copyfile(path, path.with_name(path.name + ".bad"))
    tmp = path.with_suffix(".tmp")
    with contextlib.suppress(FileNotFoundError):
        tmp.unlink()
    create_private(tmp)  # 0600: settings may name a server and its user
    tmp.write_text(json.dumps(asdict(settings), indent=2), encoding="utf-8")
    os.replace(tmp, path)

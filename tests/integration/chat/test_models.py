"""The model list of a real library: bundled, added, downloaded (from a loopback server); default, remove."""

from __future__ import annotations

import shutil
import threading
from dataclasses import replace

import pytest

from desktop_app.core.chat.models import manager as models_module
from desktop_app.core.chat.models.files import bundled_model_path, resolve_model_path
from desktop_app.core.chat.models.gguf_header import GGUFError
from desktop_app.core.chat.models.manager import BUNDLED, DOWNLOADED, LOCAL, ModelManager, ModelNotFoundError
from desktop_app.core.errors import KnownError
from tests.support.gguf_files import write_gguf, write_not_gguf
from tests.support.model_server import ModelServer, sha256_of


@pytest.fixture
def library(make_library):
    return make_library()


@pytest.fixture
def manager(library):
    return ModelManager.for_library(library)


@pytest.fixture
def server():
    with ModelServer() as s:
        yield s


def test_a_new_library_lists_the_bundled_model_as_default(manager):
    [entry] = manager.entries()
    assert entry.origin == BUNDLED and entry.is_default and entry.verified and entry.exists
    assert entry.path == str(bundled_model_path()) and entry.quantization == "Q4_1"
    assert entry.context_length == 8192 and entry.ram_bytes > entry.size_bytes


def test_add_a_file_on_disk_then_use_it_then_forget_it(manager, library, tmp_path):
    path = write_gguf(tmp_path / "Tiny-Q4_K_M.gguf")
    entry = manager.add(path)
    assert (entry.name, entry.origin, entry.quantization, entry.context_length) == (
        "Tiny-Q4_K_M",
        LOCAL,
        "Q4_K_M",
        2048,
    )
    assert manager.add(path) == entry and len(manager.entries()) == 2  # adding twice keeps one entry
    manager.use("tiny-q4_k_m")  # names match case-insensitively
    assert library.settings.model_path == str(path) and manager.default().name == "Tiny-Q4_K_M"
    assert resolve_model_path(None, library.settings.model_path) == path  # what the chat service will load
    removed = manager.remove("Tiny-Q4_K_M")
    assert removed.origin == LOCAL and path.exists()  # forgotten, not deleted
    assert library.settings.model_path == "" and manager.default().origin == BUNDLED


def test_a_non_gguf_or_missing_file_is_refused_in_one_line(manager, tmp_path):
    with pytest.raises(GGUFError, match="not a GGUF model") as info:
        manager.add(write_not_gguf(tmp_path / "page.gguf"))
    assert "\n" not in str(info.value)
    with pytest.raises(KnownError, match="No such file"):
        manager.add(tmp_path / "nope.gguf")


def test_a_model_too_big_for_this_machine_is_refused(library, tmp_path):
    small_machine = ModelManager.for_library(library, memory_bytes=50_000_000)
    with pytest.raises(KnownError, match="needs about .* of memory; this machine has 50 MB"):
        small_machine.add(write_gguf(tmp_path / "big.gguf", size=60_000_000))


def test_unknown_names_and_the_bundled_model_cannot_be_removed(manager):
    with pytest.raises(ModelNotFoundError, match="No model called 'nope'"):
        manager.use("nope")
    with pytest.raises(KnownError, match="bundled model"):
        manager.remove(manager.entries()[0].name)


def test_a_missing_file_is_listed_with_its_problem_and_cannot_be_used(manager, tmp_path):
    path = write_gguf(tmp_path / "gone.gguf")
    manager.add(path)
    path.unlink()
    entry = manager.get("gone")
    assert not entry.exists and entry.problem == "file missing"
    with pytest.raises(KnownError, match="file missing"):
        manager.use("gone")


def test_a_model_set_in_settings_is_listed_even_if_never_added(manager, library, tmp_path):
    path = write_gguf(tmp_path / "chosen.gguf")
    library.update_settings(model_path=str(path))
    assert manager.default().name == "chosen" and manager.default().origin == LOCAL


def test_a_download_is_listed_and_removing_it_deletes_the_file(manager, library, server, tmp_path):
    name = server.add(write_gguf(tmp_path / "Fetched-Q8_0.gguf", size=2 << 20))
    entry = manager.download(server.url(name))
    assert entry.origin == DOWNLOADED and entry.verified and entry.url == server.url(name)
    assert entry.path == str(library.home / "models" / name)
    manager.use(entry.name)
    manager.remove(entry.name)
    assert not (library.home / "models" / name).exists() and library.settings.model_path == ""


def test_a_partial_download_is_reported_for_resuming(manager, server, tmp_path):
    name = server.add(write_gguf(tmp_path / "part.gguf", size=2 << 20))
    server.state.drop_after, server.state.drops_left = 600_000, 1
    with pytest.raises(KnownError):
        manager.download(server.url(name), retries=0)
    assert manager.partial_download(server.url(name)) == 600_000
    assert [e.name for e in manager.entries()] == [manager.entries()[0].name]  # not listed until complete


@pytest.mark.slow
def test_the_real_gguf_downloaded_used_and_streaming(manager, library, server, tmp_path):
    """The bundled SmolLM2 served over loopback: download, `use`, and a real load that streams tokens."""
    from desktop_app.core.chat.runtime.llama import LlamaCppRuntime

    source = tmp_path / "src"
    source.mkdir()
    copy = shutil.copy(bundled_model_path(), source / "SmolLM2-135M-Instruct-copy.Q4_1.gguf")
    entry = manager.use(manager.download(server.url(server.add(copy))).name)
    assert entry.is_default and entry.verified and entry.quantization == "Q4_1"
    path = resolve_model_path(None, library.settings.model_path)
    assert path == library.home / "models" / "SmolLM2-135M-Instruct-copy.Q4_1.gguf"
    runtime = LlamaCppRuntime(path, n_ctx=512, n_threads=1)
    pieces: list[str] = []
    try:
        gen = runtime.generate(
            [{"role": "user", "content": "Say hello."}],
            max_tokens=6,
            temperature=0.0,
            on_text=pieces.append,
            cancel=threading.Event(),
        )
    finally:
        runtime.close()
    assert pieces and gen.tokens == len(pieces) and 0 < gen.tokens <= 6


def _catalog_entry_at(url: str, sha256: str):
    from desktop_app.core.chat.models.catalog import CATALOG

    return replace(CATALOG[0], id="loopback-model", url=url, sha256=sha256, license="Test Licence")


def test_a_catalog_download_is_checked_against_its_pinned_hash(manager, server, tmp_path, monkeypatch):
    model = write_gguf(tmp_path / "Pinned-Q4_K_M.gguf", size=2 << 20)
    name = server.add(model, linked_sha256="")  # the server publishes nothing: only the catalog's pin checks it
    entry = _catalog_entry_at(server.url(name), sha256_of(model))
    monkeypatch.setattr(models_module, "catalog_entry", lambda key: entry if key == entry.id else None)
    listed = manager.download("loopback-model")
    assert listed.verified and listed.license == "apache-2.0"  # the file's own licence field wins over the catalog's
    assert manager.use("loopback-model").name == listed.name  # the catalog id names it too
    stale = _catalog_entry_at(server.url(server.add(model, linked_sha256="", name="stale.gguf")), "e" * 64)
    monkeypatch.setattr(models_module, "catalog_entry", lambda key: stale if key == stale.id else None)
    with pytest.raises(KnownError, match="failed its SHA-256 check"):
        manager.download("loopback-model")
    assert not (manager.models_dir / "stale.gguf").exists()


def test_listing_and_recommending_never_touch_the_network(manager, tmp_path, monkeypatch):
    import socket

    from desktop_app.core.chat.models.catalog import recommend

    def refuse(*_args, **_kwargs):
        raise AssertionError("network used without being asked")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    manager.add(write_gguf(tmp_path / "Offline.gguf"))
    assert len(manager.entries()) == 2 and recommend(manager.memory_bytes) is not None

"""Downloading a GGUF from a real HTTP server on 127.0.0.1: redirects, ranges, interruption, hashes, refusals."""

from __future__ import annotations

import json
import threading

import pytest

from desktop_app.core.chat.models.download import DownloadCancelled, DownloadError, DownloadInterrupted, download
from tests.support.gguf_files import write_gguf, write_not_gguf
from tests.support.model_server import ModelServer, sha256_of

SIZE = 3 << 20  # 3 MiB: several chunks, so an interruption lands mid-body


@pytest.fixture
def server():
    with ModelServer() as s:
        yield s


@pytest.fixture
def model(tmp_path):
    (tmp_path / "src").mkdir()
    return write_gguf(tmp_path / "src" / "tiny-Q4_K_M.gguf", size=SIZE)


@pytest.fixture
def dest(tmp_path):
    return tmp_path / "models"


def _ranges(server, name):
    return [r["headers"].get("Range") for r in server.gets(name)]


def test_a_download_through_a_redirect_is_verified_by_the_published_sha256(server, model, dest):
    name = server.add(model)
    seen = []
    result = download(server.url(name), dest, progress=seen.append)
    assert result.path == dest / name and result.path.read_bytes() == model.read_bytes()
    assert result.verified and result.sha256 == sha256_of(model) and not result.resumed
    assert [p.done for p in seen] == sorted(p.done for p in seen) and seen[-1].done == seen[-1].total == SIZE
    assert not list(dest.glob("*.part*"))


def test_an_interrupted_download_resumes_with_a_range_request_in_the_same_call(server, model, dest):
    name = server.add(model)
    server.state.drop_after, server.state.drops_left = 1_200_000, 1
    result = download(server.url(name), dest)
    assert result.path.read_bytes() == model.read_bytes() and result.resumed and result.verified
    assert _ranges(server, name) == [None, "bytes=1200000-"]


def test_an_interrupted_download_keeps_its_part_and_the_next_call_resumes_it(server, model, dest):
    name = server.add(model)
    server.state.drop_after, server.state.drops_left = 1_000_000, 1
    with pytest.raises(DownloadInterrupted, match="connection"):
        download(server.url(name), dest, retries=0)
    part = dest / (name + ".part")
    assert part.stat().st_size == 1_000_000 and (dest / (name + ".part.json")).exists()
    result = download(server.url(name), dest)
    assert result.path.read_bytes() == model.read_bytes() and result.resumed
    second = server.gets(name)[-1]["headers"]
    assert second["Range"] == "bytes=1000000-" and second["If-Range"]  # resumed only if the file is unchanged
    assert not part.exists()


def test_a_wrong_hash_is_refused_and_the_partial_file_removed(server, model, dest):
    name = server.add(model, linked_sha256="0" * 64)  # the server publishes a hash the bytes do not have
    with pytest.raises(DownloadError, match="failed its SHA-256 check") as info:
        download(server.url(name), dest)
    assert "\n" not in str(info.value)
    assert not list(dest.iterdir())


def test_a_pinned_hash_the_bytes_do_not_match_is_refused(server, model, dest):
    name = server.add(model, linked_sha256="")  # no published hash: only the caller's pin can catch it
    with pytest.raises(DownloadError, match="SHA-256"):
        download(server.url(name, redirect=False), dest, sha256="1" * 64)
    assert not list(dest.iterdir())


def test_a_pin_that_disagrees_with_the_server_stops_before_the_body(server, model, dest):
    name = server.add(model)
    with pytest.raises(DownloadError, match="not the file the catalog names"):
        download(server.url(name), dest, sha256="2" * 64)
    assert not list(dest.iterdir())


def test_without_any_published_hash_the_download_is_kept_but_unverified(server, model, dest):
    name = server.add(model, linked_sha256="")
    result = download(server.url(name, redirect=False), dest)
    assert not result.verified and result.sha256 == sha256_of(model)


def test_not_a_gguf_is_refused_at_the_first_bytes(server, tmp_path, dest):
    page = write_not_gguf(tmp_path / "src-page.gguf", size=2_000_000)
    name = server.add(page)
    server.state.delay_s = 0.05  # a slow body: reading all of it would take over 1.5 s
    seen = []
    with pytest.raises(DownloadError, match="is not a GGUF model") as info:
        download(server.url(name), dest, progress=seen.append)
    assert "\n" not in str(info.value)
    assert all(p.done == 0 for p in seen)  # refused before anything past the magic was counted
    assert not list(dest.iterdir())


def test_not_enough_disk_space_is_refused_before_writing(server, model, dest):
    name = server.add(model)
    with pytest.raises(DownloadError, match="Not enough disk space"):
        download(server.url(name), dest, free_space=lambda _p: 1_000_000)
    assert not list(dest.glob("*.part"))


def test_a_file_bigger_than_this_machines_memory_is_refused(server, model, dest):
    name = server.add(model)
    with pytest.raises(DownloadError, match="too big for this machine's memory"):
        download(server.url(name), dest, memory_bytes=2_000_000)
    assert not list(dest.glob("*.part"))


def test_cancel_keeps_a_resumable_part(server, model, dest):
    name = server.add(model)
    server.state.delay_s = 0.02
    cancel = threading.Event()

    def stop_early(p):
        if p.done > 300_000:
            cancel.set()
    with pytest.raises(DownloadCancelled, match="resumes"):
        download(server.url(name), dest, progress=stop_early, cancel=cancel)
    part = dest / (name + ".part")
    kept = part.stat().st_size
    assert 300_000 < kept < SIZE
    assert json.loads((dest / (name + ".part.json")).read_text())["sha256"] == sha256_of(model)
    server.state.delay_s = 0
    result = download(server.url(name), dest)
    assert result.path.read_bytes() == model.read_bytes()
    assert server.gets(name)[-1]["headers"]["Range"] == f"bytes={kept}-"


def test_a_file_that_changed_since_the_interruption_is_downloaded_again_whole(server, model, dest, tmp_path):
    name = server.add(model)
    server.state.drop_after, server.state.drops_left = 500_000, 1
    with pytest.raises(DownloadInterrupted):
        download(server.url(name), dest, retries=0)
    changed = write_gguf(tmp_path / "src" / "changed.gguf", size=SIZE, seed=7)
    server.add(changed, name=name)  # same URL, new bytes and ETag: If-Range makes the server send all of it
    result = download(server.url(name), dest)
    assert result.path.read_bytes() == changed.read_bytes() and result.verified


def test_a_server_that_ignores_ranges_restarts_cleanly(server, model, dest):
    name = server.add(model)
    server.state.drop_after, server.state.drops_left = 700_000, 1
    server.state.ignore_range = True
    result = download(server.url(name), dest)
    assert result.path.read_bytes() == model.read_bytes()
    assert _ranges(server, name) == [None, "bytes=700000-"]  # asked to resume, got the whole file, started over


def test_a_complete_part_is_finished_without_downloading_again(server, model, dest):
    name = server.add(model)
    dest.mkdir()
    (dest / (name + ".part")).write_bytes(model.read_bytes())
    (dest / (name + ".part.json")).write_text(json.dumps({"url": server.url(name), "validator": "", "sha256": ""}))
    result = download(server.url(name), dest)
    assert result.path.read_bytes() == model.read_bytes() and result.verified


def test_http_errors_and_existing_files_are_one_line(server, model, dest):
    with pytest.raises(DownloadError, match="HTTP 404"):
        download(server.url("missing.gguf"), dest)
    name = server.add(model)
    download(server.url(name), dest)
    with pytest.raises(DownloadError, match="already in the models folder"):
        download(server.url(name), dest)

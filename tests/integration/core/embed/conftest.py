"""The torch-free embedders, each loaded once per session from the package that ships its weights."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def minilm_onnx():
    from desktop_app.core.embed.minilm_onnx import MiniLMOnnxEmbedder

    return MiniLMOnnxEmbedder()


@pytest.fixture(scope="session")
def use_multilingual():
    from desktop_app.core.embed.use_multilingual import UseMultilingualEmbedder

    return UseMultilingualEmbedder()


@pytest.fixture(scope="session")
def e5_small():
    from desktop_app.core.embed.e5_small import E5SmallEmbedder

    return E5SmallEmbedder()


def shared_eval(name: str) -> Path:
    """A folder of evaluation data shipped with the tests (tests/data/NAME; see its SOURCE.md)."""
    return Path(__file__).resolve().parents[3] / "data" / name

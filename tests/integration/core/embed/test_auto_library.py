"""The default "auto" embedder on a real library with the real models: MiniLM while the library is English, the
multilingual model (with every vector recomputed, and a notice) once Thai documents arrive, and a model chosen
in settings replaces it live."""

from __future__ import annotations

import shutil
from pathlib import Path

from desktop_app.core.embed.minilm import INDEX_ID as MINILM_ID
from desktop_app.core.embed.use_multilingual import MODEL_ID as USE_ID
from desktop_app.core.events import Notice
from desktop_app.core.library import Library
from desktop_app.core.settings import Settings
from tests.integration.core.embed.conftest import shared_eval
from tests.integration.core.embed.test_cross_lingual import SAMPLES, THAI_QUESTION


def all_embedded(lib: Library) -> bool:
    assert lib.wait_for_embeddings(300)
    stats = lib.stats()
    return stats["chunks"] > 0 and stats["chunks_embedded"] == stats["chunks"]


def test_auto_starts_english_and_turns_multilingual_when_thai_arrives(tmp_path):
    english, thai = tmp_path / "english", tmp_path / "thai"
    shutil.copytree(SAMPLES, english)
    thai.mkdir()
    shutil.copy(shared_eval("multilingual") / "memory-th.txt", thai / "memory-th.txt")
    notices: list[Notice] = []
    with Library(tmp_path / "home", settings=Settings()) as lib:
        assert lib.settings.embedder == "auto"
        lib.subscribe(lambda e: isinstance(e, Notice) and notices.append(e))
        lib.add_folder(english)
        lib.sync()
        assert all_embedded(lib)
        assert lib.stats()["embedding_model"] == MINILM_ID and lib.embedder.dim == 384

        lib.add_folder(thai)
        lib.sync()
        assert all_embedded(lib)
        assert lib.stats()["embedding_model"] == USE_ID and lib.embedder.dim == 512
        assert any(USE_ID in n.message for n in notices)
        hits = lib.search(THAI_QUESTION, mode="semantic", top_k=3, group_by_document=True)
        assert Path(hits[0].source).name == "memory-th.txt"

    with Library(tmp_path / "home") as again:  # reopened: the library keeps its model and its vectors
        assert again.stats()["embedding_model"] == USE_ID and all_embedded(again)


def test_a_model_chosen_in_settings_replaces_the_vectors_live(tmp_path):
    docs = tmp_path / "docs"
    shutil.copytree(SAMPLES, docs)
    with Library(tmp_path / "home", settings=Settings()) as lib:
        lib.add_folder(docs)
        lib.sync()
        assert all_embedded(lib) and lib.stats()["embedding_model"] == MINILM_ID
        lib.update_settings(embedder="use-multilingual")
        assert lib.stats()["embedding_model"] == USE_ID
        assert all_embedded(lib)
        assert lib.search("planets of the solar system", mode="semantic", top_k=1)
    assert Settings.__dataclass_fields__["embedder"].default == "auto"

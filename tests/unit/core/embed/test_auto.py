"""The "auto" embedder's choice: MiniLM for an English library, the multilingual model once a tenth is not."""

from __future__ import annotations

import numpy as np
import pytest

from desktop_app.core.embed.auto import (
    ENGLISH,
    MULTILINGUAL,
    AutoEmbedder,
    choose_embedder,
    library_embedder,
    other_language_share,
    recorded_embedder,
)
from desktop_app.core.embed.base import HashEmbedder, embed_passages, embed_query, make_embedder


def test_the_share_leaves_out_undetermined_chunks():
    assert other_language_share([("en", 80), ("th", 20), ("und", 500)]) == pytest.approx(0.2)
    assert other_language_share([("und", 5)]) == 0.0
    assert other_language_share([]) == 0.0


@pytest.mark.parametrize(("languages", "current", "chosen"), [
    ([], None, ENGLISH),  # an empty library starts with the English model
    ([("en", 95), ("ar", 5)], None, ENGLISH),
    ([("en", 90), ("th", 10)], None, MULTILINGUAL),
    ([("zh", 3)], None, MULTILINGUAL),
    ([("en", 50), ("latn", 50)], None, MULTILINGUAL),  # French or German text counts as another language
    ([("en", 93), ("ja", 7)], MULTILINGUAL, MULTILINGUAL),  # between the lines: no flip back...
    ([("en", 93), ("ja", 7)], ENGLISH, ENGLISH),  # ...and no flip up
    ([("en", 96), ("ja", 4)], MULTILINGUAL, ENGLISH),
])
def test_choice(languages, current, chosen):
    assert choose_embedder(languages, current) == chosen


def test_the_auto_embedder_follows_the_library_and_delegates():
    languages = [("en", 10)]
    made = []

    def make(name):
        made.append(name)
        return HashEmbedder(384 if name == ENGLISH else 512)

    auto = AutoEmbedder(lambda: languages, make)
    assert auto.choice == ENGLISH and auto.dim == 384 and auto.model_id == "hash-bow-384"
    assert not auto.refresh()
    languages.append(("ar", 5))
    assert auto.refresh() and auto.choice == MULTILINGUAL and auto.dim == 512
    assert embed_query(auto, "مكتبة").shape == (512,)
    assert [v.shape for v in embed_passages(auto, ["a b", "c"])] == [(1, 512), (1, 512)]
    assert np.allclose(auto.embed(["x"]), HashEmbedder(512).embed(["x"]))
    assert made == [ENGLISH, MULTILINGUAL]  # each model made once


def test_auto_needs_the_librarys_languages():
    with pytest.raises(ValueError, match="per library"):
        make_embedder("auto")
    assert isinstance(library_embedder("auto", 64, lambda: []), AutoEmbedder)
    assert isinstance(library_embedder("hash", 64, lambda: []), HashEmbedder)


def test_on_a_team_library_auto_is_fixed_to_the_recorded_model():
    languages = [("en", 10)]
    auto = AutoEmbedder(lambda: languages, lambda name: HashEmbedder(384 if name == ENGLISH else 512))
    for recorded in (None, "hash-bow-384"):  # a library with no model yet, and one whose vectors are this model's
        fixed = recorded_embedder(recorded, auto, 64)
        assert fixed.model_id == "hash-bow-384"
        assert getattr(fixed, "refresh", None) is None  # the semantic phase cannot re-choose for everybody
    languages.append(("th", 50))
    assert recorded_embedder("hash-bow-384", auto, 64).model_id == "hash-bow-384"

"""The model catalog's data, the RAM estimate, and the pick for a machine's memory."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from desktop_app.core.chat.models.catalog import (
    CATALOG,
    GB,
    LOCAL_MODELS,
    PROPOSAL_ORDER,
    CatalogEntry,
    LocalModel,
    catalog_entry,
    estimate_ram_bytes,
    format_bytes,
    local_model,
    machine_memory_bytes,
    memory_to_propose,
    propose_local,
    recommend,
    too_big_for_memory,
)
from desktop_app.core.settings import Settings

RESULTS = Path(__file__).resolve().parents[5] / "bench" / "results"

ASKED_FOR = ("qwen2.5-0.5b", "qwen2.5-1.5b", "qwen2.5-3b", "llama-3.2-1b", "llama-3.2-3b", "smollm2-360m",
             "smollm2-1.7b", "gemma-3-1b", "phi-3.5-mini")


def test_every_entry_is_well_formed():
    assert len({e.id for e in CATALOG}) == len(CATALOG)
    for e in CATALOG:
        assert re.match(r"^https://huggingface\.co/[\w.-]+/[\w.-]+/resolve/main/[\w.-]+\.gguf$", e.url), e.url
        assert e.sha256 == "" or re.fullmatch(r"[0-9a-f]{64}", e.sha256), e.id
        assert e.size_bytes > 100_000_000 and e.context_length >= 4096 and e.license and e.source
        assert e.n_layers and e.n_kv_heads and e.head_dim and e.quantization
        assert e.verified == bool(e.sha256)
    assert any(not e.verified for e in CATALOG), "an entry no source pinned must show as unverified"


def test_entries_are_built_by_name_only():
    """Thirteen positional values per entry were one slip from a swapped n_kv_heads and head_dim: keywords only."""
    values = dataclasses.astuple(CATALOG[0])
    with pytest.raises(TypeError):
        CatalogEntry(*values)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        LocalModel(*dataclasses.astuple(LOCAL_MODELS[0]))  # type: ignore[call-arg]
    assert CatalogEntry(**dataclasses.asdict(CATALOG[0])) == CATALOG[0]


def test_the_catalog_has_the_models_people_ask_for():
    ids = " ".join(e.id for e in CATALOG)
    for name in ASKED_FOR:
        assert name in ids, name


def test_entries_are_found_by_id_or_file_name():
    entry = CATALOG[0]
    assert catalog_entry(entry.id.upper()) is entry
    assert catalog_entry(entry.file_name) is entry
    assert catalog_entry("https://example.org/x.gguf") is None


@given(st.integers(0, 10**11), st.integers(0, 10**11), st.integers(1, 131072), st.integers(1, 80),
       st.integers(1, 64), st.integers(1, 256))
def test_the_ram_estimate_grows_with_size_and_context(a, b, ctx, layers, kv, head):
    small, big = sorted((a, b))
    shape = {"n_layers": layers, "n_kv_heads": kv, "head_dim": head}
    assert estimate_ram_bytes(small, ctx, **shape) <= estimate_ram_bytes(big, ctx, **shape)
    assert estimate_ram_bytes(big, ctx, **shape) <= estimate_ram_bytes(big, ctx * 2, **shape)
    assert estimate_ram_bytes(big, ctx) > big  # always more than the weights themselves


def test_the_kv_cache_is_counted_from_the_model_shape():
    # SmolLM2-135M at 4096 tokens: 2 (K, V) x 30 layers x 4096 x 3 heads x 64 x 2 bytes = 94,371,840
    assert estimate_ram_bytes(0, 4096, n_layers=30, n_kv_heads=3, head_dim=64) - estimate_ram_bytes(0, 0) == 94_371_840


@given(st.integers(0, 256 * GB))
def test_the_recommendation_fits_in_half_the_memory(memory):
    pick = recommend(memory)
    if pick is None:
        assert all(e.ram_bytes() > memory / 2 for e in CATALOG)
    else:
        assert pick.ram_bytes() <= memory / 2
        assert all(e.parameters <= pick.parameters for e in CATALOG if e.ram_bytes() <= memory / 2)


def test_recommendations_for_common_machines():
    assert recommend(1 * GB) is None
    assert recommend(4 * GB).parameters < 2_000_000_000
    assert recommend(8 * GB).parameters >= 3_000_000_000
    assert recommend(64 * GB).id == max(CATALOG, key=lambda e: e.parameters).id


def test_the_model_manager_offers_the_catalog_and_its_pick_for_this_machine(tmp_path):
    """What the Models dialog shows comes through library.models, the recommendation for the manager's memory."""
    from desktop_app.core.chat.models.manager import ModelManager

    def manager(memory: int) -> ModelManager:
        return ModelManager(tmp_path, Settings, Settings, memory_bytes=memory)

    assert manager(8 * GB).catalog == CATALOG
    assert manager(1 * GB).recommended(4096) is None
    assert manager(8 * GB).recommended(4096) is recommend(8 * GB, n_ctx=4096)
    assert manager(8 * GB).recommended(32768) is recommend(8 * GB, n_ctx=32768)
    assert manager(64 * GB).recommended(4096).id == max(CATALOG, key=lambda e: e.parameters).id


def test_this_machines_memory_agrees_with_psutil():
    import psutil  # a dev dependency only: core reads the OS directly

    assert abs(machine_memory_bytes() - psutil.virtual_memory().total) <= 0.01 * psutil.virtual_memory().total


def test_too_big_and_format():
    assert too_big_for_memory(9 * GB, 8 * GB) and not too_big_for_memory(7 * GB, 8 * GB)
    assert not too_big_for_memory(9 * GB, 0)  # memory unknown: do not refuse
    assert [format_bytes(n) for n in (12, 1_500, 386_000_000, 2_393_232_608)] == ["12 B", "2 KB", "386 MB", "2.4 GB"]


def test_each_local_install_carries_its_measured_memory_need():
    """The catalog's RAM figure for a local install is the one bench/model_ram.py measured (peak resident memory
    that loading it and answering added), not a guess: the results file and the catalog agree."""
    measured = json.loads((RESULTS / "model_ram.json").read_text(encoding="utf-8"))["results"]
    by_file = {row["model"]: row for row in measured}
    for model in LOCAL_MODELS:
        row = by_file[model.file_name.removesuffix(".gguf")]
        assert row["n_ctx"] == Settings().n_ctx and row["file_bytes"] == model.size_bytes
        assert model.measured_ram_bytes == row["model_bytes"]
        assert model.measured_ram_bytes > 0.9 * model.size_bytes  # every weight is read to answer: all resident


@given(st.integers(0, 64 * GB))
def test_the_proposal_is_the_first_choice_that_fits_in_half_the_memory(memory):
    pick = propose_local(memory)
    fits = [m for m in LOCAL_MODELS if m.measured_ram_bytes <= memory / 2]
    if pick is None:
        assert not fits
    else:
        assert pick.measured_ram_bytes <= memory / 2
        ahead = PROPOSAL_ORDER[: PROPOSAL_ORDER.index(pick.id)]
        assert not [m for m in fits if m.id in ahead]


def test_the_proposal_changes_exactly_at_each_models_memory_threshold():
    for model_id in PROPOSAL_ORDER:
        model = local_model(model_id)
        assert model is not None
        threshold = memory_to_propose(model)
        assert propose_local(threshold) is not None
        assert propose_local(threshold).measured_ram_bytes <= threshold / 2
        below = propose_local(threshold - 1)
        assert below is not model
    assert propose_local(0) is None  # memory unknown: the bundled model stays


def test_the_model_manager_proposes_for_its_memory(tmp_path):
    from desktop_app.core.chat.models.manager import ModelManager

    for memory in (1 * GB, 2 * GB, 4 * GB, 8 * GB, 16 * GB):
        manager = ModelManager(tmp_path, Settings, Settings, memory_bytes=memory)
        assert manager.proposed_local() is propose_local(memory)

"""The Library owns its managers, typed: `models`, `chat`, `memory`, the watcher and the indexing phases."""

from desktop_app.core.chat.models.manager import MODELS_DIR, ModelManager
from desktop_app.core.chat.service import ChatService
from desktop_app.core.index.phases import IndexPhases
from desktop_app.core.memory.service import MemoryService
from desktop_app.core.watch.service import LibraryWatcher


def test_the_facade_owns_one_of_each_manager(make_library, tmp_path):
    lib = make_library()
    assert isinstance(lib.models, ModelManager) and lib.models is lib.models
    assert lib.models.home == lib.home
    assert isinstance(lib.chat, ChatService) and lib.chat is lib.chat
    assert isinstance(lib.memory, MemoryService) and lib.memory is lib.memory
    assert isinstance(lib.phases, IndexPhases)
    assert (lib.indexer, lib.embed_worker, lib.ocr_worker) == (lib.phases.indexer, lib.phases.embed_worker,
                                                               lib.phases.ocr_worker)


def test_models_live_in_the_library_home(make_library):
    lib = make_library()
    assert lib.models.models_dir == lib.home / MODELS_DIR


def test_the_watcher_exists_only_once_started_and_stops_cleanly(make_library, tmp_path):
    lib = make_library()
    assert lib.watcher is None
    lib.stop_watching()  # nothing to stop: no error
    docs = tmp_path / "docs"
    docs.mkdir()
    lib.add_folder(docs)
    watcher = lib.start_watching(check_seconds=0.05)
    assert isinstance(watcher, LibraryWatcher) and lib.watcher is watcher
    assert watcher.wait_idle(60)
    lib.stop_watching()
    assert not watcher.running
    assert not lib.indexer.stopping.is_set()  # a stop that is not a close lets the next sync run
    lib.close()
    assert lib.indexer.stopping.is_set()
    lib.close()  # twice is fine

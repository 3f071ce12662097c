"""Memory reaches its SQL through the Store seam (MemoryStore in core/store/base.py): a library on a server never
loads the SQLite engine's memory SQL, and an embedded one never loads the server's. Each case runs in a child
process, so what the child loaded is what memory (and the store it was given) asked for."""

from __future__ import annotations

import os
import subprocess
import sys

# Memory over the store for argv[1]: facts and history kept, searched, forgotten; then the store modules loaded.
CHILD = """
import sys
from desktop_app.core.memory.service import MemoryService
from desktop_app.core.store import open_store
from desktop_app.core.types import Turn

store = open_store(sys.argv[1])
try:
    memory = MemoryService(store, None)
    memory.add("staging_port", "8099")
    assert [f.value for f in memory.list()] == ["8099"]
    assert memory.save_compacted(5, [Turn("Which port?", "Staging listens on 8099.")], title="Ops") == 1
    assert {hit.kind for hit in memory.search("staging port 8099")} == {"fact", "history"}
    assert memory.forget("staging_port") == 1 and memory.forget_chat(5) == 1
finally:
    store.close()
print(" ".join(sorted(m for m in sys.modules if m.startswith("desktop_app.core.store."))))
"""

SQLITE_MEMORY = {"desktop_app.core.store.sqlite.memory.facts", "desktop_app.core.store.sqlite.memory.chunks"}
SERVER_MEMORY = {"desktop_app.core.store.postgres.memory.facts", "desktop_app.core.store.postgres.memory.chunks"}


def loaded_by_memory(target: str) -> set[str]:
    env = {**os.environ, "TROVE_MACHINE_ID": "desk-seam"}
    out = subprocess.run([sys.executable, "-c", CHILD, target], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    return set(out.stdout.split())


def test_memory_on_a_server_library_loads_no_sqlite_memory_sql(pg_url):
    loaded = loaded_by_memory(pg_url)
    assert SERVER_MEMORY <= loaded
    assert loaded & SQLITE_MEMORY == set()


def test_memory_on_an_embedded_library_loads_no_server_memory_sql(tmp_path):
    loaded = loaded_by_memory(str(tmp_path / "library.db"))
    assert SQLITE_MEMORY <= loaded  # the check sees a memory module when one is loaded
    assert loaded & SERVER_MEMORY == set()

"""The facade's functions that need no open Library: what the window does before or beside one (test a server
URL, join with an invite, hide a URL's password, find the default library, the bundled model and the models
folder, end the process when a phase cannot be stopped) and the few checks it makes on the values the facade
returns (is a passage from memory, is an answer the "not covered" refusal, may a path be opened).

With `desktop_app.core.library` this is the whole of the core the UI calls; everything else it imports from the
core is a value type (tests/unit/layout/test_imports.py keeps that true). The server engine's modules load only
when a server function is called, so a desktop library never imports psycopg.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from desktop_app.core.chat.answer.prompt import NOT_COVERED
from desktop_app.core.chat.models.files import bundled_model_path
from desktop_app.core.errors import KnownError
from desktop_app.core.open_check import folder_to_show, is_unc, refusal
from desktop_app.core.paths import default_home, resolve_home
from desktop_app.core.shutdown import end_now
from desktop_app.core.store import is_server_url

if TYPE_CHECKING:
    from desktop_app.core.chat.answer.context import Passage
    from desktop_app.core.memory.rows import MemoryHit
    from desktop_app.core.server.joining import Joined
    from desktop_app.core.types import RetrievalResult

__all__ = ["NOT_COVERED", "bundled_model_path", "default_home", "end_now", "folder_to_show", "is_memory", "is_unc",
           "join_invite", "memory_results", "models_folder", "probe_server", "redact_url", "refusal"]

def probe_server(url: str) -> str:
    """What a library server at `url` is (version, schema), or a KnownError saying why it cannot be used."""
    if not is_server_url(url):
        raise KnownError("Not a server URL: it must start with postgresql://")
    from desktop_app.core.store.postgres.probe import check_server

    return check_server(url)


def join_invite(home: str | os.PathLike[str] | None, text: str) -> Joined:
    """Accept an invite (`trove server invite NAME`): its credentials go under the library folder `home`."""
    from desktop_app.core.server.joining import join

    return join(resolve_home(home), text)


def redact_url(url: str) -> str:
    """`url` with any password in it replaced (what may be shown and logged)."""
    from desktop_app.core.redact import redact

    return redact(url)


def models_folder(home: str | os.PathLike[str]) -> Path:
    """Where downloaded and installed models of the library at `home` live."""
    from desktop_app.core.chat.models.manager import MODELS_DIR

    return Path(home) / MODELS_DIR


def is_memory(passage: Passage) -> bool:
    """Whether a passage came from conversation memory (a fact or a past chat), not from a document."""
    from desktop_app.core.chat.answer.memory_step import is_memory as from_memory  # loaded with the chat already

    return from_memory(passage)


def memory_results(hits: Sequence[MemoryHit]) -> list[RetrievalResult]:
    """Memory hits (Library.memory's recall) as RetrievalResults, for the Sources pane and citations."""
    from desktop_app.core.memory.service import memory_results as as_results

    return as_results(hits)

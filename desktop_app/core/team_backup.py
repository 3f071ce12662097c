"""A team library's person backs up what they may read: `trove backup` on a server library.

The copy is made through the person's own connection, so the server's row-level security decides what it holds:
every folder they may see (their own, the team's, those shared with them; any machine's), its documents with their
chunks, vectors, documents inside files and OCR pages, and the person's own chats and conversation memory (facts
with their vectors, raw history chunks). It is written as an embedded library file, so the backup has the same
format as an embedded library's (core/backup.py) and `trove restore` puts it into an embedded library; the
settings travel without the server's address (the restored library is a local one).

Unlike an embedded backup it is not one snapshot: the server is read a page of documents at a time while others
may write, so a document changed meanwhile is in the backup as it was either before or after, never half. The
administrator's backup of the whole server (every person's rows) is `trove server backup`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from desktop_app.core.memory.rows import FactSource, NewFact, NewMemoryChunk
from desktop_app.core.store.base import Store
from desktop_app.core.store.copy import BATCH, CopyReport, copy_document
from desktop_app.core.store.sqlite.backup.copies import self_contained

# Settings a restored (embedded) library must not carry over: they name the server.
SERVER_SETTINGS = ("server_url",)


def copy_visible(source: Store, dest: Path) -> None:
    """Write what the person signed in to `source` may read into a new embedded library file `dest`."""
    from desktop_app.core.store.sqlite import SQLiteStore  # on first use: the engine package imports a lot

    target = SQLiteStore(dest)
    try:
        model, dim = source.get_meta("embed_model"), source.get_meta("embed_dim")
        if model and dim:
            target.ensure_embedding_model(model, int(dim))
        folders = {row.id: target.add_folder(row.path).id for row in source.all_folders()}  # what RLS shows
        report, after = CopyReport(), 0
        while page := source.stored_documents(after, BATCH):
            for stored in page:
                if stored.doc.folder_id in folders:
                    copy_document(stored, folders[stored.doc.folder_id], target, report)
            after = page[-1].id
        chats = _copy_chats(source, target)
        _copy_memory(source, target, chats)
    finally:
        target.close()
    self_contained(dest)  # one file, like an embedded library's copy (no -wal beside it)


def _copy_chats(source: Store, target: Store) -> dict[int, int]:
    """The person's chats (the server shows each person only their own), oldest first; new ids by old."""
    mapping = {}
    for chat in reversed(source.list_chats()):
        new_id = target.create_chat(chat.title, chat.created_at)
        messages = source.chat_messages(chat.id)
        if messages:
            target.add_messages(new_id, messages, chat.title, chat.updated_at)
        mapping[chat.id] = new_id
    return mapping


def _copy_memory(source: Store, target: Store, chats: dict[int, int]) -> None:
    """The person's memory: the switch, facts (with vectors, corrections and times) and raw history chunks."""
    facts_in, chunks_in = source.memory_facts(), source.memory_chunks()
    facts_out, chunks_out = target.memory_facts(), target.memory_chunks()
    facts_out.set_enabled(facts_in.enabled())
    if facts_in.forgot_through():  # message ids differ here: every copied turn counts as already handled
        last = max((m.id for cid in chats.values() for m in target.chat_messages(cid)), default=0)
        facts_out.set_forgot_through(last)
    vectors = dict(facts_in.fact_vectors())
    ids: dict[int, int] = {}
    facts = sorted(facts_in.facts(), key=lambda f: f.id)
    for f in facts:
        new = NewFact(f.key, f.value, f.category, FactSource(f.source), f.confidence, f.expires_at,
                      chats.get(f.chat_id) if f.chat_id is not None else None, f.turn)
        ids[f.id] = facts_out.insert_fact(new, f.created_at, f.merged_keys, vectors.get(f.id))
        facts_out.touch_fact(ids[f.id], f.updated_at, f.confidence, f.merged_keys, f.expires_at)
    for f in facts:
        if f.superseded_by in ids:
            facts_out.supersede(ids[f.id], ids[f.superseded_by])
    for old_chat, new_chat in chats.items():
        for c in chunks_in.chat_chunks(old_chat):  # one at a time: each keeps its own date (re-embedded there)
            chunks_out.insert([NewMemoryChunk(new_chat, c.chat_title, c.first_turn, c.last_turn, c.text, c.text_hash,
                                              c.breadcrumbs)], c.created_at)


def local_settings(data: bytes) -> bytes:
    """settings.json without the server's address: the restored library is an embedded one."""
    try:
        settings: dict[str, Any] = json.loads(data)
    except ValueError:
        return data  # not ours to mend: a backup carries it as it is, and restore reads it as Trove always does
    for key in SERVER_SETTINGS:
        settings.pop(key, None)
    return json.dumps(settings, indent=2).encode()

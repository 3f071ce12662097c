"""Conversation memory: what a person said, kept beside their library and recalled into later chats.

MemoryService (service.py) is the whole of it as the facade exposes it (`Library.memory`): facts (facts.py; the
extractor in extract.py), raw chat history (raw.py, breadcrumbs.py), one search over both and the documents
(search.py), recall for a chat's next prompt (recall.py, about_chat.py), and the values they return (rows.py). The
rows live in the library's store, reached through its MemoryStore role (core/store/base.py). The seed's
MemoryBackend / MemoryRegistry API is a separate, older contract: seed.py.
"""

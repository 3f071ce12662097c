"""Conversation memory in the SQLite engine: the person's facts and the raw history chunks of their chats."""

"""Conversation memory on a team library: each person's facts, the raw history of their chats, and migration 007's
schema for both."""

"""Grounded chat: context injection, model runtimes (llama.cpp in-process, OpenAI-compatible HTTP), citations, sessions.

Importing this package loads no model code; llama_cpp is imported only when a model is first used.
"""

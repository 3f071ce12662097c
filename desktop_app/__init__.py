"""Trove: a local-first desktop knowledge base."""

__version__ = "0.1.0"

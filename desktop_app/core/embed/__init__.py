"""Text embedders: the Embedder protocol, make_embedder (by setting name, "auto" per library) and the models."""

from desktop_app.core.embed.base import Embedder, HashEmbedder, make_embedder
from desktop_app.core.embed.minilm import MiniLMEmbedder

__all__ = ["Embedder", "HashEmbedder", "MiniLMEmbedder", "make_embedder"]

"""Text embedders: the Embedder protocol, the real MiniLM model and a deterministic stand-in."""

from desktop_app.core.embed.base import Embedder, HashEmbedder, make_embedder
from desktop_app.core.embed.minilm import MiniLMEmbedder

__all__ = ["Embedder", "HashEmbedder", "MiniLMEmbedder", "make_embedder"]

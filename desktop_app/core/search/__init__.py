"""Keyword, dense and hybrid retrieval over the library database."""

"""The SQLite engine's keyword index: FTS5 rows of core/text's fields, the exact top-k plan over them, bm25() as FTS5
computes it for the side index's candidates, and the rows a write batch holds until it commits."""

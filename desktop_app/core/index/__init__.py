"""Writing the index: documents, chunks, FTS rows and vectors, one transaction per file."""

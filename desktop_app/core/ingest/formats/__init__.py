"""One module per family of formats; each turns a file's bytes into an `Extracted` (or raises ExtractionError)."""

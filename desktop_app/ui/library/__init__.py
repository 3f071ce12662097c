"""Windows over the library itself: the folders panel and its rows, the ledger of every file, and the Memory panel."""

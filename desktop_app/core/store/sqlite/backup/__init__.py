"""Copies of a SQLite library: the online backup API for `trove backup`, the snapshot before a migration, `trove
repair`'s check and rebuild, and whole files read back for `trove migrate`."""

"""Live folder sync: watchdog observers, a debounced queue, and the LibraryWatcher that applies it."""

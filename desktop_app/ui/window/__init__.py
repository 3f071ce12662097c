"""The main window: its layout, menus, status bar and notices, drops, the empty state, the library's events brought
onto the UI thread, and File → Back up / Restore."""

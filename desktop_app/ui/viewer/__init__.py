"""The viewer: a search result or a chat citation opened at its passage, highlighted, docked in the main window."""

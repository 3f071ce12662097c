"""The dialogs: settings (and its AI apps page), chat models and their tables, About."""

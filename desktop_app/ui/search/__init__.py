"""The search pane: the query box answering as you type, its filters written as query syntax, saved searches, the
memory scope, and the results list (its model, painting, snippets and type badges)."""

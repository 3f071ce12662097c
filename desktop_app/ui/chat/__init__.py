"""The chat pane: the question box, the transcript and how one answer reads in it, past chats, the scope bar, the
header's model, the passages behind an answer, and what an empty chat offers."""

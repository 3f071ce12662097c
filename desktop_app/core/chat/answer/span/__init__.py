"""Answers that span passages: whether a question asks to compare, list or gather, the cited quotes from several
documents, and a larger model's prose over them."""

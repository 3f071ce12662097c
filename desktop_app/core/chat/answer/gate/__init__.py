"""Whether to answer and whether an answer holds: the abstention rule, citation markers, their check against the
passages, and exact-overlap attribution."""

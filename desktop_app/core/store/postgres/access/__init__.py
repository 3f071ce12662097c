"""Who may reach a team library and what each person reads: the TLS front (the only listener), SCRAM-SHA-256-PLUS,
the roles, row-level security and GRANTs, and what `trove server` provisions inside the cluster."""

"""Running a team server and joining one: `trove server …` (server.py and the parts it composes: the PostgreSQL
process, certificates, pg_hba, the TLS front's process, invites, people, databases) and `trove join` (joining.py).

What these ask of PostgreSQL is the engine's SQL and stays in its folder (store/postgres/: roles.py, provision.py,
probe.py); the TLS front (store/postgres/access/front.py) runs as a script of its own and reads the role catalog itself,
so it stays there too, with scram.py beside it."""

"""Derived indexes beside a library, shared by both engines: the rebuild lifecycle (base.py), the vector sketch
(vector_index.py), the tantivy keyword index (keyword_index.py) and a desktop's copies of a team library
(copies.py). What each engine feeds them is its own SQL: sqlite/side.py, postgres/side.py."""

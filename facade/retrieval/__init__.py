"""Relevance: which texts answer a request. Lexical (BM25 over stemmed words) and semantic (the
packaged all-MiniLM-L6-v2, run with numpy) scoring, shared by the host's context manager and
the catalogue's tool search. A leaf: it imports nothing of facade."""

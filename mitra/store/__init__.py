"""The stores: the knowledge base (Chroma + BM25 + catalog), the writer lock."""

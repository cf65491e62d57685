"""`mitra adapt`: train a reranker on the knowledge base's own text."""

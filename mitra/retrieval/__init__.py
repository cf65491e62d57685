"""The online retrieval pipeline: routing (tier 1) and retrieval in a locked analysis (tier 2)."""

"""Evaluation: metrics, retrieval and answer quality, user feedback."""

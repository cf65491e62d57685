"""Answering from retrieved passages: prompts, the grounded answerer, citations."""

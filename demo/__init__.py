"""The fictional ORION demo corpus: content in corpus/*.yaml, rendered by make_corpus.py."""

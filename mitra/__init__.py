"""MITRA: answers questions about a collaboration's analyses from their own documents."""

__version__ = "0.1.0"

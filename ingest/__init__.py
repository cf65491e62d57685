"""Offline ingestion: crawl the document portal, extract text with layout, chunk, index."""

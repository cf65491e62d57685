"""Where documents come from: JSONL text, the document portal (crawl, login, manifest, profiles)."""

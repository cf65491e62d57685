"""The core every stage shares: settings, typed records, errors, text normalisation, JSONL io."""

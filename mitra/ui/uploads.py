"""Files uploaded in the browser, written where nothing else lives.

The browser chooses an uploaded file's name (``../../x.jsonl`` is a valid one), so it
never becomes part of a path: the bytes go to a fresh temporary directory under a
generated name that keeps only a plain suffix, and both are removed afterwards.
"""

from __future__ import annotations

import re
import secrets
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator


@contextmanager
def saved_upload(data: bytes, name: str) -> Iterator[Path]:
    suffix = Path(name).suffix.lower()
    suffix = suffix if re.fullmatch(r"\.[a-z0-9]{1,8}", suffix) else ""
    with tempfile.TemporaryDirectory(prefix="mitra-upload-") as directory:
        path = Path(directory) / f"upload-{secrets.token_hex(8)}{suffix}"
        path.write_bytes(data)
        yield path

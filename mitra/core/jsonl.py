"""Reading user-supplied JSONL files with errors that name the file and line.

Files are streamed a line at a time (``JsonlFile`` can be read again for a second
pass), so a large file costs the memory of its largest line, not of the file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Generic, Iterable, Iterator, TypeVar

from pydantic import BaseModel, ValidationError

from mitra.core.errors import MitraError

M = TypeVar("M", bound=BaseModel)


class InputError(MitraError, ValueError):
    """A user-supplied file is malformed; the message names the file and line."""


class JsonlFile(Generic[M]):
    """The records of a JSONL file, parsed again on every iteration. ``name`` is how
    errors call the file (an upload's own name, say, rather than where it was saved)."""

    def __init__(self, path: Path, model: type[M], name: str | None = None):
        self.path, self.model, self.name = Path(path), model, name or str(path)
        self.count: int | None = None  # records, known once a pass has read them all

    def __iter__(self) -> Iterator[M]:
        if self.path.is_dir():
            raise InputError(f"{self.name}: is a directory, not a JSONL file")
        if not self.path.is_file():
            raise InputError(f"{self.name}: no such file")
        found = 0
        with self.path.open("rb") as handle:
            for number, raw in enumerate(handle, start=1):
                line = self._decode(raw, number)
                if line.strip():
                    found += 1
                    yield self._parse(line, number)
        if not found:
            raise InputError(f"{self.name}: no records")
        self.count = found

    def _decode(self, raw: bytes, number: int) -> str:
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as error:
            raise InputError(
                f"{self.name}:{number}: not UTF-8 text (byte 0x{raw[error.start]:02x} at column {error.start + 1}); "
                "save the file as UTF-8"
            ) from None

    def _parse(self, line: str, number: int) -> M:
        try:
            return self.model.model_validate_json(line)
        except ValidationError as error:
            first = error.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            prefix = f"{where}: " if where else ""
            raise InputError(f"{self.name}:{number}: {prefix}{first['msg']}") from None


def read_jsonl(path: Path, model: type[M], name: str | None = None) -> list[M]:
    """Parse every line before anything acts on them, so a bad line changes nothing."""
    return list(JsonlFile(path, model, name))


def write_jsonl(path: Path, rows: Iterable[dict]) -> None:
    with path.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")

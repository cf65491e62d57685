"""Reading user-supplied JSONL files with errors that name the file and line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable, TypeVar

from pydantic import BaseModel, ValidationError

from mitra.errors import MitraError

M = TypeVar("M", bound=BaseModel)


class InputError(MitraError, ValueError):
    """A user-supplied file is malformed; the message names the file and line."""


def read_jsonl(path: Path, model: type[M]) -> list[M]:
    """Parse every line before anything acts on them, so a bad line changes nothing."""
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    records = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                records.append(model.model_validate_json(line))
            except ValidationError as error:
                first = error.errors()[0]
                where = ".".join(str(p) for p in first["loc"])
                prefix = f"{where}: " if where else ""
                raise InputError(f"{path}:{number}: {prefix}{first['msg']}") from None
    if not records:
        raise InputError(f"{path}: no records")
    return records


def write_jsonl(path: Path, rows: Iterable[dict]) -> None:
    with path.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")

"""The demo's settings kept where a plain ``streamlit run app.py`` (or ``mitra ...``) finds
them: ``scripts/demo.sh`` sets its data dir and the rest in its own environment only, so a
restart the README's way found no knowledge base and no sign-in. Settings read ``.env``
in the working directory (``mitra.core.settings``); the demo writes one there, unless
one it did not write is already there (then it prints the command to restart with).

    python -m demo.remember MITRA_DATA_DIR=...
"""

from __future__ import annotations

import sys
from pathlib import Path

MARK = "# Written by scripts/demo.sh: the demo's settings for `streamlit run app.py` and `mitra`."


def remember(settings: dict[str, str], where: Path = Path(".env")) -> str:
    """Writes ``settings`` to ``where`` (if absent, or written by the demo before); what to tell the member."""
    if where.exists() and not where.read_text().startswith(MARK):
        command = " ".join(f"{k}={v}" for k, v in settings.items())
        return f"{where} is yours, so it is left alone: restart the demo with `{command} streamlit run app.py`"
    where.write_text(MARK + "\n" + "".join(f"{k}={v}\n" for k, v in settings.items()))
    return f"Restart it any time with `streamlit run app.py` (its settings are in {where})"


if __name__ == "__main__":
    print(remember(dict(arg.split("=", 1) for arg in sys.argv[1:])))

"""After ``scripts/demo.sh``, the README's plain ``streamlit run app.py`` finds the demo
(issue 47): its data dir and sign-in were set in the script's environment only, and the
restarted app said "No sign-in is configured". Here a fresh clone's root with the demo's
data dir and user, as the script leaves them, in a process with no MITRA_* variables."""

from __future__ import annotations

import os
import subprocess
import sys

from mitra.access.users import LocalUsers
from tests.conftest import REPO

READ_BACK = ("from mitra.core.settings import Settings; from mitra.ui.auth import auth_mode; "
             "s = Settings(); print(s.data_dir.resolve(), auth_mode(s))")


def _run(clone, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MITRA_")} | {"PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, *args], cwd=clone, env=env, capture_output=True, text=True,
                          check=True).stdout.strip()


def test_the_plain_restart_finds_the_demos_data_dir_and_sign_in(tmp_path):
    clone, data_dir = tmp_path / "clone", tmp_path / "clone" / ".mitra" / "demo"
    data_dir.mkdir(parents=True)
    LocalUsers(data_dir / "users.yaml").add("demo", "orion-demo", ["orion"], admin=True)
    assert "-m demo.remember MITRA_DATA_DIR=" in (REPO / "scripts" / "demo.sh").read_text()

    said = _run(clone, "-m", "demo.remember", f"MITRA_DATA_DIR={data_dir}")
    assert "streamlit run app.py" in said
    assert _run(clone, "-c", READ_BACK) == f"{data_dir} local"  # not "unconfigured": the sign-in is found

    (clone / ".env").write_text("MITRA_AUTH=none\n")  # the member's own: kept, and the command said instead
    said = _run(clone, "-m", "demo.remember", f"MITRA_DATA_DIR={data_dir}")
    assert (clone / ".env").read_text() == "MITRA_AUTH=none\n" and f"MITRA_DATA_DIR={data_dir} streamlit run" in said

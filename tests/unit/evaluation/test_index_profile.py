"""The indexing profile attributes time to stages by function names: each must still name
a function of this repository (a rename would silently read as a stage taking 0 s)."""

from pathlib import Path

from benchmarks.index_profile import STAGES

REPO = Path(__file__).resolve().parents[3]


def test_every_stage_names_a_function_that_exists():
    for stage, functions in STAGES.items():
        for suffix, name in functions:
            if suffix.startswith(("mitra/", "ingest/")):
                assert f"def {name}(" in (REPO / suffix).read_text(), (stage, suffix, name)

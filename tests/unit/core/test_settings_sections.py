"""Every setting belongs to one section and says what it does; presets start from named setups."""

import pytest

from mitra.core.settings import PRESETS, SECTIONS, Settings


def test_every_setting_is_in_one_section_and_described():
    in_sections = [name for section in SECTIONS.values() for name in section.model_fields]
    assert sorted(in_sections) == sorted(Settings.model_fields) and len(set(in_sections)) == len(in_sections)
    assert [name for name, field in Settings.model_fields.items() if not field.description] == []


def test_presets_and_what_wins_over_them(monkeypatch):
    assert set(PRESETS) >= {"default", "demo", "paper"}
    assert Settings.from_name("demo", _env_file=None).llm_backend == "embedded"
    assert Settings.from_name("paper", _env_file=None).embedder == "dpr"
    monkeypatch.setenv("MITRA_FINAL_K", "7")
    assert Settings.from_name("demo", _env_file=None).final_k == 7  # the environment wins
    assert Settings.from_name("demo", _env_file=None, final_k=3).final_k == 3  # and arguments win over both
    with pytest.raises(ValueError, match="unknown preset 'fast'"):
        Settings.from_name("fast")

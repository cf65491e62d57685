import pytest
from pydantic import ValidationError

from mitra.core.settings import Settings


def test_config_file_env_and_arguments_in_priority_order(tmp_path, monkeypatch):
    config = tmp_path / "mitra.toml"
    config.write_text('final_k = 4\nreranker = "none"\nweight_bm25 = 0.5\n')
    monkeypatch.setenv("MITRA_CONFIG", str(config))
    monkeypatch.setenv("MITRA_WEIGHT_BM25", "0.7")
    settings = Settings(data_dir=tmp_path)
    assert settings.final_k == 4 and settings.reranker == "none"  # from the file
    assert settings.weight_bm25 == 0.7  # the environment beats the file
    assert Settings(data_dir=tmp_path, final_k=2).final_k == 2  # arguments beat both


def test_yaml_config(tmp_path, monkeypatch):
    config = tmp_path / "mitra.yaml"
    config.write_text("chroma_host: 127.0.0.1\nchroma_port: 9000\n")
    monkeypatch.setenv("MITRA_CONFIG", str(config))
    settings = Settings(data_dir=tmp_path)
    assert (settings.chroma_host, settings.chroma_port) == ("127.0.0.1", 9000)


def test_missing_config_file_and_bad_values_are_clear(tmp_path, monkeypatch):
    monkeypatch.setenv("MITRA_CONFIG", str(tmp_path / "nope.toml"))
    with pytest.raises(FileNotFoundError, match="MITRA_CONFIG points to"):
        Settings()
    monkeypatch.delenv("MITRA_CONFIG")
    with pytest.raises(ValidationError, match=r"final_k\n  Input should be greater than or equal to 1"):
        Settings(final_k=0)
    with pytest.raises(ValidationError, match="chunk_min_chars must be smaller"):
        Settings(chunk_min_chars=500, chunk_max_chars=400)
    with pytest.raises(ValidationError):
        Settings(embedder="word2vec")

"""The sidebar names the model, not the address it is served at (which Markdown made a link)."""

from mitra.models.llm import ModelInfo
from mitra.ui.render import inert_markdown


def test_the_model_is_named_without_its_address_or_folder():
    info = ModelInfo(backend="embedded", model="/opt/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
                     base_url="http://127.0.0.1:41234/v1")
    assert info.name == "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf (embedded)"
    assert "http" not in info.name and "`" not in inert_markdown(info.name)

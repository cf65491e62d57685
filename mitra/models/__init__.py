"""The models, loaded by name where a machine has them: embedders, rerankers, chat models."""

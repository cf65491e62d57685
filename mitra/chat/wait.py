"""What the member is told while the model reads the passages, before its first word.

On a CPU the model's reading of the prompt is most of the wait (28–36 s for five
passages with the demo model on 2 cores), so the wait is said in its own terms: how many
passages, how many tokens, and how long that takes on this machine. The tokens are
counted by the model server's tokenizer where it has one (llama.cpp's ``/tokenize``),
else estimated from characters; the time comes from the prompt speed measured on the
answers this process has already given (tokens before the first word, over the time to
it, the tokens its server had cached left out), a running estimate. Before any answer
there is no measurement, and the line says so.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import httpx

from mitra.answer.answerer import Answer
from mitra.answer.prompts import Prompt
from mitra.models.llm import ModelInfo

_TOKENIZE_TIMEOUT_S = 2.0
_WEIGHT = 0.5  # of the newest measurement in the running estimate: machines' load changes
# A prompt the server mostly had cached (the same passages again) times its overhead, not its speed.
_MIN_READ_TOKENS = 64


@dataclass(frozen=True)
class Reading:
    """The model has the passages and is reading them: what to tell the member."""

    passages: int
    tokens: int
    counted: bool  # tokens counted by the model's tokenizer, not estimated from characters
    seconds: float | None  # None until a prompt speed was measured in this process

    def __str__(self) -> str:
        what = f"The model is reading {self.passages} passage{'s' * (self.passages != 1)} (≈{self.tokens:,} tokens)"
        if self.seconds is None:
            return f"{what}; how long that takes on this machine is measured by the first answer."
        return f"{what}, about {max(1, round(self.seconds)):,} s on this machine."


class PromptSpeed:
    """Prompt-processing tokens per second, a running estimate over the answers of every
    session of the process (one model serves them all)."""

    def __init__(self) -> None:
        self.tokens_per_s: float | None = None
        self._lock = threading.Lock()

    def measure(self, answer: Answer) -> None:
        """Learn from an answer: the prompt tokens the server read (as it counted them, less
        those it had cached) over the model's time to its first word (the request starts
        after retrieval and the prompt's assembly)."""
        t = answer.timings
        read = (answer.prompt_tokens or 0) - (answer.prompt_cached_tokens or 0)
        if read < _MIN_READ_TOKENS or t.first_token_ms is None:
            return
        reading_s = (t.first_token_ms - t.retrieve_ms - t.rerank_ms - t.prompt_ms) / 1000
        if reading_s <= 0:
            return
        measured = read / reading_s
        with self._lock:
            previous = self.tokens_per_s
            self.tokens_per_s = measured if previous is None else _WEIGHT * measured + (1 - _WEIGHT) * previous

    def reading(self, prompt: Prompt, model: ModelInfo | None) -> Reading:
        counted = count_tokens(prompt, model)
        tokens = counted if counted is not None else prompt.estimated_tokens
        speed = self.tokens_per_s
        # an across prompt lists the passages served before it without their text: not read now
        return Reading(passages=sum(1 for p in prompt.passages if p.text), tokens=tokens, counted=counted is not None,
                       seconds=tokens / speed if speed else None)


def count_tokens(prompt: Prompt, model: ModelInfo | None) -> int | None:
    """The prompt's tokens by the model server's tokenizer (llama.cpp's ``/tokenize``);
    None where the server has none or does not answer at once (the estimate is used then)."""
    if model is None or model.backend not in ("embedded", "openai"):
        return None
    text = "\n".join(str(m.content) for m in prompt.messages)
    url = model.base_url.rstrip("/").removesuffix("/v1") + "/tokenize"
    try:
        reply = httpx.post(url, json={"content": text}, timeout=_TOKENIZE_TIMEOUT_S)
        tokens = reply.json().get("tokens") if reply.status_code == 200 else None
    except (httpx.HTTPError, ValueError):
        return None
    return len(tokens) if isinstance(tokens, list) else None

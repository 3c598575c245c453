"""transformers `generate` on the CPU: batched, for small runs and machines without vLLM."""

from __future__ import annotations

from typing import Any

from .base import Conversation, Generation, Sampling, prompt_seed


def chat_text(tokenizer: Any, conversation: Conversation, response_prefix: str = "") -> str:
    """The text a chat model continues: the conversation in the model's chat template, the
    assistant turn opened and begun with `response_prefix`. The one place evalkit applies a chat
    template (evaluation and GRPO), so training and held-out evaluation see the same prompt."""
    return tokenizer.apply_chat_template(conversation, add_generation_prompt=True, tokenize=False) + response_prefix


class TransformersBackend:
    name = "transformers"

    def __init__(
        self, model: str | None = None, batch_size: int = 8, threads: int | None = None, response_prefix: str = ""
    ) -> None:
        import torch

        from evalkit.models import DEFAULT_MODEL, load_transformers

        if threads:
            torch.set_num_threads(threads)
        self.model_name = model or DEFAULT_MODEL
        self.model, self.tokenizer = load_transformers(model)
        self.batch_size = batch_size
        self.response_prefix = response_prefix

    @classmethod
    def from_model(
        cls, model: Any, tokenizer: Any, name: str = "in-memory", batch_size: int = 8, response_prefix: str = ""
    ) -> "TransformersBackend":
        """Wrap a model already in memory (e.g. the policy being trained by the GRPO loop)."""
        backend = cls.__new__(cls)
        backend.model_name, backend.model, backend.tokenizer, backend.batch_size = name, model, tokenizer, batch_size
        backend.response_prefix = response_prefix
        return backend

    def generate(self, conversations: list[Conversation], sampling: Sampling) -> list[list[Generation]]:
        """Each prompt is sampled with its own seed (from its text), so results do not depend on
        which other prompts share its batch."""
        out: list[list[Generation]] = []
        per_call = max(1, self.batch_size // max(1, sampling.n))
        for start in range(0, len(conversations), per_call):
            for conv in conversations[start : start + per_call]:
                out.append(self._sample(conv, sampling))
        return out

    def _sample(self, conversation: Conversation, sampling: Sampling) -> list[Generation]:
        import torch

        text = chat_text(self.tokenizer, conversation, self.response_prefix)
        enc = self.tokenizer([text], return_tensors="pt", add_special_tokens=False)
        torch.manual_seed(prompt_seed(sampling.seed, conversation[-1]["content"]))
        greedy = sampling.temperature <= 0
        kwargs: dict[str, Any] = {
            "max_new_tokens": sampling.max_tokens,
            "num_return_sequences": sampling.n,
            "pad_token_id": self.tokenizer.pad_token_id,
            "do_sample": not greedy,
        }
        if not greedy:
            kwargs.update(temperature=sampling.temperature, top_p=sampling.top_p)
        kwargs.update(sampling.extra)
        with torch.no_grad():
            output = self.model.generate(**enc, **kwargs)
        new = output[:, enc["input_ids"].shape[1] :]
        eos = {self.tokenizer.eos_token_id, self.tokenizer.pad_token_id}
        gens = []
        for row in new.tolist():
            n_tokens = next((i for i, t in enumerate(row) if t in eos), None)
            finished = n_tokens is not None
            tokens = row[:n_tokens] if finished else row
            gens.append(
                Generation(
                    self.response_prefix + self.tokenizer.decode(tokens, skip_special_tokens=True),
                    len(tokens),
                    "stop" if finished else "length",
                )
            )
        return gens

    def close(self) -> None:
        self.model = None

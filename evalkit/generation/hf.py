"""transformers `generate`: batched, on the GPU where there is one, for small runs and machines without vLLM."""

from __future__ import annotations

from typing import Any

from .base import Conversation, Generation, Sampling


def chat_text(tokenizer: Any, conversation: Conversation, response_prefix: str = "") -> str:
    """The text a chat model continues: the conversation in the model's chat template, the
    assistant turn opened and begun with `response_prefix`. The one place evalkit applies a chat
    template (evaluation and GRPO), so training and held-out evaluation see the same prompt."""
    return tokenizer.apply_chat_template(conversation, add_generation_prompt=True, tokenize=False) + response_prefix


class TransformersBackend:
    """transformers `generate`, batched (`batch_size` rows a call, the prompts left-padded) on
    `device` in `dtype` (evalkit/devices.py: "auto" is the GPU in bfloat16 where there is one).
    Each row is sampled with its own seed, from its prompt and sample number, so a prompt's samples
    do not depend on which prompts share its batch (evalkit/generation/row_sampling.py)."""

    name = "transformers"

    def __init__(
        self,
        model: str | None = None,
        batch_size: int = 64,
        threads: int | None = None,
        response_prefix: str = "",
        device: str = "auto",
        dtype: str = "auto",
    ) -> None:
        import torch

        from evalkit.devices import resolve_device, resolve_dtype
        from evalkit.models import DEFAULT_MODEL, load_transformers

        if threads:
            torch.set_num_threads(threads)
        self.device = resolve_device(device)
        self.dtype = resolve_dtype(dtype, self.device)
        self.model_name = model or DEFAULT_MODEL
        self.model, self.tokenizer = load_transformers(model, dtype=str(self.dtype).removeprefix("torch."))
        self.model.to(self.device)
        self.batch_size = batch_size
        self.response_prefix = response_prefix

    @classmethod
    def from_model(
        cls, model: Any, tokenizer: Any, name: str = "in-memory", batch_size: int = 64, response_prefix: str = ""
    ) -> "TransformersBackend":
        """Wrap a model already in memory (e.g. the policy being trained by the GRPO loop), where it is."""
        backend = cls.__new__(cls)
        backend.model_name, backend.model, backend.tokenizer, backend.batch_size = name, model, tokenizer, batch_size
        backend.device = next(model.parameters()).device
        backend.dtype = next(model.parameters()).dtype
        backend.response_prefix = response_prefix
        return backend

    def generate(self, conversations: list[Conversation], sampling: Sampling) -> list[list[Generation]]:
        """`sampling.n` completions of each conversation, as many prompts a `generate` call as fit
        `batch_size` rows."""
        out: list[list[Generation]] = []
        per_call = max(1, self.batch_size // max(1, sampling.n))
        for start in range(0, len(conversations), per_call):
            out += self._sample(conversations[start : start + per_call], sampling)
        return out

    def _sample(self, conversations: list[Conversation], sampling: Sampling) -> list[list[Generation]]:
        from .batched import Ends, generate_rows
        from .row_sampling import row_seeds

        texts = [chat_text(self.tokenizer, c, self.response_prefix) for c in conversations]
        enc = self.tokenizer(texts, return_tensors="pt", padding=True, add_special_tokens=False).to(self.device)
        keys = [f"{c[-1]['content']}\x00{j}" for c in conversations for j in range(sampling.n)]
        output = generate_rows(
            self.model,
            enc["input_ids"],
            enc["attention_mask"],
            row_seeds(sampling.seed, keys),
            sampling,
            Ends(self.tokenizer.pad_token_id, self.tokenizer.eos_token_id),
        )
        new = output[:, enc["input_ids"].shape[1] :].tolist()
        eos = {self.tokenizer.eos_token_id, self.tokenizer.pad_token_id}
        gens = []
        for row in new:
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
        return [gens[i : i + sampling.n] for i in range(0, len(gens), sampling.n)]

    def close(self) -> None:
        self.model = None

"""A supervised warm-up before GRPO: fine-tune on worked solutions of training tasks (R1's cold start).

Why: GRPO can only reinforce what the policy already samples. On countdown-2 the packaged 135M model
rarely picks the operation a puzzle needs, so the rewarded groups teach it one operation for every
puzzle (docs/grpo.md). A few epochs of next-token loss on solved training puzzles teach the choice
from examples, and GRPO starts from a policy that already answers most puzzles (docs/grpo.md measures
what each stage adds: on countdown-2 the warm-up carries nearly all of it). The examples are the records `few_shot` and `evalkit eval --few-shot`
read (task fields or a `prompt`, and a `completion`); a record that is one of the held-out tasks is
refused, so the warm-up never sees what the evaluation scores.

The result is a model folder (`RUN_DIR/warmup/`): training starts from it, and its KL reference is
it, as in R1, where the RL stage's reference is the cold-start checkpoint.
"""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any, Callable, Sequence

from evalkit.pipeline import PromptTemplate, shot_pair
from verifiers import Verifier
from verifiers.records import json_lines


def warmup_pairs(records: Sequence[dict[str, Any]], verifier: Verifier, response_prefix: str) -> list[tuple[str, str]]:
    """(prompt, what the model writes after the response prefix) for each record; a record whose
    completion does not start with the prefix cannot be a continuation of the training prompt."""
    pairs = []
    for number, record in enumerate(records, start=1):
        try:
            prompt, completion = shot_pair(record, verifier)
        except Exception as exc:
            raise ValueError(f"warm-up example {number}: {exc}") from None
        if not completion.startswith(response_prefix):
            raise ValueError(f"warm-up example {number}: its completion must start with {response_prefix!r}")
        pairs.append((prompt, completion[len(response_prefix) :]))
    return pairs


def refuse_held_out(pairs: Sequence[tuple[str, str]], held_out: dict[str, str]) -> None:
    """`held_out` maps a held-out prompt to its task id; any warm-up prompt among them is a leak."""
    for number, (prompt, _) in enumerate(pairs, start=1):
        if prompt in held_out:
            raise ValueError(f"warm-up example {number} is held-out task {held_out[prompt]!r}: it would leak the test")


def read_records(path: str | Path) -> list[dict[str, Any]]:
    """The JSON objects of a JSONL file, one a line; a file or line that cannot be read raises ValueError."""
    records = []
    try:
        for line_no, record in json_lines(path):
            if not isinstance(record, dict):
                raise ValueError(f"{path}:{line_no}: a warm-up example must be a JSON object")
            records.append(record)
    except OSError as exc:
        raise ValueError(f"cannot read the warm-up examples: {exc}") from None
    return records


def supervised_warmup(
    model: Any,
    tokenizer: Any,
    template: PromptTemplate,
    pairs: Sequence[tuple[str, str]],
    epochs: int,
    learning_rate: float,
    batch_size: int = 16,
    seed: int = 0,
    progress: Callable[[dict[str, Any]], None] | None = None,
) -> list[dict[str, Any]]:
    """Next-token loss on each completion (and its end token), not on the prompt; one line per epoch."""
    import torch

    from evalkit.generation.hf import chat_text

    rows = []
    for prompt, completion in pairs:
        prompt_ids = tokenizer(
            chat_text(tokenizer, template.conversation(prompt), template.response_prefix), add_special_tokens=False
        )["input_ids"]
        completion_ids = tokenizer(completion + tokenizer.eos_token, add_special_tokens=False)["input_ids"]
        rows.append((prompt_ids, completion_ids))
    optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate)
    order = random.Random(seed)
    lines = []
    start = time.time()
    model.train()
    for epoch in range(1, epochs + 1):
        shuffled = rows[:]
        order.shuffle(shuffled)
        losses = []
        for first in range(0, len(shuffled), batch_size):
            loss = _batch_loss(model, shuffled[first : first + batch_size], tokenizer.pad_token_id)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
            losses.append(loss.item())
        line = {"warmup_epoch": epoch, "warmup_loss": sum(losses) / len(losses), "seconds": time.time() - start}
        lines.append(line)
        if progress:
            progress(line)
    model.eval()
    return lines


def _batch_loss(model: Any, rows: Sequence[tuple[list[int], list[int]]], pad_id: int) -> Any:
    import torch

    width = max(len(p) + len(c) for p, c in rows)
    ids = torch.full((len(rows), width), pad_id)
    labels = torch.full((len(rows), width), -100)
    attention = torch.zeros((len(rows), width), dtype=torch.long)
    for i, (prompt, completion) in enumerate(rows):  # right-padded: positions count from 0 in every row
        n = len(prompt) + len(completion)
        ids[i, :n] = torch.tensor(prompt + completion)
        labels[i, len(prompt) : n] = torch.tensor(completion)
        attention[i, :n] = 1
    device = next(model.parameters()).device  # where the model is: the CPU or a GPU
    return model(input_ids=ids.to(device), attention_mask=attention.to(device), labels=labels.to(device)).loss

"""A verl `DataProto` batch as the trainer hands it to the reward loop: one short prompt, the
responses tokenized and right-padded, the non-tensor columns verl's reward managers read."""

import numpy as np
import torch
from verl import DataProto


def make_batch(tokenizer, items, uids=None) -> DataProto:
    """`items`: (data_source, response text, ground truth) triples; `uids`: GRPO group ids."""
    prompt_ids = tokenizer("Solve it.", return_tensors="pt")["input_ids"][0]
    responses = [tokenizer(r or " ", return_tensors="pt")["input_ids"][0] for _, r, _ in items]
    width = max(len(r) for r in responses)
    pad = tokenizer.pad_token_id or 0
    prompts = torch.stack([prompt_ids] * len(items))
    resp = torch.stack([torch.cat([r, torch.full((width - len(r),), pad)]) for r in responses])
    mask = torch.stack(
        [torch.cat([torch.ones(len(prompt_ids)), torch.ones(len(r)), torch.zeros(width - len(r))]) for r in responses]
    ).long()
    non_tensors = {
        "data_source": np.array([d for d, _, _ in items], dtype=object),
        "reward_model": np.array([{"ground_truth": g} for _, _, g in items], dtype=object),
        "extra_info": np.array([{} for _ in items], dtype=object),
    }
    if uids is not None:
        non_tensors["uid"] = np.array(uids, dtype=object)
    return DataProto.from_dict(
        tensors={
            "prompts": prompts,
            "responses": resp,
            "input_ids": torch.cat([prompts, resp], 1),
            "attention_mask": mask,
        },
        non_tensors=non_tensors,
    )

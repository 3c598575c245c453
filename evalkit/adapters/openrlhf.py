"""OpenRLHF: this file works as `--remote_rm_url /path/to/evalkit/adapters/openrlhf.py` (OpenRLHF
imports `reward_func(queries, prompts, labels)`), and `evalkit serve` speaks the same shape over
HTTP (POST /openrlhf): both go through `openrlhf_result`. The verifier comes from the
EVALKIT_VERIFIER environment variable (default game24) and EVALKIT_VERIFIER_CONFIG (JSON); each
label is that verifier's ground truth (see `tasks.py`).

A query is the prompt followed by the response, decoded with special tokens kept, so the response
is the query minus its prompt, minus trailing special tokens. The verifier is built once per
process. An ERROR (a bad label, or the verifier failing) scores 0.0 (OpenRLHF needs a number), is
flagged in `extra_logs` and counted; it never fails the batch.
"""

from __future__ import annotations

import json
import os
from typing import Any, Sequence

from evalkit.adapters.core import cached_verifier, response_text, score_labelled
from evalkit.adapters.errors import ErrorPolicy
from verifiers import Verifier

ERROR_POLICY = ErrorPolicy(value=0.0)


def openrlhf_result(
    verifier: str | Verifier,
    queries: Sequence[Any],
    prompts: Sequence[Any],
    labels: Sequence[Any],
    config: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The reward dict OpenRLHF reads (plain lists), for both the file route (a verifier name,
    built once per process) and the server (the verifier it serves)."""
    v = verifier if isinstance(verifier, Verifier) else cached_verifier(verifier, config)
    responses = [response_text(q, p) for q, p in zip(queries, prompts)]
    scores = score_labelled(v, responses, labels)
    rewards = [ERROR_POLICY.reward(s, None) for s in scores]
    return {
        "rewards": rewards,
        "scores": rewards,
        "extra_logs": {"correct": [float(s.correct) for s in scores], "error": [float(s.is_error) for s in scores]},
    }


def reward_func(queries: list[str], prompts: list[str], labels: list[Any], **_: Any) -> dict[str, Any]:
    """OpenRLHF's remote reward function; returns tensors as it expects."""
    import torch

    config = json.loads(os.environ.get("EVALKIT_VERIFIER_CONFIG", "{}"))
    out = openrlhf_result(os.environ.get("EVALKIT_VERIFIER", "game24"), queries, prompts, labels, config)
    return {
        "rewards": torch.tensor(out["rewards"]),
        "scores": torch.tensor(out["scores"]),
        "extra_logs": {k: torch.tensor(v) for k, v in out["extra_logs"].items()},
    }

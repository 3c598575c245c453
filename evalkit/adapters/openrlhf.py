"""OpenRLHF: this file works as `--remote_rm_url /path/to/evalkit/adapters/openrlhf.py` (OpenRLHF
imports `reward_func(queries, prompts, labels)`), and `evalkit serve` speaks the same shape over
HTTP (POST /openrlhf). The verifier comes from the EVALKIT_VERIFIER environment variable
(default game24); each label is that verifier's ground truth (see `tasks.py`).

A query is the prompt followed by the response, so the response is the query minus its prompt.
An ERROR scores 0.0 (OpenRLHF needs a number), is flagged in `extra_logs` and counted.
"""
from __future__ import annotations

import os
from typing import Any

import verifiers

from evalkit.adapters.errors import ErrorPolicy
from evalkit.adapters.tasks import task_from_ground_truth

ERROR_POLICY = ErrorPolicy(value=0.0)


def score_queries(verifier_name: str, queries: list[str], prompts: list[str], labels: list[Any]) -> dict[str, Any]:
    v = verifiers.get(verifier_name)
    responses = [q[len(p):] if q.startswith(p) else q for q, p in zip(queries, prompts)]
    tasks = [task_from_ground_truth(verifier_name, label) for label in labels]
    scores = v.score_batch(responses, tasks, workers=None, timeout=60)
    v.close()
    rewards = [ERROR_POLICY.reward(s, None) for s in scores]
    return {"rewards": rewards, "scores": rewards,
            "extra_logs": {"correct": [float(s.correct) for s in scores], "error": [float(s.is_error) for s in scores]}}


def reward_func(queries: list[str], prompts: list[str], labels: list[Any]) -> dict[str, Any]:
    """OpenRLHF's remote reward function; returns tensors as it expects."""
    import torch

    out = score_queries(os.environ.get("EVALKIT_VERIFIER", "game24"), queries, prompts, labels)
    return {"rewards": torch.tensor(out["rewards"]), "scores": torch.tensor(out["scores"]),
            "extra_logs": {k: torch.tensor(v) for k, v in out["extra_logs"].items()}}

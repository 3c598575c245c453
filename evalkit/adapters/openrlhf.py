"""OpenRLHF: this file works as `--remote_rm_url /path/to/evalkit/adapters/openrlhf.py` (OpenRLHF
imports `reward_func(queries, prompts, labels)`), and `evalkit serve` speaks the same shape over
HTTP (POST /openrlhf): both go through `openrlhf_result`. The verifier comes from the
EVALKIT_VERIFIER environment variable (required: no default picks what is scored) and
EVALKIT_VERIFIER_CONFIG (JSON); each
label is that verifier's ground truth (see `tasks.py`). Both variables are checked when OpenRLHF
imports this file: a misspelt name or a bad config stops the run at start, with the reason.

A query is the prompt followed by the response, decoded with special tokens kept, so the response
is the query minus its prompt, minus trailing special tokens. The verifier is built once per
process. An ERROR (a bad label, or the verifier failing) scores 0.0 (OpenRLHF needs a number), is
flagged in `extra_logs`, logged and counted; it never fails the batch. With EVALKIT_MAX_ERROR_RATE
set, the file route stops the rollout once the share of ERRORs passes it (`StopTraining`: OpenRLHF's
executor swallows any Exception from a reward function).
"""

from __future__ import annotations

import os
from functools import lru_cache
from typing import Any, Sequence

from evalkit.adapters.core import cached_verifier, response_text, score_labelled
from evalkit.adapters.errors import ErrorPolicy, ErrorRateExceeded, StopTraining, log, max_rate_from_env
from verifiers import Verifier
from verifiers.records import json_object

ERROR_POLICY = ErrorPolicy(value=0.0, max_rate=max_rate_from_env())


def openrlhf_result(
    verifier: str | Verifier,
    queries: Sequence[Any],
    prompts: Sequence[Any],
    labels: Sequence[Any],
    config: dict[str, Any] | None = None,
    *,
    workers: int | None = None,
    deadline: Any = None,
) -> dict[str, Any]:
    """The reward dict OpenRLHF reads (plain lists), for both the file route (a verifier name,
    built once per process) and the server (the verifier it serves, with its workers and deadline)."""
    v = verifier if isinstance(verifier, Verifier) else cached_verifier(verifier, config)
    responses = [response_text(q, p) for q, p in zip(queries, prompts)]
    scores = score_labelled(v, responses, labels, workers=workers, deadline=deadline)
    rewards = [ERROR_POLICY.reward(s, None) for s in scores]
    return {
        "rewards": rewards,
        "scores": rewards,
        "extra_logs": {"correct": [float(s.correct) for s in scores], "error": [float(s.is_error) for s in scores]},
    }


def file_route_settings() -> tuple[str, dict[str, Any]]:
    """The verifier the file route scores with, from EVALKIT_VERIFIER and EVALKIT_VERIFIER_CONFIG,
    checked by building it: a misspelt name or a bad config raises here, when OpenRLHF imports this
    file, not as a log line and a `None` reward for every sample later."""
    name = os.environ.get("EVALKIT_VERIFIER")
    if not name:
        import verifiers

        raise ValueError(f"set EVALKIT_VERIFIER to the verifier to score with (one of {', '.join(verifiers.names())})")
    return _settings(name, os.environ.get("EVALKIT_VERIFIER_CONFIG", "{}"))


@lru_cache(maxsize=8)
def _settings(name: str, text: str) -> tuple[str, dict[str, Any]]:
    import verifiers

    config = json_object(text, "EVALKIT_VERIFIER_CONFIG")
    try:
        name = verifiers.resolve(name)
        verifiers.get(name, config).close()
    except verifiers.UnknownVerifier as exc:
        raise ValueError(f"EVALKIT_VERIFIER={name!r}: {exc}") from None
    except (TypeError, ValueError) as exc:
        raise ValueError(f"EVALKIT_VERIFIER_CONFIG for {name}: {exc}") from None
    return name, config


if __name__ != "evalkit.adapters.openrlhf" or os.environ.get("EVALKIT_VERIFIER") is not None:
    file_route_settings()  # imported by path (OpenRLHF's file route), or configured: checked as it imports us


def reward_func(queries: list[str], prompts: list[str], labels: list[Any], **_: Any) -> dict[str, Any]:
    """OpenRLHF's remote reward function; returns tensors as it expects."""
    import torch

    name, config = file_route_settings()
    try:
        out = openrlhf_result(name, queries, prompts, labels, config)
    except ErrorRateExceeded as exc:  # OpenRLHF would log an Exception at INFO and go on without a reward
        log.error("%s", exc)
        raise StopTraining(str(exc)) from None
    return {
        "rewards": torch.tensor(out["rewards"]),
        "scores": torch.tensor(out["scores"]),
        "extra_logs": {k: torch.tensor(v) for k, v in out["extra_logs"].items()},
    }

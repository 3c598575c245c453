"""verl's custom reward function. In verl 0.9 the keys live under `reward.`:

    reward.custom_reward_function.path=/path/to/evalkit/adapters/verl.py   (or pkg://evalkit.adapters.verl)
    reward.custom_reward_function.name=compute_score

(older releases read the same keys at the top level). The file imports nothing relative, so verl
may load it by path. `data_source` picks the verifier (its name or one of its `aliases`, any case);
`ground_truth` is read by the verifier's `task_from_ground_truth` (numpy arrays too).

Every call returns the same keys, whatever the verifier and verdict, because verl builds its
columns from the first item of a batch: `score`, `acc`, `error`, `invalid`, `pred` (the canonical
answer, for verl's maj@N) and one key per component any known verifier declares (NaN where this
verifier has no such component). Keyword arguments that name fields of the verifier's config configure it
(`reward_kwargs`); verl's own (`reward_router_address`, ...) are ignored, and any other key is
named in one warning with the nearest field (a typo would otherwise train on the default). A
wrongly typed value fails when the verifier is built, at the first item. Bad input (an
unknown data_source, a ground truth that is no task) is an ERROR item, never an exception; verl
has no "no reward", so an ERROR scores `ERROR_POLICY.value` (0.0 unless set) with `error: 1.0`.
"""

from __future__ import annotations

import difflib
import logging
import math
from functools import lru_cache
from typing import Any

import verifiers
from evalkit.adapters.core import cached_verifier, config_fields, response_text, score_labelled
from evalkit.adapters.errors import ErrorPolicy, max_rate_from_env
from verifiers import Score, Verdict

ERROR_POLICY = ErrorPolicy(value=0.0, max_rate=max_rate_from_env())
log = logging.getLogger("evalkit.adapters")


def compute_score(
    data_source: Any, solution_str: Any, ground_truth: Any, extra_info: Any = None, **kwargs: Any
) -> dict[str, Any]:
    try:
        name = _verifier_name(str(data_source))
    except verifiers.UnknownVerifier:
        return result(
            Score.error(
                f"no evalkit verifier for data_source {str(data_source)[:60]!r}; known: "
                f"{', '.join(verifiers.names())} and their aliases",
                task_error=True,
            )
        )
    for key in kwargs:
        _warn_if_unknown(name, key)
    v = cached_verifier(name, config_fields(name, kwargs))
    extra = extra_info.get("task") if isinstance(extra_info, dict) else None
    (score,) = score_labelled(v, [response_text(solution_str)], [ground_truth], extras=[extra])
    return result(score)


# what verl itself passes to a custom reward function beside the user's reward_kwargs
VERL_KWARGS = frozenset({"reward_router_address", "reward_model_tokenizer", "overlong_buffer_cfg", "max_resp_len"})


@lru_cache(maxsize=1024)
def _warn_if_unknown(name: str, key: str) -> None:
    """A reward_kwargs key that is neither a config field nor verl's own was probably misspelt: say
    so once per process, with the nearest field (a typo would otherwise train on the default)."""
    fields = sorted(getattr(verifiers.verifier_class(name).Config, "__dataclass_fields__", {}))
    if key not in fields and key not in VERL_KWARGS:
        near = difflib.get_close_matches(key, fields, n=1)
        hint = f"; did you mean {near[0]!r}?" if near else f"; its fields: {', '.join(fields)}"
        log.warning("verl reward_kwargs %r is not a setting of the %s verifier and is ignored%s", key, name, hint)


@lru_cache(maxsize=256)
def _verifier_name(data_source: str) -> str:
    """verl calls once per item: resolving a data source reads the installed entry points (ms),
    so each is resolved once per process."""
    return verifiers.resolve(data_source)


@lru_cache(maxsize=1)
def _components() -> tuple[str, ...]:
    return verifiers.all_components()


def result(score: Score) -> dict[str, Any]:
    """The fixed-key dict verl aggregates."""
    out: dict[str, Any] = {
        "score": ERROR_POLICY.reward(score, no_reward=None),
        "acc": float(score.correct),
        "error": float(score.is_error),
        "invalid": float(score.verdict is Verdict.INVALID),
        "pred": "" if score.answer is None else str(score.answer),
    }
    out.update({c: float(score.components.get(c, math.nan)) for c in _components()})
    return out

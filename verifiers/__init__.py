"""evalkit's verifiers: `(completion, task) -> Score`, by name.

import verifiers
v = verifiers.get("game24")
s = v.score("Answer: (6 - 4) * (4 + 8) = 24", {"numbers": [4, 6, 8, 4]})
"""

from .base import TaskError, Unsupported, Verifier
from .registry import (
    ENTRY_POINT_GROUP,
    UnknownVerifier,
    all_components,
    from_spec,
    get,
    names,
    register,
    resolve,
    verifier_class,
)
from .score import Score, Verdict, verdict_counts

__all__ = [
    "ENTRY_POINT_GROUP",
    "Score",
    "TaskError",
    "UnknownVerifier",
    "Unsupported",
    "Verdict",
    "Verifier",
    "all_components",
    "from_spec",
    "get",
    "names",
    "register",
    "resolve",
    "verdict_counts",
    "verifier_class",
]

"""evalkit's verifiers: `(completion, task) -> Score`, by name.

    import verifiers
    v = verifiers.get("game24")
    s = v.score("Answer: (6 - 4) * (4 + 8) = 24", {"numbers": [4, 6, 8, 4]})
"""
from .base import TaskError, Unsupported, Verifier, verdict_counts
from .registry import ENTRY_POINT_GROUP, UnknownVerifier, from_spec, get, names, register, verifier_class
from .score import Score, Verdict

__all__ = [
    "ENTRY_POINT_GROUP", "Score", "TaskError", "UnknownVerifier", "Unsupported", "Verdict", "Verifier",
    "from_spec", "get", "names", "register", "verdict_counts", "verifier_class",
]

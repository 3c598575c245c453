"""evalkit's pytest plugin: fixtures, markers and assertions that make reward behaviour testable.

    from pytest_plugin import assert_score, assert_ranks, assert_not_hackable, check_verifier
"""
from .assertions import RewardAssertionError, assert_bounded, assert_ranks, assert_score, check_verifier
from .parts import require_module, require_part
from .probes import Probe, assert_not_hackable, probes_for

__all__ = ["Probe", "RewardAssertionError", "assert_bounded", "assert_not_hackable", "assert_ranks",
           "assert_score", "check_verifier", "probes_for", "require_module", "require_part"]

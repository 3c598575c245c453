"""Two-player Dou Dizhu endgames: a play's reward is its win rate, by rollouts or exactly."""

from .cards import KINDS, RANKS, Combo, combos, hand_from_text, legal_moves, parse_cards, shapes
from .engine import Rules, SearchLimit, rules_for
from .game import State, move_value, random_play_value, rollout, solve
from .verifier import DoudizhuConfig, DoudizhuVerifier

__all__ = [
    "KINDS",
    "RANKS",
    "Combo",
    "DoudizhuConfig",
    "DoudizhuVerifier",
    "Rules",
    "SearchLimit",
    "State",
    "combos",
    "hand_from_text",
    "legal_moves",
    "move_value",
    "parse_cards",
    "random_play_value",
    "rollout",
    "rules_for",
    "shapes",
    "solve",
]

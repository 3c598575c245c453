"""Two-player Dou Dizhu endgames: a play's reward is its win rate, by rollouts or exactly."""
from .cards import KINDS, RANKS, Combo, combos, hand_from_text, legal_moves
from .game import State, move_value, rollout, solve
from .verifier import DoudizhuConfig, DoudizhuVerifier

__all__ = ["KINDS", "RANKS", "Combo", "DoudizhuConfig", "DoudizhuVerifier", "State", "combos", "hand_from_text",
           "legal_moves", "move_value", "rollout", "solve"]

"""Free-style gomoku: a move's reward is its estimated win rate, with error bars."""

from .board import BLACK, EMPTY, WHITE, geometry, makes_five, winner, winning_cells
from .extract import find_moves, parse_move
from .position import Position, from_task
from .verifier import GomokuConfig, GomokuVerifier

__all__ = [
    "BLACK",
    "EMPTY",
    "WHITE",
    "GomokuConfig",
    "GomokuVerifier",
    "Position",
    "find_moves",
    "from_task",
    "geometry",
    "makes_five",
    "parse_move",
    "winner",
    "winning_cells",
]

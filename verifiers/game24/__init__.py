"""The 24-point game: exact, safe expression checking, step checking, the seed's reward, a solver."""

from .expression import ExpressionError, parse
from .extract import final_answer, final_answers
from .solver import solutions, solvable
from .steps import check_steps
from .verifier import Game24Config, Game24Verifier, length_reward

__all__ = [
    "ExpressionError",
    "Game24Config",
    "Game24Verifier",
    "check_steps",
    "final_answer",
    "final_answers",
    "length_reward",
    "parse",
    "solutions",
    "solvable",
]

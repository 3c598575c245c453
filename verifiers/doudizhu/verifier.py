"""The Dou Dizhu verifier: the reward for one play is the win rate after it.

As in the seed report, the win rate comes from random-policy rollouts (both players uniform over
their legal moves), so every score carries the rollout count, standard error and a Wilson 95%
interval; an adaptive mode rolls out until the interval is narrow enough. `mode="exact"` uses the
memoised minimax solver instead (small endgames), and is the oracle the tests measure the
estimator against.

Verdicts: INVALID for a missing, unreadable or illegal play; when the task lists
`winning_moves` (the built-in ones do), CORRECT for a winning play and INCORRECT otherwise;
without them, PARTIAL (the win rate is the signal).
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from ..base import TaskError, Verifier
from ..registry import register
from ..score import Score, Verdict
from ..winrate import WinRate, estimate, stable_seed
from .cards import KINDS, cards_text
from .game import move_value, rollout
from .position import MOVE_FORMATS, PositionError, describe, find_play, match_move, read_play, state_from_task
from ..splits import select
from .tasks import load_all

PROMPT = """Two-player Dou Dizhu endgame. Ranks from low to high: 3 4 5 6 7 8 9 T J Q K A 2 B R \
(T is 10, B the black joker, R the red joker). Whoever plays all their cards first wins.
Valid plays: single, pair, trio, trio+single, trio+pair, straight of 5+ singles, 3+ consecutive pairs, \
2+ consecutive trios (with or without one single or one pair per trio), four+two singles, four+two pairs, \
bomb (four of a kind), rocket (both jokers). 2 and jokers never appear in straights.
{position}
Answer with your play in tags, e.g. <move>3 3</move> or <move>PASS</move>."""


@dataclass(frozen=True)
class DoudizhuConfig:
    mode: str = "rollout"                # or "exact" (solver; small endgames)
    rollouts: int = 200
    target_width: float | None = None    # adaptive: stop once the 95% interval is this narrow
    max_rollouts: int = 5000
    seed: int = 0
    banned: tuple[str, ...] = ()         # combination kinds not allowed (some 1v1 puzzles ban some)
    move_formats: tuple[str, ...] = MOVE_FORMATS


@register("doudizhu")
class DoudizhuVerifier(Verifier):
    """Win rate after the model's play, by random rollouts (or exactly)."""

    Config = DoudizhuConfig

    def __init__(self, **config: Any) -> None:
        super().__init__(**config)
        if self.config.mode not in ("rollout", "exact"):
            raise ValueError("mode must be 'rollout' or 'exact'")
        unknown = set(self.config.banned) - set(KINDS)
        if unknown:
            raise ValueError(f"unknown combination kinds {sorted(unknown)}; known: {KINDS}")

    @property
    def _banned(self) -> frozenset[str]:
        return frozenset(self.config.banned)

    def evaluate(self, completion: str, task: Mapping[str, Any]) -> Score:
        try:
            state = state_from_task(task, self._banned)
        except PositionError as exc:
            raise TaskError(str(exc)) from None
        raw = find_play(completion[-4000:], self.config.move_formats)
        if raw is None:
            return Score.invalid("no play found (write it like <move>3 3</move> or <move>PASS</move>)")
        try:
            move, name = match_move(state, read_play(raw), self._banned)
        except ValueError as exc:
            return Score.invalid(f"illegal play: {exc}", play=raw[:100])
        rate = self.win_rate(state, move)
        info = {"play": name, **rate.info()}
        winning = task.get("winning_moves")
        if winning is not None:
            verdict = Verdict.CORRECT if name in winning else Verdict.INCORRECT
        else:
            verdict = Verdict.PARTIAL
        detail = "exact" if rate.exact else f"[{rate.low:.3f}, {rate.high:.3f}] from {rate.n} rollouts"
        return Score(rate.mean, verdict, {"win_rate": rate.mean}, name, f"{name}: win rate {rate.mean:.3f} ({detail})", info)

    def win_rate(self, state, move) -> WinRate:
        cfg = self.config
        if cfg.mode == "exact" or (move is not None and sum(state.me) == sum(move.cards)):
            return WinRate.exact_value(move_value(state, move, self._banned))
        after = state.after(move)
        seed = stable_seed(f"{cards_text(state.me)}|{cards_text(state.them)}|"
                           f"{state.to_beat.text() if state.to_beat else '-'}", cfg.seed)  # the move is not hashed
        rng = random.Random(seed)

        def play(_rng: np.random.Generator, k: int) -> np.ndarray:
            # outcome for the player who made `move`: the opponent moves next in `after`
            return np.asarray([1.0 - rollout(after, rng, self._banned) for _ in range(k)])

        return estimate(play, np.random.default_rng(seed), rollouts=cfg.rollouts, target_width=cfg.target_width,
                        max_rollouts=cfg.max_rollouts)

    # ------------------------------------------------------------------ tasks
    def prompt(self, task: Mapping[str, Any]) -> str:
        try:
            state = state_from_task(task, self._banned)
        except PositionError as exc:
            raise TaskError(str(exc)) from None
        return PROMPT.format(position=describe(state))

    def tasks(self, split: str = "test", *, limit: int | None = None, seed: int = 0) -> list[dict[str, Any]]:
        """5-card (120) and 8-card (40) endgames with a winning and a losing play; seeded 80/20 split."""
        return select(load_all(), split, limit=limit, seed=seed)

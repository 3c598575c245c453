"""The gomoku verifier: the reward for one move is the estimated win rate after it.

The seed report rewarded a move by the win rate after it, with the number of rollouts setting
the reward's accuracy; so every score carries its rollout count, standard error and a Wilson 95%
interval, and an adaptive mode rolls out until the interval is narrow enough.

Estimators (`estimator=`): "tactical" (default: playouts where both sides take and answer
threats one move ahead), "flat" (uniform random playouts, vectorised), "mcts" (UCT with a playout
budget), "engine" (a user-supplied Piskvork engine plays both sides).

Before any rollout (`prepass=True`, default) a threat-space search (`threats.py`) looks for a
forced result: a win by continuous fours (VCF) or by threes and fours (VCT, `vct_depth` quiet
threats) for the mover after its move, and the same for the opponent, within `proof_nodes` nodes
per search. A proven win scores exactly 1 and a proven loss exactly 0, with `info["proven"]` and
the reason; random rollouts alone give a move that loses by force about ½. `threat_search=False`
keeps only the one-move checks (five now; the opponent's five next).

Verdicts: INVALID for a missing, off-board or occupied move; CORRECT for a proven win and
INCORRECT for a proven loss; otherwise, when the task lists `best_moves` (the built-in tasks list
every proven-winning move, or the only move that does not lose at once), CORRECT for one of them
and INCORRECT otherwise (PARTIAL where the rollouts sit at the far end of the range, e.g. every
playout won for a move outside the key); without them, PARTIAL (the reward is the whole signal).
So a verdict never contradicts its reward.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from ..base import TaskError, Verifier, setting
from ..locate import with_choices_resolved
from ..registry import register
from ..score import Score, Verdict
from ..splits import select
from ..testing import Probe, move_game_probes
from ..text import ascii_width
from ..turn import model_turn, own_task_part, shows_within
from ..winrate import WinRate, check_budget, estimate_seeded, keyed_verdict, stable_seed
from .board import EMPTY, geometry, makes_five, other, winning_cells
from .extract import MOVE_FORMATS, answer_move
from .mcts import mcts_outcomes
from .position import Position, PositionError, from_task
from .rollout import ThreatPlayouts, flat_outcomes
from .tasks import load_all
from .threats import prove_move

ESTIMATORS = ("tactical", "flat", "mcts", "engine")
PROMPT = """You are playing free-style gomoku on a {size}x{size} board: five or more stones in a row \
(across, down or diagonally) wins.
{board}
Columns are letters from the left, rows are numbered from the bottom (e.g. {example}).
Choose the best move for {side} and answer with it in tags, e.g. <move>{example}</move>."""

_OPENING_WORDS = "You are playing free-style gomoku"  # how PROMPT opens a task, every task the same
_OPENS_A_TASK = re.compile(rf"^[ \t]*{_OPENING_WORDS}", re.MULTILINE)


@dataclass(frozen=True)
class GomokuConfig:
    estimator: str = setting("tactical", client="free")
    rollouts: int = setting(200, client="at_most")
    target_width: float | None = setting(None, client="free")  # adaptive: stop once the 95% interval is this narrow
    max_rollouts: int = setting(5000, client="at_most")
    prepass: bool = setting(True, client="free")  # proofs before rollouts (see the module docstring)
    threat_search: bool = setting(True, client="free")  # VCF/VCT search; False: only one-move wins and losses
    vct_depth: int = setting(
        2, client="at_most"
    )  # quiet threats a VCT may use (2: every win within 7 plies); 0: fours only (VCF)
    proof_nodes: int = setting(20_000, client="at_most")  # node budget per search; past it the result is unknown
    seed: int = setting(0, client="free")
    move_formats: tuple[str, ...] = setting(MOVE_FORMATS, client="free")
    engine: str | None = None  # path of a Piskvork engine, for estimator="engine"
    engine_timeout: float = setting(5.0, client="at_most")

    def validate(self) -> None:
        if self.estimator not in ESTIMATORS:
            raise ValueError(f"estimator must be one of {ESTIMATORS}")
        if self.estimator == "engine" and not self.engine:
            raise ValueError("estimator='engine' needs engine='/path/to/piskvork-engine'")
        if self.engine_timeout <= 0:
            raise ValueError(f"engine_timeout must be > 0 seconds, got {self.engine_timeout}")
        if self.vct_depth < 0 or self.proof_nodes < 1:
            raise ValueError("vct_depth must be >= 0 and proof_nodes >= 1")
        check_budget(self)


@register("gomoku")
class GomokuVerifier(Verifier):
    """Win rate after the model's move, with error bars."""

    Config = GomokuConfig
    verdicts_order_rewards = True
    components = ("win_rate",)
    task_fields = {
        "moves": "list of str, the position: the moves so far from an empty board, X first (`E5`); or board",
        "size": "int, optional (15): the board's width and height",
        "board": "list of str, the position instead of moves: rows of X, O and ., with to_move",
        "to_move": "str, with board: whose move it is (X or O)",
        "best_moves": "list of str, optional: the key moves (every proven win, or the one move that does not lose): "
        "where the search proves nothing, a move among them is CORRECT",
        "kind": "str, informational: what the built-in position tests (win, block, ...; never a block the search"
        " proves lost, where every move would score 0)",
        "id": "str, optional: the task's name in results (its index otherwise)",
        "difficulty": "str, optional: the bucket reports group results by",
    }

    def __init__(self, **config: Any) -> None:
        super().__init__(**config)
        self._engine = None

    def time_budget(self) -> float:
        """The most one score may take: the searches stop at `proof_nodes` and the playouts at
        `max_rollouts` (0.4 s at most on random 15x15 positions here, bench/results/games.md), with
        room for a loaded host; an external engine adds its own timeout."""
        return 10.0 + (self.config.engine_timeout if self.config.estimator == "engine" else 0.0)

    def __getstate__(self) -> dict[str, Any]:
        state = super().__getstate__()
        state["_engine"] = None  # an engine process never travels to a worker
        return state

    def evaluate(self, completion: str, task: Mapping[str, Any]) -> Score:
        try:
            position = from_task(dict(task))
        except PositionError as exc:
            raise TaskError(str(exc)) from None
        best = task.get("best_moves")
        if best is not None and not (isinstance(best, (list, tuple)) and all(isinstance(m, str) for m in best)):
            raise TaskError("best_moves must be a list of moves like 'H8'")
        turn = model_turn(completion)  # the model's own turn (docs/answers.md)
        if turn.unfinished:
            return Score.invalid(turn.unfinished)
        if _OPENING_WORDS in turn.text:  # a next position the model invented, or this one echoed
            board = position.text()
            turn = turn._replace(
                text=own_task_part(
                    turn.text, _OPENS_A_TASK, lambda m: shows_within(turn.text, m, board, len(PROMPT) + len(board))
                )
            )
        occupied = {cell for cell, stone in enumerate(position.stones) if stone != EMPTY}
        centre = position.size // 2 * position.size + position.size // 2  # the prompt's example move
        cell, why = answer_move(
            with_choices_resolved(ascii_width(turn.text))[-4000:],
            position.size,
            self.config.move_formats,
            occupied,
            {centre},
            theirs=position.waiting_side_names(),
            ours=position.moving_side_names(),
        )
        if why is not None:
            return Score.invalid(why)
        if cell is None:
            return Score.invalid("the move is off the board")
        if position.stones[cell] != EMPTY:
            return Score.invalid(f"{position.name(cell)} is already occupied")
        rate, how = self.win_rate(position, cell)
        proven = rate.exact and rate.mean in (0.0, 1.0)
        info = {"move": position.name(cell), "estimator": how, "proven": proven, **rate.info()}
        best = task.get("best_moves")
        name = position.name(cell)
        if best:
            info["best_moves"] = list(best)
        if proven:
            verdict = Verdict.CORRECT if rate.mean == 1.0 else Verdict.INCORRECT
        elif best:
            verdict = keyed_verdict(name in best, rate)
        else:
            verdict = Verdict.PARTIAL
        if proven:
            reason = f"{name}: {how.removeprefix('proof: ').removeprefix('prepass: ')}"
        else:
            reason = f"{name}: estimated win rate {rate.mean:.3f}" + (
                " (exact)" if rate.exact else f" [{rate.low:.3f}, {rate.high:.3f}] from {rate.n} playouts"
            )
        return Score(rate.mean, verdict, {"win_rate": rate.mean}, name, reason, info)

    def win_rate(self, position: Position, cell: int) -> tuple[WinRate, str]:
        """The estimated win rate for the side to move after it plays `cell`."""
        cfg = self.config
        geo = geometry(position.size)
        board = position.board
        mover = position.to_move
        board[cell] = mover
        if cfg.prepass and cfg.threat_search:
            proof = prove_move(
                position.board, position.size, mover, cell, vct_depth=cfg.vct_depth, max_nodes=cfg.proof_nodes
            )
            if proof.value is not None:
                return WinRate.exact_value(proof.value), f"proof: {proof.reason}"
        elif cfg.prepass:
            if makes_five(board, geo, cell, mover):
                return WinRate.exact_value(1.0), "prepass: wins at once"
            if winning_cells(board, geo, other(mover)):
                return WinRate.exact_value(0.0), "prepass: leaves the opponent a win at once"
        elif makes_five(board, geo, cell, mover):
            return WinRate.exact_value(1.0), "wins at once"
        if EMPTY not in board:
            return WinRate.exact_value(0.5), "board full: draw"
        seed = stable_seed(position.canonical(), cfg.seed)  # the move is not hashed: common random numbers
        opponent = other(mover)
        if cfg.estimator == "flat":

            def play(rng: np.random.Generator, k: int) -> np.ndarray:
                return flat_outcomes(board, geo, opponent, mover, rng.random((k, len(board))))

            return estimate_seeded(play, seed, cfg), "flat random rollouts"
        if cfg.estimator == "mcts":
            outcomes = mcts_outcomes(board, geo, opponent, cell, cfg.rollouts, random.Random(seed))
            return WinRate.from_outcomes(np.asarray(outcomes)), "pure MCTS (UCT)"
        if cfg.estimator == "engine":
            return WinRate.exact_value(self._engine_playout(position.play(cell), mover)), "engine playout"
        py_rng = random.Random(seed)
        playouts = ThreatPlayouts(board, geo)

        def play_tactical(_rng: np.random.Generator, k: int) -> np.ndarray:
            return np.asarray([playouts.outcome(opponent, mover, py_rng) for _ in range(k)])

        return estimate_seeded(play_tactical, seed, cfg), "tactical rollouts"

    def _engine_playout(self, position: Position, player: int) -> float:
        from .piskvork import PiskvorkEngine

        if self._engine is None:
            self._engine = PiskvorkEngine(self.config.engine, self.config.engine_timeout)  # type: ignore[arg-type]
        return self._engine.playout(position, player)

    def close(self) -> None:
        super().close()
        if self._engine is not None:
            self._engine.close()
            self._engine = None

    # ------------------------------------------------------------------ tasks
    def task_from_shorthand(self, value: Any) -> dict[str, Any]:
        """A move list ("H8 H9 ...") is the position after those moves on a 15x15 board."""
        if isinstance(value, str) and value.split():
            return {"size": 15, "moves": value.split()}
        return super().task_from_shorthand(value)

    def probes(self) -> list[Probe]:
        return move_game_probes(_two_moves)

    def prompt(self, task: Mapping[str, Any]) -> str:
        try:
            position = from_task(dict(task))
        except PositionError as exc:
            raise TaskError(str(exc)) from None
        centre = position.size // 2
        return PROMPT.format(
            size=position.size,
            board=position.text(),
            example=position.name(centre * position.size + centre),
            side="X (black)" if position.to_move == 1 else "O (white)",
        )

    def tasks(self, split: str = "test", *, limit: int | None = None, seed: int = 0) -> list[dict[str, Any]]:
        """Decision positions on 9x9 and 15x15 (100 each), seeded 80/20 split."""
        return select(load_all(), split, limit=limit, seed=seed)


def _two_moves(_verifier: Any, task: Mapping[str, Any]) -> tuple[str, str]:
    """The task's first key move (any empty cell without a key) and another empty cell, not a key
    move where there is one (so that a text settling on it is wrong)."""
    position = from_task(dict(task))
    empty = [position.name(c) for c, s in enumerate(position.stones) if s == EMPTY]
    best = [m for m in task.get("best_moves") or () if m in empty] or empty
    others = [m for m in empty if m not in best] or [m for m in empty if m != best[0]]
    return best[0], others[0]

"""The Dou Dizhu verifier: the reward for one play is its value in the endgame.

Modes (`mode=`):
- "auto" (default): the exact value when the endgame is small enough to solve
  (`auto_exact_cards`, both hands together; every built-in task is), so every winning play scores
  1 and every losing play 0; larger endgames fall back to rollouts. Rollout values can rank a
  losing play above winning ones (random play is not perfect play), which is why exact comes first.
- "rollout": the seed report's estimator: the win rate under uniformly random play by both
  sides, with the rollout count, standard error and a Wilson 95% interval; `target_width` rolls
  out until the interval is that narrow.
- "exact": the memoised minimax solver always (ERROR past `exact_budget` positions).

Rules: kinds in `banned` (per verifier or per task) are not allowed. Kicker rules, stated in the
prompt (see `cards.py`): by default the rocket (B R) may not be the two single kickers of
four-with-two or airplane wings (`rocket_as_kickers`), four cards of one rank may not be an
airplane's single wings (`bomb_as_wings`) nor two pairs of one rank pair kickers
(`equal_pairs_as_kickers`), three cards of a rank next to an airplane may be among its single
wings (`adjacent_trio_wings`), and an airplane with single wings is ranked by its own trios, not by
a trio among its wings (`douzero_airplanes` reads it as DouZero does). The presets `rlcard` and `douzero`
(`preset="rlcard"`) reproduce each peer's legal-move generator: rlcard refuses all four
permissions, DouZero allows the rocket, the bomb among single wings and the adjacent trio, but not
equal pairs, and reads such an airplane as its own move reader does (ranked by its highest trio,
wings included; one it cannot read is followed by bombs only).

Verdicts: INVALID for a missing, unreadable or illegal play. When the task lists
`winning_moves` for the same rules (the built-in tasks do, for the default rules), CORRECT for a
winning play and INCORRECT otherwise (PARTIAL where a rollout estimate sits at the far end of the
range against the key); else an exact value decides; else PARTIAL. A verdict never contradicts
its reward.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from ..base import TaskError, Verifier, setting, shown
from ..locate import with_choices_resolved
from ..registry import register
from ..score import Score, Verdict
from ..splits import select
from ..testing import Probe, move_game_probes
from ..text import ascii_width
from ..turn import model_turn, own_task_part, shows_within
from ..winrate import WinRate, check_budget, estimate_seeded, keyed_verdict, stable_seed
from .cards import (
    ALLOW_BOMB_WINGS,
    ALLOW_EQUAL_PAIRS,
    ALLOW_ROCKET_KICKERS,
    BAN_ADJACENT_TRIO_WINGS,
    DOUZERO_AIRPLANES,
    RANKS,
    legal_moves,
    normalise_banned,
)
from .engine import SearchLimit, python_uniform, rollout_plies, rules_for
from .extract import MOVE_FORMATS, find_play, read_play
from .game import Move, State, ends_game, move_value
from .position import PositionError, describe, match_move, state_from_task
from .tasks import load_all

PROMPT = """Two-player Dou Dizhu endgame, both hands visible. Ranks from low to high: \
3 4 5 6 7 8 9 T J Q K A 2 B R (T is 10, B the black joker, R the red joker). \
Whoever plays all their cards first wins.
Valid plays: single, pair, trio, trio+single, trio+pair, straight of 5+ singles, 3+ consecutive pairs, \
2+ consecutive trios (with or without one single or one pair per trio), four+two singles, four+two pairs, \
bomb (four of a kind), rocket (both jokers). 2 and jokers never appear in straights. To follow, play the \
same kind and length with a higher rank; a bomb beats anything but a higher bomb and the rocket. \
After a PASS the other player leads.
{position}
Answer with your play in tags, e.g. <move>{example}</move> or <move>PASS</move>."""
PROMPT_EXAMPLES = ("3 3", "PASS")  # the plays the prompt shows as the form to write
_OPENING_WORDS = "Two-player Dou Dizhu endgame"  # how PROMPT opens a task, every task the same
_OPENS_A_TASK = re.compile(rf"^[ \t]*{_OPENING_WORDS}", re.MULTILINE)


MODES = ("auto", "rollout", "exact")


@dataclass(frozen=True)
class DoudizhuConfig:
    mode: str = setting("auto", client="free")  # exact when affordable, else rollouts; or "rollout" / "exact"
    rollouts: int = setting(256, client="at_most")  # SE <= 0.031 (research note C: 256-1024)
    target_width: float | None = setting(None, client="free")  # adaptive: stop once the 95% interval is this narrow
    max_rollouts: int = setting(5000, client="at_most")
    seed: int = setting(0, client="free")
    banned: tuple[str, ...] = setting((), client="free")  # kinds (or 31/32/421/422) not allowed, as some 1v1 puzzles do
    move_formats: tuple[str, ...] = setting(MOVE_FORMATS, client="free")
    exact_budget: int = setting(
        1_000_000, client="at_most"
    )  # positions the exact solver may visit (about 6 s) before giving up: ERROR
    auto_exact_cards: int = setting(
        20, client="at_most"
    )  # auto mode solves exactly when both hands hold at most this many cards
    rocket_as_kickers: bool = setting(False, client="free")  # both jokers as the two single kickers / airplane wings
    bomb_as_wings: bool = setting(False, client="free")  # four cards of one rank among an airplane's single wings
    equal_pairs_as_kickers: bool = setting(False, client="free")  # two pairs of one rank as pair kickers / pair wings
    # three cards of a rank next to the airplane among its single wings
    adjacent_trio_wings: bool = setting(True, client="free")
    # an airplane with single wings to beat read as DouZero reads it: ranked by the highest rank it
    # holds three of, wings included; followed by bombs only where DouZero's reader cannot place it
    douzero_airplanes: bool = setting(False, client="free")

    def validate(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}")
        check_budget(self)
        unknown = set(self.move_formats) - set(MOVE_FORMATS)
        if unknown:
            raise ValueError(f"unknown move formats {sorted(unknown)}; known: {MOVE_FORMATS}")


@register("doudizhu")
class DoudizhuVerifier(Verifier):
    """Win rate after the model's play, by random rollouts (or exactly)."""

    Config = DoudizhuConfig
    verdicts_order_rewards = True
    aliases = ("dou_dizhu", "landlord")
    task_fields = {
        "hand": "str, needed: the model's cards (`3 6 J A 2`; T is 10, B and R the jokers)",
        "opponent": "str, needed: the opponent's cards",
        "to_beat": "str, optional: the play on the table the model must follow (empty: the model leads)",
        "to_beat_kind": "str, optional: the kind of that play where its cards allow several",
        "banned": "list of str, optional: plays this position forbids (besides the config's)",
        "winning_moves": "list of str, optional: the plays known to win (scored exactly where given)",
        "moves": "int, informational: how many legal plays the position offers",
        "id": "str, optional: the task's name in results (its index otherwise)",
        "difficulty": "str, optional: the bucket reports group results by",
    }
    #: Each peer's legal-move generator, to the play (tested against the installed packages on random positions).
    presets = {
        "rlcard": {
            "rocket_as_kickers": False,
            "bomb_as_wings": False,
            "equal_pairs_as_kickers": False,
            "adjacent_trio_wings": False,
            "douzero_airplanes": False,
        },
        "douzero": {
            "rocket_as_kickers": True,
            "bomb_as_wings": True,
            "equal_pairs_as_kickers": False,
            "adjacent_trio_wings": True,
            "douzero_airplanes": True,
        },
    }
    components = ("win_rate",)

    def __init__(self, **config: Any) -> None:
        super().__init__(**config)
        c = self.config
        permissions = {
            ALLOW_ROCKET_KICKERS: c.rocket_as_kickers,
            ALLOW_BOMB_WINGS: c.bomb_as_wings,
            ALLOW_EQUAL_PAIRS: c.equal_pairs_as_kickers,
            BAN_ADJACENT_TRIO_WINGS: not c.adjacent_trio_wings,
            DOUZERO_AIRPLANES: c.douzero_airplanes,
        }
        self._banned = normalise_banned(self.config.banned) | {name for name, on in permissions.items() if on}

    def time_budget(self) -> float:
        """The most one score may take: the exact solver stops at `exact_budget` positions (about
        6 s for the default million here), rollouts at `max_rollouts`, with room for a loaded host."""
        return 10.0 + self.config.exact_budget / 150_000

    def _position(self, task: Mapping[str, Any]) -> tuple[State, frozenset[str]]:
        winning = task.get("winning_moves")
        if winning is not None and not (
            isinstance(winning, (list, tuple)) and all(isinstance(w, str) for w in winning)
        ):
            raise TaskError(f"winning_moves must be a list of plays (str), got {shown(winning)}")
        try:
            banned = self._banned | normalise_banned(task.get("banned") or ())
            return state_from_task(task), banned
        except (PositionError, ValueError, TypeError) as exc:
            raise TaskError(str(exc)) from None

    def evaluate(self, completion: str, task: Mapping[str, Any]) -> Score:
        state, banned = self._position(task)
        turn = model_turn(completion)  # the model's own turn (docs/answers.md)
        if turn.unfinished:
            return Score.invalid(turn.unfinished)
        if _OPENING_WORDS in turn.text:  # a next endgame the model invented, or this one echoed
            position = describe(state, banned)
            turn = turn._replace(
                text=own_task_part(
                    turn.text,
                    _OPENS_A_TASK,
                    lambda m: shows_within(turn.text, m, position, len(PROMPT) + len(position)),
                )
            )
        on_table = state.to_beat.cards if state.to_beat is not None else None  # the play to beat
        raw, why = find_play(
            with_choices_resolved(ascii_width(turn.text)), self.config.move_formats, on_table, PROMPT_EXAMPLES
        )
        if raw is None:
            return Score.invalid(why or "no play found (write it like <move>3 3</move> or <move>PASS</move>)")
        try:
            readings = match_move(state, read_play(raw), banned)
        except ValueError as exc:
            return Score.invalid(f"illegal play: {exc}", play=raw[:100])
        try:
            rates = [(self.win_rate(state, move, banned), move) for move in readings]
        except SearchLimit:
            return Score.error(f"endgame too large for exact mode (over {self.config.exact_budget} positions)")
        rate, move = max(rates, key=lambda pair: pair[0].mean)  # the player may declare either reading
        name = "PASS" if move is None else move.text()
        info = {
            "play": name,
            "kind": "pass" if move is None else move.kind,
            "proven": rate.exact,
            "method": "exact" if rate.exact else "rollouts",
            **rate.info(),
        }
        if len(readings) > 1:
            info["readings"] = [
                {"kind": r.kind, "rank": RANKS[r.rank], "length": r.length, "win_rate": w.mean} for w, r in rates
            ]
        detail = "exact" if rate.exact else f"95% CI [{rate.low:.3f}, {rate.high:.3f}] from {rate.n} rollouts"
        return Score(
            rate.mean,
            self._verdict(task, banned, name, rate),
            {"win_rate": rate.mean},
            name,
            f"{name}: win rate {rate.mean:.3f} ({detail})",
            info,
        )

    def _verdict(self, task: Mapping[str, Any], banned: frozenset[str], name: str, rate: WinRate) -> Verdict:
        winning = task.get("winning_moves")
        keyed = winning is not None and banned == normalise_banned(task.get("banned") or ())
        if keyed and not rate.exact:
            return keyed_verdict(name in winning, rate)
        if keyed:
            return Verdict.CORRECT if name in winning else Verdict.INCORRECT
        if rate.exact:
            return Verdict.CORRECT if rate.mean == 1.0 else Verdict.INCORRECT
        return Verdict.PARTIAL

    def win_rate(self, state: State, move: Move, banned: frozenset[str] = frozenset()) -> WinRate:
        """The chance the mover wins after `move`: exact (solver) or by seeded random rollouts."""
        cfg = self.config
        if cfg.mode == "exact" or ends_game(state, move):
            return WinRate.exact_value(move_value(state, move, banned, cfg.exact_budget))
        if cfg.mode == "auto" and sum(state.me) + sum(state.them) <= cfg.auto_exact_cards:
            exact = self._exact_within_budget(state, move, banned)
            if exact is not None:
                return exact
        # Seeded from the position, not the move: every candidate move shares the stream, and
        # rollout i reads the same uniforms whichever move it follows (common random numbers).
        seed = stable_seed(f"{state.canonical()}|ban:{','.join(sorted(banned))}", cfg.seed)
        uniform = python_uniform(seed)
        plies = rollout_plies(*state.packed()[:2])
        me, them, beat = state.after(move).packed()
        rules = rules_for(banned)

        def play(_rng: np.random.Generator, k: int) -> np.ndarray:
            # The opponent moves next, so the mover wins where the side to move loses.
            return 1.0 - np.asarray(rules.rollouts(me, them, beat, k, uniform, plies))

        return estimate_seeded(play, seed, cfg)

    def _exact_within_budget(self, state: State, move: Move, banned: frozenset[str]) -> WinRate | None:
        """The exact value, or None when the solver passes `exact_budget` (auto mode then rolls out)."""
        try:
            return WinRate.exact_value(move_value(state, move, banned, self.config.exact_budget))
        except SearchLimit:
            return None

    # ------------------------------------------------------------------ tasks
    def probes(self) -> list[Probe]:
        return move_game_probes(_two_plays) + [Probe("an illegal pass or equal", lambda v, t: _illegal_play(t))]

    def prompt(self, task: Mapping[str, Any]) -> str:
        state, banned = self._position(task)
        return PROMPT.format(position=describe(state, banned), example=PROMPT_EXAMPLES[0])

    def tasks(self, split: str = "test", *, limit: int | None = None, seed: int = 0) -> list[dict[str, Any]]:
        """Endgames where the choice matters (a winning and a losing play by the solver): fresh
        5- and 8-card deals, and positions reached by random play from 8- and 10-card deals
        (leading and following); seeded 80/20 split."""
        return select(load_all(), split, limit=limit, seed=seed)


def _two_plays(verifier: "DoudizhuVerifier", task: Mapping[str, Any]) -> tuple[str, str]:
    """The task's first winning play (any legal play without one) and another legal play, one that
    loses where there is one (so that a text settling on it is wrong)."""
    state, banned = verifier._position(task)
    plays = ["PASS" if m is None else m.text() for m in legal_moves(state.me, state.to_beat, banned)]
    best = [p for p in task.get("winning_moves") or () if p in plays] or plays
    others = [p for p in plays if p not in best] or [p for p in plays if p != best[0]]
    return best[0], others[0]


def _illegal_play(task: Mapping[str, Any]) -> str:
    """PASS when the model leads (it must play); when it follows, the play on the table again, which
    never beats its equal."""
    return f"<move>{task['to_beat']}</move>" if task.get("to_beat") else "PASS"

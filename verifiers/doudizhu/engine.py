"""The fast core: positions as packed integers, memoised move tables, rollouts and exact search.

A hand is packed into one int, 3 bits per rank (`pack`), so playing a combination is one
subtraction and a position is a cheap dict key. Every combination ever generated is interned to
a small id (0 is PASS / "nothing to beat"). `Rules` (one per set of banned kinds) memoises, per
(hand, combination to beat), the tuple of legal moves as (id, hand after) pairs: a rollout ply is
then a dict lookup and an index, and the exact solvers share the same tables.
"""

from __future__ import annotations

import random
from functools import lru_cache
from typing import Callable

from .cards import DOUZERO_AIRPLANES, KINDS, PERMISSIONS, Combo, Hand, allowed, combos

BITS = 3
HAND_BITS = 15 * BITS
PASS = 0  # move id of PASS, and "nothing to beat" when leading
TABLE_LIMIT = 1_000_000  # entries per memo table before it is emptied (bounds a long-lived worker)

_combos: list[Combo | None] = [None]
_packed: list[int] = [0]
_ids: dict[Combo, int] = {}


def pack(counts: Hand) -> int:
    return sum(n << (BITS * r) for r, n in enumerate(counts))


def unpack(hand: int) -> Hand:
    return tuple((hand >> (BITS * r)) & 7 for r in range(15))


def intern(combo: Combo) -> int:
    """The id of `combo` (ids are per process; never store them, store the cards)."""
    cid = _ids.get(combo)
    if cid is None:
        cid = _ids[combo] = len(_combos)
        _combos.append(combo)
        _packed.append(pack(combo.cards))
    return cid


def combo_of(cid: int) -> Combo | None:
    return _combos[cid]


class SearchLimit(RuntimeError):
    """The exact search needed more positions than its budget allows."""


Moves = tuple[tuple[int, int], ...]


@lru_cache(maxsize=None)
def rules_for(banned: frozenset[str] = frozenset()) -> "Rules":
    """One `Rules` per ban list, so its memo tables serve every position scored in this process."""
    return Rules(banned)


class Rules:
    """Move tables, rollouts and exact search for one set of banned kinds."""

    def __init__(self, banned: frozenset[str] = frozenset()) -> None:
        unknown = set(banned) - set(KINDS) - set(PERMISSIONS)
        if unknown:
            raise ValueError(f"unknown combination kinds {sorted(unknown)}")
        self.banned = frozenset(banned)
        self._lead: dict[int, Moves] = {}
        self._moves: dict[int, Moves] = {}
        self._wins: dict[int, bool] = {}
        self._random: dict[int, float] = {}
        self._budget = 0

    # ---------------------------------------------------------------- move tables
    def lead_moves(self, hand: int) -> Moves:
        found = self._lead.get(hand)
        if found is None:
            if len(self._lead) > TABLE_LIMIT:
                self._lead.clear()
            # Biggest plays first: the exact search then finds winning lines far sooner (3x
            # faster on 10-12 cards); rollouts pick uniformly, so the order costs them nothing.
            playable = sorted((c for c in combos(unpack(hand)) if allowed(c, self.banned)), key=lambda c: -sum(c.cards))
            found = tuple((cid, hand - _packed[cid]) for cid in map(intern, playable))
            self._lead[hand] = found
        return found

    def moves(self, hand: int, beat: int) -> Moves:
        """Legal (move id, hand after) pairs; when following (`beat` != PASS) PASS comes last."""
        key = hand | (beat << HAND_BITS)
        found = self._moves.get(key)
        if found is None:
            if len(self._moves) > TABLE_LIMIT:
                self._moves.clear()
            lead = self.lead_moves(hand)
            if beat == PASS:
                found = lead
            else:
                target = _combos[beat]
                douzero = DOUZERO_AIRPLANES in self.banned
                found = tuple(m for m in lead if _combos[m[0]].beats(target, douzero)) + ((PASS, hand),)
            self._moves[key] = found
        return found

    # ---------------------------------------------------------------- rollouts
    def rollouts(
        self, me: int, them: int, beat: int, count: int, uniform: Callable[[], float], plies: int
    ) -> list[float]:
        """`count` games of uniformly random play; 1.0 where the side to move now wins.

        Rollout i reads the i-th block of `plies` uniforms whatever the moves, so two positions
        rolled out from the same stream see the same randomness game by game (common random
        numbers). `plies` must bound a game's length: 2 x cards on the table + 1 is enough, since
        every ply but a PASS plays a card and a PASS is always followed by a lead."""
        moves, out = self.moves, []
        for _ in range(count):
            block = [uniform() for _ in range(plies)]
            a, b, to_beat, mine = me, them, beat, True
            result = 0.5  # only if `plies` was too small
            for u in block:
                options = moves(a, to_beat)
                cid, after = options[int(u * len(options))]
                if not after:
                    result = 1.0 if mine else 0.0
                    break
                if cid:
                    a, b, to_beat = b, after, cid
                else:
                    a, b, to_beat = b, a, PASS
                mine = not mine
            out.append(result)
        return out

    # ---------------------------------------------------------------- exact values
    def wins(self, me: int, them: int, beat: int, budget: int | None = None) -> bool:
        """True when the side to move wins with perfect play (memoised minimax, perfect information).
        Raises SearchLimit after `budget` new positions."""
        if len(self._wins) > TABLE_LIMIT:
            self._wins.clear()
        self._budget = budget if budget is not None else -1  # negative: unlimited
        return self._solve(me, them, beat)

    def _solve(self, me: int, them: int, beat: int) -> bool:
        key = me | (them << HAND_BITS) | (beat << (2 * HAND_BITS))
        known = self._wins.get(key)
        if known is not None:
            return known
        if self._budget == 0:
            raise SearchLimit("exact search exceeded its position budget")
        self._budget -= 1
        options = self.moves(me, beat)
        result = any(cid and not after for cid, after in options) or any(
            not (self._solve(them, after, cid) if cid else self._solve(them, me, PASS)) for cid, after in options
        )
        self._wins[key] = result
        return result

    def random_value(self, me: int, them: int, beat: int) -> float:
        """The exact chance that the side to move wins when both play uniformly at random: the
        quantity `rollouts` estimates (memoised expectation; small endgames)."""
        key = me | (them << HAND_BITS) | (beat << (2 * HAND_BITS))
        known = self._random.get(key)
        if known is None:
            if len(self._random) > TABLE_LIMIT:
                self._random.clear()
            options = self.moves(me, beat)
            total = 0.0
            for cid, after in options:
                if cid and not after:
                    total += 1.0
                else:
                    total += 1.0 - (self.random_value(them, after, cid) if cid else self.random_value(them, me, PASS))
            known = self._random[key] = total / len(options)
        return known


def rollout_plies(me: int, them: int) -> int:
    """A bound on the plies of any game from a position with these hands (see `Rules.rollouts`)."""
    return 2 * sum(unpack(me) + unpack(them)) + 1


def python_uniform(seed: int) -> Callable[[], float]:
    """Python's Mersenne Twister: the same stream on every platform and Python version."""
    return random.Random(seed).random

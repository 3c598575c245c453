"""Dou Dizhu cards, combinations and their rules (two-player endgames, both hands visible).

A hand is a tuple of 15 counts, one per rank 3 4 5 6 7 8 9 T J Q K A 2 B R (B and R are the
black and red jokers). '2' and the jokers never take part in chains. A move is a `Combo`: its
kind, the rank that decides what beats it, its length (chains) and the cards it uses.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import lru_cache

RANKS = "3456789TJQKA2BR"
TWO, BLACK_JOKER, RED_JOKER = 12, 13, 14
CHAIN_TOP = 11  # chains stop at A
KINDS = ("single", "pair", "trio", "trio_single", "trio_pair", "chain", "pair_chain", "airplane",
         "airplane_singles", "airplane_pairs", "four_two_singles", "four_two_pairs", "bomb", "rocket")
Hand = tuple[int, ...]


@dataclass(frozen=True)
class Combo:
    kind: str
    rank: int          # the rank compared when beating (lowest rank of a chain)
    length: int        # number of links in a chain (1 otherwise)
    cards: Hand        # counts per rank

    def text(self) -> str:
        return cards_text(self.cards)

    def beats(self, other: "Combo") -> bool:
        if self.kind == "rocket":
            return True
        if other.kind == "rocket":
            return False
        if self.kind == "bomb":
            return other.kind != "bomb" or self.rank > other.rank
        return self.kind == other.kind and self.length == other.length and self.rank > other.rank


def cards_text(counts: Hand) -> str:
    return " ".join(RANKS[r] for r, n in enumerate(counts) for _ in range(n))


def hand_from_text(text: str) -> Hand:
    counts = [0] * 15
    for token in text.replace(",", " ").split():
        for ch in token.upper().replace("10", "T"):
            if ch not in RANKS:
                raise ValueError(f"unknown card {ch!r}")
            counts[RANKS.index(ch)] += 1
    if any(n > 4 for n in counts[:13]) or counts[BLACK_JOKER] > 1 or counts[RED_JOKER] > 1:
        raise ValueError("more copies of a card than a deck holds")
    return tuple(counts)



def _kickers(hand: Hand, exclude: set[int], count: int, width: int) -> list[tuple[int, ...]]:
    """Ways to choose `count` kicker groups of `width` equal cards from ranks not in `exclude`
    (singles may repeat a rank, but never both jokers; pairs use distinct ranks)."""
    if width == 1:
        pool = [r for r in range(15) if r not in exclude for _ in range(hand[r])]
        choices = set(itertools.combinations(pool, count))
        return [c for c in choices if not (BLACK_JOKER in c and RED_JOKER in c)]
    ranks = [r for r in range(13) if r not in exclude and hand[r] >= 2]
    return [tuple(r for r in c for _ in range(2)) for c in itertools.combinations(ranks, count)]


@lru_cache(maxsize=200_000)
def combos(hand: Hand) -> tuple[Combo, ...]:
    """Every combination this hand can play (not counting PASS)."""
    out: list[Combo] = []

    def add(kind: str, rank: int, length: int, ranks: tuple[int, ...]) -> None:
        counts = [0] * 15
        for r in ranks:
            counts[r] += 1
        out.append(Combo(kind, rank, length, tuple(counts)))

    for r, n in enumerate(hand):
        if n >= 1:
            add("single", r, 1, (r,))
        if n >= 2:
            add("pair", r, 1, (r, r))
        if n >= 3:
            add("trio", r, 1, (r,) * 3)
            for k in _kickers(hand, {r}, 1, 1):
                add("trio_single", r, 1, (r,) * 3 + k)
            for k in _kickers(hand, {r}, 1, 2):
                add("trio_pair", r, 1, (r,) * 3 + k)
        if n == 4:
            add("bomb", r, 1, (r,) * 4)
            for k in _kickers(hand, {r}, 2, 1):
                add("four_two_singles", r, 1, (r,) * 4 + k)
            for k in _kickers(hand, {r}, 2, 2):
                add("four_two_pairs", r, 1, (r,) * 4 + k)
    if hand[BLACK_JOKER] and hand[RED_JOKER]:
        add("rocket", RED_JOKER, 1, (BLACK_JOKER, RED_JOKER))
    for width, kind, shortest in ((1, "chain", 5), (2, "pair_chain", 3), (3, "airplane", 2)):
        for start in range(CHAIN_TOP + 1):
            for end in range(start + shortest - 1, CHAIN_TOP + 1):
                if any(hand[r] < width for r in range(start, end + 1)):
                    break
                links = tuple(range(start, end + 1))
                body = tuple(r for r in links for _ in range(width))
                add(kind, start, len(links), body)
                if width == 3:
                    for k in _kickers(hand, set(links), len(links), 1):
                        add("airplane_singles", start, len(links), body + k)
                    for k in _kickers(hand, set(links), len(links), 2):
                        add("airplane_pairs", start, len(links), body + k)
    unique = {(c.kind, c.rank, c.length, c.cards): c for c in out}
    return tuple(unique.values())


def legal_moves(hand: Hand, to_beat: Combo | None, banned: frozenset[str] = frozenset()) -> list[Combo | None]:
    """Moves available: any combination when leading; when following, those that beat `to_beat`,
    plus None for PASS."""
    available = [c for c in combos(hand) if c.kind not in banned]
    if to_beat is None:
        return list(available)
    return [c for c in available if c.beats(to_beat)] + [None]


def minus(hand: Hand, cards: Hand) -> Hand:
    return tuple(a - b for a, b in zip(hand, cards))

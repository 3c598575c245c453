"""Dou Dizhu cards, combinations and their rules (two-player endgames, both hands visible).

A hand is a tuple of 15 counts, one per rank 3 4 5 6 7 8 9 T J Q K A 2 B R (B and R are the
black and red jokers). '2' and the jokers never take part in chains. A move is a `Combo`: its
kind, the rank that decides what beats it, its length (chains) and the cards it uses.

Kicker rules: kickers never use the rank of the trio, four or chain they ride on; pair kickers
are never jokers; single kickers may share a rank. Four points differ between rule sets, so they
are switches (permission tokens in the rule set that also holds banned kinds), checked against
each peer's own move generator on random positions (tests/doudizhu/test_doudizhu_peers.py):
- `ALLOW_ROCKET_KICKERS`: the rocket (both jokers) as the two single kickers of four-with-two or
  among airplane wings. DouZero allows it; rlcard does not (nor our default).
- `ALLOW_BOMB_WINGS`: four cards of one rank among an airplane's single wings. DouZero allows it;
  rlcard does not (nor our default).
- `ALLOW_EQUAL_PAIRS`: two pairs of one rank as the pair kickers of four-with-two-pairs or among an
  airplane's pair wings. Neither peer allows it (nor our default).
- `BAN_ADJACENT_TRIO_WINGS`: three cards of a rank next to the airplane (2s excepted) among its
  single wings, e.g. 333444555 with 666, are refused. rlcard refuses them; DouZero (and our
  default) allows them, so this one switch is a ban: the empty rule set stays our default.
- `DOUZERO_AIRPLANES`: an airplane with single wings, as the play to beat, is read as DouZero reads
  it: ranked by the highest rank it holds exactly three of, wings included (666777888 with KKK ranks
  as K, so 999TTTJJJ with wings may not follow it), and where DouZero's reader cannot place it at
  all (four of a rank among its wings, a trio among the wings of an airplane of four or more trios)
  only a bomb or the rocket follows it. rlcard (and our default) rank it by its own trios.
The presets `rlcard` and `douzero` of the verifier set the five to match each peer.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

RANKS = "3456789TJQKA2BR"
TWO, BLACK_JOKER, RED_JOKER = 12, 13, 14
CHAIN_TOP = 11  # chains stop at A
KINDS = (
    "single",
    "pair",
    "trio",
    "trio_single",
    "trio_pair",
    "chain",
    "pair_chain",
    "airplane",
    "airplane_singles",
    "airplane_pairs",
    "four_two_singles",
    "four_two_pairs",
    "bomb",
    "rocket",
)
#: The 1v1 puzzle genre names its bans by shape: 31 = trio+single, 32 = trio+pair, 421/422 = four+two.
BAN_ALIASES = {
    "31": "trio_single",
    "3+1": "trio_single",
    "32": "trio_pair",
    "3+2": "trio_pair",
    "411": "four_two_singles",
    "421": "four_two_singles",
    "4+2": "four_two_singles",
    "422": "four_two_pairs",
    "4+2+2": "four_two_pairs",
    "4+22": "four_two_pairs",
}
DECK_COPIES = (4,) * 13 + (1, 1)
ALLOW_ROCKET_KICKERS = "allow:rocket_kickers"
ALLOW_BOMB_WINGS = "allow:bomb_wings"
ALLOW_EQUAL_PAIRS = "allow:equal_pairs"
BAN_ADJACENT_TRIO_WINGS = "ban:adjacent_trio_wings"
DOUZERO_AIRPLANES = "read:douzero_airplanes"
# rule switches
PERMISSIONS = (ALLOW_ROCKET_KICKERS, ALLOW_BOMB_WINGS, ALLOW_EQUAL_PAIRS, BAN_ADJACENT_TRIO_WINGS, DOUZERO_AIRPLANES)
_KICKED = frozenset(
    {"four_two_singles", "four_two_pairs", "airplane_singles", "airplane_pairs", "trio_single", "trio_pair"}
)
Hand = tuple[int, ...]


@dataclass(frozen=True)
class Combo:
    kind: str
    rank: int  # the rank compared when beating (lowest rank of a chain)
    length: int  # number of links in a chain (1 otherwise)
    cards: Hand  # counts per rank

    def text(self) -> str:
        return cards_text(self.cards)

    def label(self) -> str:
        """Human name of the kind, e.g. 'pair chain of 3'."""
        name = self.kind.replace("_", " ")
        return f"{name} of {self.length}" if self.length > 1 else name

    def beats(self, other: "Combo", douzero_airplanes: bool = False) -> bool:
        """Whether this play may follow `other`; with `douzero_airplanes`, an airplane with single
        wings to beat is read as DouZero reads it (see the module docstring)."""
        if self.kind == "rocket":
            return True
        if other.kind == "rocket":
            return False
        if self.kind == "bomb":
            return other.kind != "bomb" or self.rank > other.rank
        if not (self.kind == other.kind and self.length == other.length):
            return False
        if douzero_airplanes and self.kind == "airplane_singles":
            return douzero_readable(other) and self.top_trio() > other.top_trio()
        return self.rank > other.rank

    def top_trio(self) -> int:
        """The highest rank this play holds exactly three of."""
        return max(r for r, n in enumerate(self.cards) if n == 3)


def douzero_readable(combo: Combo) -> bool:
    """Whether DouZero's move reader places this airplane with single wings as one: its trios (wings
    included) in a row, as many as its other cards, or four trios of which three are in a row; no
    four of a rank, and not only trios in a row (those it reads as an airplane without wings). A 2
    is never in a row."""
    counts = combo.cards
    if 4 in counts:
        return False
    trios = [r for r, n in enumerate(counts) if n == 3]
    others = sum(n for n in counts if n in (1, 2))

    def in_a_row(ranks: list[int]) -> bool:
        return all(r < TWO for r in ranks) and ranks == list(range(ranks[0], ranks[0] + len(ranks)))

    if not others and in_a_row(trios):  # it reads these as an airplane without wings first
        return False
    if in_a_row(trios) and len(trios) == others:
        return True
    return len(trios) == 4 and (in_a_row(trios[1:]) or in_a_row(trios[:-1]))


def normalise_banned(names: tuple[str, ...] | list[str] | frozenset[str]) -> frozenset[str]:
    """Kind names or puzzle aliases (31, 32, 421, 422) -> kind names; unknown ones raise ValueError."""
    kinds = {BAN_ALIASES.get(str(n).strip().lower(), str(n).strip().lower()) for n in names}
    unknown = kinds - set(KINDS) - set(PERMISSIONS)
    if unknown:
        raise ValueError(
            f"unknown combination kinds {sorted(unknown)}; known: {list(KINDS)} or aliases {sorted(BAN_ALIASES)}"
        )
    return frozenset(kinds)


def cards_text(counts: Hand) -> str:
    return " ".join(RANKS[r] for r, n in enumerate(counts) for _ in range(n))


_JOKER_WORDS = [
    (re.compile(p, re.IGNORECASE), f" {r} ")
    for p, r in (
        (r"(?:big|red|large)[\s_-]*joker|大王|\bRJ\b", "R"),
        (r"(?:small|black|little)[\s_-]*joker|小王|\bBJ\b", "B"),
    )
]
_SEPARATORS = frozenset(" \t\r\n,;.[](){}'\"-/|+:*`、，。；：♠♥♦♣♤♡♢♧\ufe0f")  # suits: no rank of their own
MAX_CARD_TEXT = 200


def parse_cards(text: str) -> Hand:
    """Ranks in common spellings -> counts: `33`, `3 3`, `10`/`T`, `jj`, `B R`, `小王 大王`, `red joker`.

    Raises ValueError (with the offending character) for anything that is not cards. The one
    card reader for tasks and completions alike, so both accept the same spellings."""
    if len(text) > MAX_CARD_TEXT:
        raise ValueError(f"card text longer than {MAX_CARD_TEXT} characters")
    text = unicodedata.normalize("NFKC", text)  # full-width ３３ and １０ are common in Chinese text
    for pattern, rank in _JOKER_WORDS:
        text = pattern.sub(rank, text)
    text = text.replace("10", "T")
    counts = [0] * 15
    for ch in text.upper():
        index = RANKS.find(ch)
        if index >= 0:
            counts[index] += 1
        elif ch not in _SEPARATORS:
            raise ValueError(f"{ch!r} is not a card")
    return tuple(counts)


def hand_from_text(text: str) -> Hand:
    """`parse_cards`, plus the check that one deck could hold these cards."""
    counts = parse_cards(text)
    if any(n > cap for n, cap in zip(counts, DECK_COPIES)):
        raise ValueError("more copies of a card than a deck holds")
    return counts


def _kickers(hand: Hand, exclude: set[int], count: int, width: int) -> list[tuple[int, ...]]:
    """Ways to choose `count` kicker groups of `width` equal cards from ranks not in `exclude`,
    under the most permissive rules (`allowed` applies the switches)."""
    if width == 1:
        pool = [r for r in range(15) if r not in exclude for _ in range(hand[r])]
        return list(set(itertools.combinations(pool, count)))
    pairs = [r for r in range(13) if r not in exclude for _ in range(hand[r] // 2)]
    return [tuple(r for r in c for _ in range(2)) for c in sorted(set(itertools.combinations(pairs, count)))]


def allowed(combo: Combo, rules: frozenset[str]) -> bool:
    """Is `combo` playable under `rules` (banned kinds plus permission switches)?"""
    if combo.kind in rules:
        return False
    if combo.kind not in _KICKED:
        return True
    cards = combo.cards
    if cards[BLACK_JOKER] and cards[RED_JOKER] and ALLOW_ROCKET_KICKERS not in rules:
        return False
    body = range(combo.rank, combo.rank + combo.length)
    four_kickers = ALLOW_EQUAL_PAIRS if combo.kind in ("four_two_pairs", "airplane_pairs") else ALLOW_BOMB_WINGS
    if four_kickers not in rules and any(n == 4 and r not in body for r, n in enumerate(cards)):
        return False
    if combo.kind == "airplane_singles" and BAN_ADJACENT_TRIO_WINGS in rules:
        neighbours = (combo.rank - 1, combo.rank + combo.length)
        if any(0 <= r < TWO and cards[r] == 3 for r in neighbours):
            return False
    return True


@lru_cache(maxsize=100_000)
def combos(hand: Hand) -> tuple[Combo, ...]:
    """Every combination this hand can play (not counting PASS), in a fixed order."""
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
            for k in sorted(_kickers(hand, {r}, 1, 1)):
                add("trio_single", r, 1, (r,) * 3 + k)
            for k in _kickers(hand, {r}, 1, 2):
                add("trio_pair", r, 1, (r,) * 3 + k)
        if n == 4:
            add("bomb", r, 1, (r,) * 4)
            for k in sorted(_kickers(hand, {r}, 2, 1)):
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
                    for k in sorted(_kickers(hand, set(links), len(links), 1)):
                        add("airplane_singles", start, len(links), body + k)
                    for k in _kickers(hand, set(links), len(links), 2):
                        add("airplane_pairs", start, len(links), body + k)
    unique = {(c.kind, c.rank, c.length, c.cards): c for c in out}
    return tuple(unique.values())


def shapes(cards: Hand) -> list[Combo]:  # under the most permissive rules
    """Every combination that uses exactly these cards (several when a multiset reads two ways,
    e.g. 333444555666 is a 4-trio airplane or a 3-trio airplane with 6 6 6 as wings)."""
    return [c for c in combos(cards) if c.cards == cards]


def legal_moves(hand: Hand, to_beat: Combo | None, banned: frozenset[str] = frozenset()) -> list[Combo | None]:
    """Moves available under the rule set `banned` (banned kinds and permission switches): any
    combination when leading; when following, those that beat `to_beat`, plus None for PASS."""
    available = [c for c in combos(hand) if allowed(c, banned)]
    if to_beat is None:
        return available
    return [c for c in available if c.beats(to_beat, DOUZERO_AIRPLANES in banned)] + [None]


def minus(hand: Hand, cards: Hand) -> Hand:
    return tuple(a - b for a, b in zip(hand, cards))

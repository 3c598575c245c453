"""The legal plays of a Dou Dizhu position as two peers generate them, through their own code:
DouZero's `GameEnv.get_legal_card_play_actions` and rlcard's judger (leading) and `get_gt_cards`
(following). Plays are compared as multisets of cards (our 15 counts per rank, `cards.RANKS`)."""

from __future__ import annotations

import random
from types import SimpleNamespace

from verifiers.doudizhu.cards import RANKS, Hand

DOUZERO_VALUES = (3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 17, 20, 30)  # 3..A, 2, black and red joker


def counts_of(ranks: list[int]) -> Hand:
    counts = [0] * 15
    for r in ranks:
        counts[r] += 1
    return tuple(counts)


def ranks_of(hand: Hand) -> list[int]:
    return [r for r, n in enumerate(hand) for _ in range(n)]


# ---------------------------------------------------------------------------------------- DouZero
def douzero_plays(hand: Hand, to_beat: Hand | None) -> set[Hand | None]:
    """DouZero's legal actions for `hand` (None: PASS, offered when following)."""
    from douzero.env.game import GameEnv

    env = GameEnv(players={})
    env.acting_player_position = "landlord"
    env.info_sets["landlord"].player_hand_cards = sorted(DOUZERO_VALUES[r] for r in ranks_of(hand))
    env.card_play_action_seq = [] if to_beat is None else [sorted(DOUZERO_VALUES[r] for r in ranks_of(to_beat))]
    found: set[Hand | None] = set()
    for move in env.get_legal_card_play_actions():
        found.add(counts_of([DOUZERO_VALUES.index(v) for v in move]) if move else None)
    return found


# ---------------------------------------------------------------------------------------- rlcard
def _rlcard_text(hand: Hand) -> str:
    return "".join(RANKS[r] for r in ranks_of(hand))


def rlcard_plays(hand: Hand, to_beat: Hand | None) -> set[Hand | None]:
    """rlcard's legal actions: the judger's playable cards when leading, `get_gt_cards` (its table
    of card types) plus 'pass' when following."""
    from rlcard.games.base import Card
    from rlcard.games.doudizhu.judger import DoudizhuJudger
    from rlcard.games.doudizhu.utils import get_gt_cards

    if to_beat is None:
        texts = DoudizhuJudger.playable_cards_from_hand(_rlcard_text(hand))
    else:
        suits = "SHDC"
        cards = [
            Card("BJ", "") if r == 13 else Card("RJ", "") if r == 14 else Card(suits[i % 4], RANKS[r])
            for i, r in enumerate(ranks_of(hand))
        ]
        me, them = SimpleNamespace(current_hand=cards), SimpleNamespace(played_cards=_rlcard_text(to_beat))
        texts = get_gt_cards(me, them)
    return {None if t == "pass" else counts_of([RANKS.index(c) for c in t]) for t in texts}


# ---------------------------------------------------------------------------------------- positions
def random_positions(count: int, seed: int, peer) -> list[tuple[Hand, Hand | None]]:
    """`count` (hand, play to beat or None) positions: hands of up to 20 cards dealt rank by rank with
    many trios and fours, and jokers half the time, so that kickers, wings and airplanes come up
    (uniform deals of a few cards almost never reach the rules where peers differ); half of the
    positions follow a play that the peer itself would let a random hand lead."""
    rng = random.Random(seed)

    def deal(left: Hand) -> Hand:
        wanted = [rng.choice((0, 0, 0, 1, 2, 3, 3, 4)) for _ in range(13)] + [rng.random() < 0.5, rng.random() < 0.5]
        ranks = [r for r, n in enumerate(wanted) for _ in range(min(int(n), left[r]))]
        rng.shuffle(ranks)
        return counts_of(ranks[: rng.randint(4, 20)])

    deck: Hand = (4,) * 13 + (1, 1)
    out: list[tuple[Hand, Hand | None]] = []
    while len(out) < count:
        mine = deal(deck)
        if rng.random() < 0.5:
            out.append((mine, None))
            continue
        theirs = deal(tuple(a - b for a, b in zip(deck, mine)))  # one deck holds both hands
        leads = sorted(p for p in peer(theirs, None) if p is not None)
        if leads:
            out.append((mine, rng.choice(leads)))
    return out


def airplane_positions(count: int, seed: int, peers: tuple = ()) -> list[tuple[Hand, Hand]]:
    """`count` (hand, airplane with single wings to beat) positions in which a trio sits among wings:
    an airplane of 3 or 4 trios whose wings hold a whole trio, on one side or both, so that the
    airplane's own trios and its highest trio (wings included) rank the plays differently. Random
    deals almost never hold these. The play to beat is one each of `peers` would let its hand lead."""
    rng = random.Random(seed)

    def airplane(left: list[int], links: int, trio_wing: bool) -> list[int] | None:
        start = rng.randint(0, 12 - links)  # chains stop at A
        body = [r for r in range(start, start + links) for _ in range(3)]
        spare = [r for r in range(13) if not start <= r < start + links]
        wings: list[int] = []
        if trio_wing:
            wing = rng.choice(spare)
            wings = [wing] * 3
        while len(wings) < links:
            wings.append(rng.choice([r for r in range(15) if not start <= r < start + links]))
        cards = body + wings
        if any(cards.count(r) > left[r] for r in set(cards)) or (13 in cards and 14 in cards):
            return None
        return cards

    out: list[tuple[Hand, Hand]] = []
    while len(out) < count:
        links = rng.choice((3, 4))
        left = [4] * 13 + [1, 1]
        theirs = airplane(left, links, trio_wing=rng.random() < 0.7)
        if theirs is None:
            continue
        for r in theirs:
            left[r] -= 1
        mine = airplane(left, links, trio_wing=rng.random() < 0.7)
        if mine is None:
            continue
        for r in mine:
            left[r] -= 1
        extra = [r for r, n in enumerate(left) for _ in range(n)]
        rng.shuffle(extra)
        lead = counts_of(theirs)
        if all(lead in peer(lead, None) for peer in peers):
            out.append((counts_of(mine + extra[: rng.randint(0, 4)]), lead))
    return out

"""Dou Dizhu rules: move generation against hand-checked hands and against brute force over
sub-multisets, the beat rules, and the exact solver against hand-solved endgames."""

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verifiers.doudizhu import State, combos, engine, hand_from_text, legal_moves, move_value, shapes, solve
from verifiers.doudizhu.cards import (
    ALLOW_BOMB_WINGS,
    ALLOW_EQUAL_PAIRS,
    ALLOW_ROCKET_KICKERS,
    BAN_ADJACENT_TRIO_WINGS,
    CHAIN_TOP,
    cards_text,
    normalise_banned,
)
from verifiers.doudizhu.engine import rules_for


def combo(text, kind):
    """The `kind` reading of exactly these cards."""
    return next(c for c in shapes(hand_from_text(text)) if c.kind == kind)


def kinds(hand_text, rules=frozenset()):
    """What a hand may lead under `rules` (default: the verifier's default kicker rules)."""
    return sorted({(c.kind, cards_text(c.cards)) for c in legal_moves(hand_from_text(hand_text), None, rules)})


def test_hand_checked_hands():
    got = kinds("3 4 5 6 7 8")
    assert ("chain", "3 4 5 6 7") in got and ("chain", "4 5 6 7 8") in got and ("chain", "3 4 5 6 7 8") in got
    assert ("chain", "T J Q K A") in kinds("T J Q K A 2")
    assert ("chain", "J Q K A 2") not in kinds("J Q K A 2") and not [k for k, _ in kinds("J Q K A 2") if k == "chain"]
    assert ("rocket", "B R") in kinds("B R") and ("single", "B") in kinds("B R")
    airplane = kinds("3 3 3 4 4 4 5 6")
    assert ("airplane", "3 3 3 4 4 4") in airplane and ("airplane_singles", "3 3 3 4 4 4 5 6") in airplane
    assert ("pair_chain", "5 5 6 6 7 7") in kinds("5 5 6 6 7 7")
    assert ("pair_chain", "5 5 6 6") not in kinds("5 5 6 6")
    four = kinds("9 9 9 9 3 4 5 5")
    assert ("bomb", "9 9 9 9") in four and ("four_two_singles", "3 4 9 9 9 9") in four
    assert ("four_two_pairs", "5 5 9 9 9 9") not in four  # needs two pairs
    assert ("trio_pair", "3 3 7 7 7") in kinds("7 7 7 3 3")
    assert ("four_two_singles", "9 9 9 9 B R") not in kinds("9 9 9 9 B R")  # both jokers never kick by default
    assert ("four_two_singles", "5 5 9 9 9 9") in kinds("9 9 9 9 5 5")  # two single kickers may pair up
    assert ("four_two_pairs", "5 5 6 6 9 9 9 9") in kinds("9 9 9 9 5 5 6 6")
    assert ("airplane_pairs", "3 3 3 4 4 4 9 9 J J") in kinds("3 3 3 4 4 4 9 9 J J")
    assert ("airplane_singles", "3 3 3 4 4 4 9 B") in kinds("3 3 3 4 4 4 9 B")
    assert ("trio_single", "2 2 2 R") in kinds("2 2 2 R")  # 2 and jokers are fine outside chains
    assert not [k for k, _ in kinds("K K A A 2 2") if k == "pair_chain"]  # 2 never chains
    assert not [k for k, _ in kinds("K K K A A A 2 2 2") if k == "airplane" and "2" in _]
    assert ("airplane", "K K K A A A") in kinds("K K K A A A 2 2 2")
    assert not [k for k, _ in kinds("3 3 3 3 4") if k == "trio_single" and _ == "3 3 3 3"]  # no own-rank kicker
    assert ("chain", "3 4 5 6 7 8 9 T J Q K A") in kinds("3 4 5 6 7 8 9 T J Q K A")  # the longest chain


def test_cards_that_read_two_ways_have_both_readings():
    readings = {(c.kind, c.rank, c.length) for c in shapes(hand_from_text("3 3 3 4 4 4 5 5 5 6 6 6"))}
    assert readings == {("airplane", 0, 4), ("airplane_singles", 0, 3), ("airplane_singles", 1, 3)}
    assert shapes(hand_from_text("3 3 4 4")) == []  # two pairs is no combination


def test_ban_aliases():
    assert normalise_banned(["31", "422", "bomb"]) == {"trio_single", "four_two_pairs", "bomb"}
    with pytest.raises(ValueError, match="unknown"):
        normalise_banned(["five_of_a_kind"])


def test_beating_rules():
    bomb = next(c for c in combos(hand_from_text("4 4 4 4")) if c.kind == "bomb")
    rocket = next(c for c in combos(hand_from_text("B R")) if c.kind == "rocket")
    pair_k = next(c for c in combos(hand_from_text("K K")) if c.kind == "pair")
    pair_a = next(c for c in combos(hand_from_text("A A")) if c.kind == "pair")
    chain5 = next(c for c in combos(hand_from_text("3 4 5 6 7")) if c.kind == "chain")
    chain6 = next(c for c in combos(hand_from_text("4 5 6 7 8 9")) if c.kind == "chain" and c.length == 6)
    assert pair_a.beats(pair_k) and not pair_k.beats(pair_a)
    assert bomb.beats(pair_a) and rocket.beats(bomb) and not bomb.beats(rocket)
    assert not chain6.beats(chain5)  # same kind needs the same length
    moves = legal_moves(hand_from_text("K K 3"), pair_a)
    assert moves == [None]  # nothing beats a pair of aces here: PASS only
    assert None not in legal_moves(hand_from_text("K K 3"), None)  # no PASS when leading
    four_two = combo("9 9 9 9 3 4", "four_two_singles")
    assert not combo("8 8 8 8 3 4", "four_two_singles").beats(four_two)
    assert not four_two.beats(bomb)  # four-with-two is no bomb
    assert combo("3 3 3 3", "bomb").beats(four_two) and combo("5 5 5 5", "bomb").beats(bomb)
    trio_pair = combo("7 7 7 3 3", "trio_pair")
    assert not combo("8 8 8 3", "trio_single").beats(trio_pair)  # same kind needed
    assert combo("8 8 8 4 4", "trio_pair").beats(trio_pair)
    follow = legal_moves(hand_from_text("8 8 9 9 T T J J 2 2 2 2 B R"), combo("5 5 6 6 7 7", "pair_chain"))
    assert sorted(cards_text(m.cards) for m in follow if m is not None and m.kind == "pair_chain") == [
        "8 8 9 9 T T",
        "9 9 T T J J",
    ]
    assert {m.kind for m in follow if m is not None} == {"pair_chain", "bomb", "rocket"} and follow[-1] is None
    assert legal_moves(hand_from_text("3 3 4 4 5 5"), pair_a, frozenset({"bomb"})) == [None]


def _brute_kinds(cards):
    """An independent classifier: which (kind, rank, length) does this exact multiset make?"""
    counts = list(cards)
    n = sum(counts)
    present = [r for r in range(15) if counts[r]]
    out = set()
    if n == 1:
        out.add(("single", present[0], 1))
    if n == 2 and len(present) == 1 and present[0] < 13:
        out.add(("pair", present[0], 1))
    if n == 2 and present == [13, 14]:
        out.add(("rocket", 14, 1))
    for r in range(13):
        if counts[r] == 3:  # with a fourth card of its rank it is a bomb, and never its own kicker
            rest = [c - (3 if i == r else 0) for i, c in enumerate(counts)]
            m = sum(rest)
            if m == 0:
                out.add(("trio", r, 1))
            if m == 1:
                out.add(("trio_single", r, 1))
            if m == 2 and max(rest) == 2 and rest.index(2) < 13:
                out.add(("trio_pair", r, 1))
        if counts[r] == 4:
            rest = [c - (4 if i == r else 0) for i, c in enumerate(counts)]
            m = sum(rest)
            if m == 0:
                out.add(("bomb", r, 1))
            if m == 2 and not (rest[13] and rest[14]):
                out.add(("four_two_singles", r, 1))
            if m == 4 and sorted(x for x in rest if x) == [2, 2]:
                out.add(("four_two_pairs", r, 1))
    for width, kind, shortest in ((1, "chain", 5), (2, "pair_chain", 3), (3, "airplane", 2)):
        for start in range(CHAIN_TOP + 1):
            for end in range(start + shortest - 1, CHAIN_TOP + 1):
                links = range(start, end + 1)
                if any(counts[r] < width for r in links):
                    break
                rest = [c - (width if i in links else 0) for i, c in enumerate(counts)]
                k = len(links)
                if sum(rest) == 0:
                    out.add((kind, start, k))
                if width == 3 and sum(rest) == k and all(rest[r] == 0 for r in links) and not (rest[13] and rest[14]):
                    out.add(("airplane_singles", start, k))
                if (
                    width == 3
                    and sum(rest) == 2 * k
                    and all(x in (0, 2) for x in rest)
                    and not rest[13]
                    and not rest[14]
                ):
                    out.add(("airplane_pairs", start, k))
    return out


def _sub_multisets(hand):
    ranges = [range(c + 1) for c in hand]
    for counts in itertools.product(*ranges):
        if any(counts):
            yield tuple(counts)


DECK = [r for r in range(13) for _ in range(4)] + [13, 14]


@settings(max_examples=60, deadline=None)
@given(st.randoms(use_true_random=False), st.integers(1, 9))
def test_generated_moves_are_exactly_the_legal_ones(rnd, size):
    hand = [0] * 15
    for r in rnd.sample(DECK, size):
        hand[r] += 1
    hand = tuple(hand)
    generated = {(c.kind, c.rank, c.length, c.cards) for c in legal_moves(hand, None)}  # default kicker rules
    brute = {(k, r, n, sub) for sub in _sub_multisets(hand) for (k, r, n) in _brute_kinds(sub)}
    assert generated == brute
    for _kind, _r, _n, cards in generated:  # every generated move uses cards from the hand
        assert all(c <= h for c, h in zip(cards, hand))


@pytest.mark.parametrize(
    "me, them, wins",
    [
        ("3", "4", True),  # lead the last card
        ("3 4", "5", False),  # whatever I lead, 5 beats it and empties
        ("3 3", "5", True),  # the pair goes out at once
        ("A 3", "K", True),  # A cannot be beaten; then 3 goes out
        ("3 K", "A", False),
        ("3 3 4", "5 5", False),  # 33 is beaten by 55; 3 or 4 alone leaves a lead for them
        # Lead 3: if they answer 5 I bomb and win, but they answer with the rocket and lead 5 out.
        # Lead the bomb: the rocket beats it and they lead 5 out. (4444+3 is no legal combination.)
        ("4 4 4 4 3", "B R 5", False),
        # Lead 3 4 5 6 7 (they cannot follow a chain), then 9 goes out; any single first lets 2 in.
        ("3 4 5 6 7 9", "2 T", True),
        ("3 3 3 9", "4 4 4 8", True),  # trio+single goes out at once
        ("3 4 K", "A 5", False),  # singles only: they top any of them with A, then lead 5
    ],
)
def test_exact_solver_on_hand_solved_endgames(me, them, wins):
    assert solve(State(hand_from_text(me), hand_from_text(them), None)) is wins


@pytest.mark.parametrize(
    "me, them, to_beat, banned, wins",
    [
        ("K K 3", "4", "Q Q", (), True),  # K K, they cannot follow, 3 goes out
        ("K K 3", "4", "Q Q", ("pair",), False),  # pairs banned: PASS, they lead 4 and win
        ("3", "4 4", "A", (), False),  # PASS is forced and they lead 4 4
        ("5 5 5 5 3", "A A 4", "K K", (), True),  # the bomb stops them; then 3 goes out
        ("5 5 5 5 3", "A A 4", "K K", ("bomb",), False),  # no bomb: PASS, they lead A A, then 4
        ("5 5 5 5 3", "B R 4", "K K", (), False),  # bomb, rocket, 4 goes out
        ("A 3", "2 4", "K", (), False),  # A is topped by 2; PASS lets them lead 2 then 4
        ("2 3", "A 4", "K", (), True),  # 2 holds the trick, then 3 goes out
    ],
)
def test_exact_solver_on_hand_solved_following_positions(me, them, to_beat, banned, wins):
    table = shapes(hand_from_text(to_beat))[0]
    assert solve(State(hand_from_text(me), hand_from_text(them), table), frozenset(banned)) is wins


def test_move_value_matches_solver():
    state = State(hand_from_text("A 3"), hand_from_text("K"), None)
    values = {c.text(): move_value(state, c) for c in legal_moves(state.me, None)}
    assert values == {"3": 0.0, "A": 1.0}


def test_kicker_switches():
    """The rocket as kickers, four equal cards as single wings, two equal pairs as pair kickers and an
    adjacent trio among single wings: each a switch (the first three off by default, the last on)."""
    rocket, bombs, pairs = (
        frozenset({ALLOW_ROCKET_KICKERS}),
        frozenset({ALLOW_BOMB_WINGS}),
        frozenset({ALLOW_EQUAL_PAIRS}),
    )
    assert ("four_two_singles", "9 9 9 9 B R") in kinds("9 9 9 9 B R", rocket)
    assert ("airplane_singles", "3 3 3 4 4 4 B R") in kinds("3 3 3 4 4 4 B R", rocket)
    assert ("airplane_singles", "3 3 3 4 4 4 B R") not in kinds("3 3 3 4 4 4 B R")
    assert ("four_two_pairs", "5 5 5 5 9 9 9 9") not in kinds("9 9 9 9 5 5 5 5")
    assert ("four_two_pairs", "5 5 5 5 9 9 9 9") not in kinds("9 9 9 9 5 5 5 5", bombs)
    assert ("four_two_pairs", "5 5 5 5 9 9 9 9") in kinds("9 9 9 9 5 5 5 5", pairs)
    assert ("airplane_pairs", "3 3 3 4 4 4 9 9 9 9") in kinds("3 3 3 4 4 4 9 9 9 9", pairs)
    assert ("airplane_pairs", "3 3 3 4 4 4 9 9 9 9") not in kinds("3 3 3 4 4 4 9 9 9 9", rocket | bombs)
    four_wings = "3 3 3 4 4 4 5 5 5 6 6 6 9 9 9 9"
    assert ("airplane_singles", four_wings) in kinds(four_wings, bombs)
    assert ("airplane_singles", four_wings) not in kinds(four_wings, pairs)
    adjacent = frozenset({BAN_ADJACENT_TRIO_WINGS})
    assert ("airplane_singles", "3 3 3 4 4 4 5 5 5 6 6 6") in kinds("3 3 3 4 4 4 5 5 5 6 6 6")
    assert ("airplane_singles", "3 3 3 4 4 4 5 5 5 6 6 6") not in kinds("3 3 3 4 4 4 5 5 5 6 6 6", adjacent)
    assert ("airplane_singles", "3 3 3 4 4 4 5 5 5 8 8 8") in kinds("3 3 3 4 4 4 5 5 5 8 8 8", adjacent)
    # the engine's move tables apply the same switches
    for rules in (frozenset(), rocket, bombs, pairs, adjacent, rocket | bombs | pairs):
        hand = hand_from_text("9 9 9 9 5 5 5 5 B R")
        table = {
            cards_text(engine.unpack(engine.pack(hand) - h)) for _, h in rules_for(rules).lead_moves(engine.pack(hand))
        }
        assert table == {cards_text(c.cards) for c in legal_moves(hand, None, rules)}


def test_kicker_rules_reach_the_verdict(verifier):
    task = {"hand": "8 8 8 8 B R", "opponent": "3 4"}
    strict = verifier("doudizhu").score("<move>8888 B R</move>", task)
    assert strict.verdict.value == "invalid" and "rocket" in strict.reason
    assert "rocket" in verifier("doudizhu").prompt(task).lower()
    loose = verifier("doudizhu", rocket_as_kickers=True).score("<move>8888 B R</move>", task)
    assert loose.verdict.value == "correct" and loose.reward == 1.0

"""The packed-integer engine against the plain, slow references (`reference`, written on
`State`s): its move tables, exact solver and exact random-play value; and how rollouts read
their randomness."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verifiers.doudizhu import State, combos, engine, hand_from_text, legal_moves, random_play_value, rules_for, solve
from verifiers.doudizhu.engine import SearchLimit, combo_of, pack, python_uniform, rollout_plies, unpack
from verifiers.doudizhu.game import rollout as game_rollout
from verifiers.doudizhu.reference import minimax_wins, random_value, rollout
from verifiers.doudizhu.tasks import DECK, deal

BANS = [frozenset(), frozenset({"bomb"}), frozenset({"trio_single", "four_two_singles", "chain"})]


def hand_of(rnd, size, deck):
    hand = [0] * 15
    for r in rnd.sample(deck, size):
        hand[r] += 1
    return tuple(hand)


def _moves_as_cards(moves):
    return sorted((-1, (), "pass", 0) if m is None else (m.rank, m.cards, m.kind, m.length) for m in moves)


@settings(max_examples=80, deadline=None)
@given(st.randoms(use_true_random=False), st.integers(1, 12), st.integers(0, 2))
def test_move_tables_match_legal_moves(rnd, size, ban):
    hand = hand_of(rnd, size, DECK)
    other = combos(hand_of(rnd, rnd.randint(1, 10), DECK))
    to_beat = rnd.choice([None, *other])
    rules = rules_for(BANS[ban])
    packed = rules.moves(pack(hand), 0 if to_beat is None else engine.intern(to_beat))
    got = [combo_of(cid) for cid, _ in packed]
    assert _moves_as_cards(got) == _moves_as_cards(legal_moves(hand, to_beat, BANS[ban]))
    for cid, after in packed:  # the hand after a play is the hand minus its cards
        cards = (0,) * 15 if cid == 0 else combo_of(cid).cards
        assert unpack(after) == tuple(h - c for h, c in zip(hand, cards))


def small_positions(count, seed):
    """Fresh deals and positions a few random plies in, both sides holding at most 5 cards."""
    rnd, out = random.Random(seed), []
    while len(out) < count:
        state = deal(rnd, rnd.randint(1, 5))
        for _ in range(rnd.randint(0, 3)):
            moves = legal_moves(state.me, state.to_beat)
            move = rnd.choice(moves)
            if move is not None and move.cards == state.me:
                break
            state = state.after(move)
        else:
            out.append(state)
    return out


@pytest.mark.parametrize("ban", range(len(BANS)))
def test_exact_values_match_plain_references(ban):
    banned = BANS[ban]
    for state in small_positions(60, seed=ban):
        assert solve(state, banned) is minimax_wins(state, banned), state
        assert random_play_value(state, banned) == pytest.approx(random_value(state, banned), abs=1e-12)


def test_search_budget_stops_and_leaves_correct_memo():
    state = State(hand_from_text("3 4 5 6 8 8 9 J Q K"), hand_from_text("4 5 7 7 T T J A 2 B"), None)
    engine.rules_for.cache_clear()
    with pytest.raises(SearchLimit):
        solve(state, budget=5)
    partial = solve(state)  # the memo kept from the stopped search holds only finished answers
    engine.rules_for.cache_clear()
    assert partial is solve(state)


def test_rollout_i_reads_the_ith_block_of_uniforms():
    state = State(hand_from_text("3 5 5 8 K 2"), hand_from_text("4 4 9 J A"), None)
    me, them, beat = state.packed()
    plies = rollout_plies(me, them)
    rules = rules_for(frozenset())
    ten = rules.rollouts(me, them, beat, 10, python_uniform(99), plies)
    skip = python_uniform(99)
    for _ in range(9 * plies):
        skip()
    assert rules.rollouts(me, them, beat, 1, skip, plies) == ten[9:]
    assert rules.rollouts(me, them, beat, 10, python_uniform(99), plies) == ten
    assert game_rollout(state, random.Random(99)) == ten[0]  # the one-game entry point reads the same way
    assert set(ten) <= {0.0, 1.0}


def test_memo_tables_stay_bounded(monkeypatch):
    """Unbounded, these 200 deals fill the tables with about 800 / 3,400 / 8,000 entries."""
    monkeypatch.setattr(engine, "TABLE_LIMIT", 50)
    rules = engine.Rules(frozenset())
    rnd = random.Random(3)
    for _ in range(200):
        state = deal(rnd, 4)
        rules.wins(*state.packed())
        rules.moves(pack(state.me), 0)
        assert len(rules._lead) <= 51 and len(rules._moves) <= 51
    assert len(rules._wins) < 500  # emptied before each search, so it holds at most one search's worth


def test_reference_rollout_agrees_with_the_exact_value():
    """The benchmark's baseline rollout estimates the same quantity as the engine's."""
    state = State(hand_from_text("3 5 5 8 K"), hand_from_text("4 4 9 J A"), None)
    rng = random.Random(0)
    mean = sum(rollout(state, rng) for _ in range(4000)) / 4000
    assert abs(mean - random_play_value(state)) < 4 * 0.5 / 4000**0.5

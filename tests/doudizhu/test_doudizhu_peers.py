"""The `rlcard` and `douzero` presets against each peer's own legal-move generator, from the installed
packages (rlcard 1.2.0, douzero 1.1.0): on random positions rich in trios, fours and jokers, leading
and following, the plays legal under the preset are exactly the peer's; and each switch a preset
sets is seen to matter (flipping it makes a difference on positions built to show it)."""

import pytest
from doudizhu_peers import airplane_positions, douzero_plays, random_positions, rlcard_plays

import verifiers
from pytest_plugin.required_parts import require_part
from verifiers.doudizhu.cards import allowed, cards_text, hand_from_text, legal_moves, shapes

PEERS = {"rlcard": rlcard_plays, "douzero": douzero_plays}
POSITIONS = 600


def _need(peer: str) -> None:
    def ready():
        try:
            if peer == "rlcard":
                import rlcard.games.doudizhu.judger  # noqa: F401
            else:
                import douzero.env.game  # noqa: F401
            return True
        except ImportError:
            return False

    require_part(
        ready, f"the {peer} package", "bash scripts/setup-env.sh (pip install --no-deps rlcard douzero termcolor)"
    )


def _rules(preset: str | None = None, **config) -> frozenset:
    return verifiers.get("doudizhu", preset=preset, **config)._banned


def _ours(hand, to_beat, rules):
    if to_beat is None:
        return {m.cards for m in legal_moves(hand, None, rules)}
    readings = [c for c in shapes(to_beat) if allowed(c, rules)]
    return {m.cards if m else None for r in readings for m in legal_moves(hand, r, rules)}


def _differences(peer, rules, positions):
    out = []
    for hand, to_beat in positions:
        ours, theirs = _ours(hand, to_beat, rules), PEERS[peer](hand, to_beat)
        for play, side in [(p, "ours only") for p in ours - theirs] + [(p, "theirs only") for p in theirs - ours]:
            out.append((side, cards_text(hand), to_beat and cards_text(to_beat), play and cards_text(play)))
    return out


@pytest.mark.parametrize("peer", sorted(PEERS))
def test_the_preset_matches_the_peers_move_generator(peer):
    _need(peer)
    positions = random_positions(POSITIONS, seed=2024, peer=PEERS[peer])
    following = sum(b is not None for _, b in positions)
    assert following >= POSITIONS // 3 and POSITIONS - following >= POSITIONS // 3
    assert _differences(peer, _rules(peer), positions) == []


def test_the_douzero_preset_ranks_airplanes_with_a_trio_among_their_wings_as_douzero_does():
    """DouZero ranks an airplane with single wings by the highest rank it holds three of, wings
    included; rlcard by the airplane's own trios. Generated positions where the two disagree."""
    _need("douzero")
    _need("rlcard")
    positions = airplane_positions(300, seed=7, peers=(douzero_plays, rlcard_plays))
    decided = sum(_ours(h, b, _rules("douzero")) != _ours(h, b, _rules("rlcard")) for h, b in positions)
    assert decided >= 30  # the ranking decides many of these positions
    assert _differences("douzero", _rules("douzero"), positions) == []
    assert _differences("rlcard", _rules("rlcard"), positions) == []


# positions built to show each switch: (peer, hand, to beat, the play only that switch decides)
SWITCHES = [
    ("douzero", "rocket_as_kickers", "8888 B R 3", None, "8888 B R"),
    ("douzero", "bomb_as_wings", "333 444 555 666 7777", None, "333 444 555 666 7777"),
    ("rlcard", "adjacent_trio_wings", "444 555 666 777 9", "333 444 555 7 8 9", "444 555 666 777"),
    ("douzero", "douzero_airplanes", "3 8 999 TTT JJJ 2", "666 777 888 KKK", "3 8 999 TTT JJJ 2"),
    ("douzero", "douzero_airplanes", "333 444 555 KKK", "7 999 TTT JJJ Q 2", "333 444 555 KKK"),
]


@pytest.mark.parametrize("peer, switch, hand, to_beat, play", SWITCHES)
def test_each_switch_a_preset_sets_decides_a_play_as_the_peer_does(peer, switch, hand, to_beat, play):
    _need(peer)
    hand, play = hand_from_text(hand), hand_from_text(play)
    to_beat = hand_from_text(to_beat) if to_beat else None
    preset = verifiers.get("doudizhu", preset=peer).config
    flipped = _rules(peer, **{switch: not getattr(preset, switch)})
    peer_allows = play in PEERS[peer](hand, to_beat)
    assert (play in _ours(hand, to_beat, _rules(peer))) == peer_allows
    assert (play in _ours(hand, to_beat, flipped)) != peer_allows


def test_equal_pairs_as_kickers_are_refused_by_both_peers():
    _need("rlcard")
    _need("douzero")
    hand, play = hand_from_text("3333 5555 7"), hand_from_text("3333 5555")
    assert play not in rlcard_plays(hand, None) and play not in douzero_plays(hand, None)
    assert play not in _ours(hand, None, _rules()) and play in _ours(hand, None, _rules(equal_pairs_as_kickers=True))

"""A play written in a sentence (verifiers/doudizhu/extract.py `sentence_play`), proven on generated
sentences: any play in any frame reads as its cards; a second, different play offered beside it, a
pass beside it, or a play the sentence rejects is never read as the answer."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from verifiers.doudizhu.cards import parse_cards
from verifiers.doudizhu.extract import TWO_PLAYS, sentence_play

RANK_TEXTS = ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2")
FRAMES = (
    "I play {}.",
    "I'll lead with {}",
    "The best move is to play {}!",
    "**Play {}**",
    "我出{}",
    "Lead {} (it keeps the bombs).",
    "Playing {} now; the opponent cannot beat it.",
    "So: {}",
)


@st.composite
def plays(draw: st.DrawFn) -> str:
    """A play as people write it: one rank repeated (a single, pair, trio, bomb) or a straight,
    its cards spaced, dashed, or run together."""
    if draw(st.booleans()):
        cards = [draw(st.sampled_from(RANK_TEXTS))] * draw(st.integers(1, 4))
    else:
        start = draw(st.integers(0, 7))
        cards = list(RANK_TEXTS[start : start + draw(st.integers(5, 12 - start))])
    return draw(st.sampled_from((" ", "-", ", ", ""))).join(cards) if len(cards) > 1 else cards[0]


@settings(max_examples=300, deadline=None)
@given(play=plays(), frame=st.sampled_from(FRAMES))
def test_a_play_in_any_frame_reads_as_its_cards(play, frame):
    found = sentence_play(frame.format(play))
    assert found.play is not None and parse_cards(found.play) == parse_cards(play), (frame, play, found)


@settings(max_examples=300, deadline=None)
@given(play=plays(), other=plays(), frame=st.sampled_from(FRAMES), joint=st.sampled_from((" or ", ", or maybe ")))
def test_two_plays_offered_are_never_one(play, other, frame, joint):
    if parse_cards(play) == parse_cards(other):
        return
    assert sentence_play(frame.format(play + joint + other)).play is None


@settings(max_examples=200, deadline=None)
@given(play=plays(), other=plays())
def test_a_rejected_play_is_not_the_answer_and_a_pass_beside_cards_is_refused(play, other):
    if parse_cards(play) == parse_cards(other):
        return
    found = sentence_play(f"Play {play}, not {other}.")
    assert found.play is not None and parse_cards(found.play) == parse_cards(play)
    assert sentence_play(f"I play {play} and pass.") == (None, TWO_PLAYS)
    assert parse_cards(sentence_play(f"I play {play}, then pass.").play) == parse_cards(play)  # a later turn's


def test_letters_and_digits_run_together_are_no_cards():
    """`H8` (a board cell) and `3s` (a count) name no card: reading the 8 or the 3 out of them would
    answer a play the text never made."""
    for text in ("<move>H8</move>", "I play H8.", "Keep the 3s.", "I play 3s"):
        assert sentence_play(text).play is None, text
    assert sentence_play("I play 10JQKA.").play == "10JQKA"  # ranks run together are a straight

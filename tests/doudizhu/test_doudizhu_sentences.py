"""A play written in a sentence (verifiers/doudizhu/extract.py `sentence_play`), proven on generated
sentences: any play in any frame, its cards written in any way people write them (named by count
in words, with suits, the 10 as T), reads as its cards; a second, different play offered beside it, a
pass beside it, or a play the text rejects or calls wrong is never read as the answer."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from verifiers.doudizhu.extract import TWO_PLAYS, read_play, sentence_play

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


RANK_NAMES = dict(
    zip(RANK_TEXTS, "threes fours fives sixes sevens eights nines tens jacks queens kings aces twos".split())
)
COUNT_NAMES = {2: ("a pair of {}", "two {}"), 3: ("three {}", "a trio of {}"), 4: ("a bomb of {}", "four {}")}
CN_COUNT_NAMES = {2: ("一对{}", "对{}", "两张{}"), 3: ("三个{}", "三张{}"), 4: ("四个{}",)}  # the rank as its card
SUITS = "♠♥♦♣"


@st.composite
def plays(draw: st.DrawFn) -> str:
    """A play as people write it: one rank repeated (a single, pair, trio, bomb) or a straight,
    its cards spaced, dashed, run together or with suits (`3♠ 3♥`), or a rank repeated named by
    its count in words (`a pair of 3s`, `three kings`, `一对3`)."""
    if draw(st.booleans()):
        rank, count = draw(st.sampled_from(RANK_TEXTS)), draw(st.integers(1, 4))
        if count > 1 and draw(st.integers(0, 2)) == 0:
            if draw(st.booleans()):
                return draw(st.sampled_from(CN_COUNT_NAMES[count])).format(rank)
            shown = "T" if rank == "10" and draw(st.booleans()) else rank  # `a pair of Ts`: the 10 as T
            named = draw(st.sampled_from((RANK_NAMES[rank], shown + "s", shown + "'s")))
            return draw(st.sampled_from(COUNT_NAMES[count])).format(named)
        if draw(st.integers(0, 3)) == 0:
            return " ".join(rank + draw(st.sampled_from(SUITS)) for _ in range(count))
        cards = [rank] * count
    else:
        start = draw(st.integers(0, 7))
        cards = list(RANK_TEXTS[start : start + draw(st.integers(5, 12 - start))])
    if "10" in cards and draw(st.booleans()):
        cards = ["T" if card == "10" else card for card in cards]  # the prompt's notation for the 10
    return draw(st.sampled_from((" ", "-", ", ", ""))).join(cards) if len(cards) > 1 else cards[0]


@settings(max_examples=300, deadline=None)
@given(play=plays(), frame=st.sampled_from(FRAMES))
def test_a_play_in_any_frame_reads_as_its_cards(play, frame):
    found = sentence_play(frame.format(play))
    assert found.play is not None and read_play(found.play) == read_play(play), (frame, play, found)


@settings(max_examples=300, deadline=None)
@given(play=plays(), other=plays(), frame=st.sampled_from(FRAMES), joint=st.sampled_from((" or ", ", or maybe ")))
def test_two_plays_offered_are_never_one(play, other, frame, joint):
    if read_play(play) == read_play(other):
        return
    assert sentence_play(frame.format(play + joint + other)).play is None


@settings(max_examples=200, deadline=None)
@given(play=plays(), other=plays())
def test_a_rejected_play_is_not_the_answer_and_a_pass_beside_cards_is_refused(play, other):
    if read_play(play) == read_play(other):
        return
    found = sentence_play(f"Play {play}, not {other}.")
    assert found.play is not None and read_play(found.play) == read_play(play)
    assert sentence_play(f"I play {play} and pass.") == (None, TWO_PLAYS)
    assert read_play(sentence_play(f"I play {play}, then pass.").play) == read_play(play)  # a later turn's


@settings(max_examples=200, deadline=None)
@given(
    play=plays(),
    frame=st.sampled_from(FRAMES),
    words=st.sampled_from((" That is wrong.", " No, that's wrong.", " This is not right.")),
)
def test_a_play_the_text_calls_wrong_is_none(play, frame, words):
    """A sentence after the play that takes it back, or words right after it that call it wrong
    (docs/answers.md, rule 7), leave no answer."""
    sentence = frame.format(play)
    assert sentence_play(sentence + ("" if sentence[-1] in ".!" else ".") + words).play is None, sentence
    assert sentence_play(f"Playing {play} would lose.").play is None


def test_the_two_jokers_named_together_are_the_rocket():
    for text in ("I play the black joker and the red joker.", "Play both jokers.", "I play the rocket.", "我出大小王"):
        found = sentence_play(text)
        assert found.play is not None and read_play(found.play) == read_play("B R"), (text, found)
    assert read_play(sentence_play("Play the black joker, then the red joker.").play) == read_play("B")  # a plan


def test_the_jokers_and_the_ten_in_the_prompts_notation_are_cards():
    for text, cards in (
        ("I play B R.", "B R"),
        ("I lead the B.", "B"),
        ("I play T T.", "T T"),
        ("Move: 9 T J Q K", "9 T J Q K"),
    ):
        found = sentence_play(text)
        assert found.play is not None and read_play(found.play) == read_play(cards), (text, found)


def test_a_straight_named_by_its_ends_is_every_rank_between():
    for text in (
        "I lead the straight from 3 to 7.",
        "Play the 3-7 straight.",
        "Lead a run of 3 through 7.",
        "Lead the straight from three to seven.",
    ):
        found = sentence_play(text)
        assert found.play is not None and read_play(found.play) == read_play("3 4 5 6 7"), (text, found)
    assert read_play(sentence_play("Play the straight from 10 to A.").play) == read_play("T J Q K A")
    for text in ("I play the straight from 3 to 6.", "Lead the straight from J to 2."):  # no straight: as written
        assert sentence_play(text).play is None, text


def test_letters_and_digits_run_together_are_no_cards():
    """`H8` (a board cell) and `3s` (a count) name no card: reading the 8 or the 3 out of them would
    answer a play the text never made."""
    for text in ("<move>H8</move>", "I play H8.", "Keep the 3s.", "I play 3s"):
        assert sentence_play(text).play is None, text
    assert sentence_play("I play 10JQKA.").play == "10JQKA"  # ranks run together are a straight


@settings(max_examples=300, deadline=None)
@given(
    play=plays(),
    table=plays(),
    frame=st.sampled_from(
        ("To beat the {t}, play {p}.", "Beat {t} with {p}.", "I answer their {t} with {p}.", "对方出{t}，我出{p}")
    ),
)
def test_the_play_on_the_table_named_beside_the_answer_is_not_the_answer(play, table, frame):
    """Where the model must beat a play, a sentence that names that play beside its own answer
    (`To beat the 8, play K.`) plays the answer: no play beats its equal."""
    if read_play(play) == read_play(table):
        return
    found = sentence_play(frame.format(t=table, p=play), on_table=read_play(table))
    assert found.play is not None and read_play(found.play) == read_play(play), (frame, table, play, found)

"""Which drawing is the answer: the shared rules of docs/answers.md on SVG (rules 4-7), proven over
generated prose around the drawings, not only the examples listed."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from svg_docs import svg

from verifiers.locate import counter_example
from verifiers.svg.extract import READ_FAILURES, extract_svg

RIGHT, OTHER = svg('<circle cx="5" cy="5" r="4" fill="red"/>'), svg('<rect width="5" height="5" fill="blue"/>')
# prose with no word that offers, rejects or replaces (nor one that shows a drawing as a mistake:
# `bad`): any script, as models write around a drawing
PROSE = st.text(st.sampled_from("abcdefgh xyz éü 答案 图 .,!\\n"), max_size=40).filter(
    lambda s: "or" not in s.split() and "<" not in s and not counter_example(s)
)
FENCES = st.sampled_from([("", ""), ("```svg\n", "\n```"), ("```xml\n", "\n```"), ("~~~\n", "\n~~~")])


@settings(max_examples=60, deadline=None)
@given(before=PROSE, after=PROSE, fence=FENCES)
def test_one_drawing_is_read_in_any_prose_and_fence(before, after, fence):
    open_, close = fence
    assert extract_svg(f"{before}\n{open_}{RIGHT}{close}\n{after}") == (RIGHT, "")


@settings(max_examples=40, deadline=None)
@given(
    before=PROSE,
    offer=st.sampled_from(
        [
            "Alternatively:",
            "or",
            "Another version:",
            "Or you could use this simpler one:",
            "If you prefer a darker look:",
            "If you want a circle instead:",
            "If you'd like it outlined:",
            "A variant with a border:",
        ]
    ),
    right_first=st.booleans(),
)
def test_two_drawings_offered_are_refused_whichever_is_right(before, offer, right_first):
    first, second = (RIGHT, OTHER) if right_first else (OTHER, RIGHT)
    assert extract_svg(f"{before}\n{first}\n{offer}\n{second}") == (None, "svgs_offered")


@settings(max_examples=40, deadline=None)
@given(
    before=PROSE,
    fence=FENCES,
    words=st.sampled_from([" is wrong.", " doesn't work.", "\nThat's wrong.", "\nNo, this is incorrect."]),
)
def test_a_drawing_the_text_calls_wrong_is_none(before, fence, words):
    """Words right after the final drawing (past its fence) that call it wrong, or a line after it
    that takes it back, leave no answer; a drawing called wrong before a later one is none."""
    open_, close = fence
    assert extract_svg(f"{before}\n{open_}{RIGHT}{close}{words}") == (None, "svg_called_wrong")
    if not words.startswith("\n"):
        assert extract_svg(f"{before}\n{open_}{OTHER}{close}{words} Here:\n{RIGHT}") == (RIGHT, "")


@settings(max_examples=40, deadline=None)
@given(before=PROSE, replace=st.sampled_from(["Let me refine it:", "Improved version:", "Final drawing:", ""]))
def test_a_later_drawing_replaces_an_earlier_one(before, replace):
    assert extract_svg(f"{before}\n{OTHER}\n{replace}\n{RIGHT}") == (RIGHT, "")


@settings(max_examples=40, deadline=None)
@given(
    before=PROSE,
    fence=FENCES,
    introduction=st.sampled_from(
        [
            "Here's what not to do (wrong colours):",
            "Don't draw it like this:",
            "For comparison, a square would be:",
            "For reference, the wrong version:",
            "Second best:",
        ]
    ),
    shown_first=st.booleans(),
)
def test_a_drawing_shown_as_what_not_to_do_or_for_comparison_is_not_the_answer(
    before, fence, introduction, shown_first
):
    """Its introducing sentence, fenced or not, says it is not the answer, before or after the answer."""
    open_, close = fence
    shown = f"{introduction}\n{open_}{OTHER}{close}"
    answer = f"{open_}{RIGHT}{close}"
    text = f"{before}\n{shown}\nMine:\n{answer}" if shown_first else f"{before}\n{answer}\n{shown}"
    assert extract_svg(text) == (RIGHT, "")


def test_a_final_drawing_cut_off_is_no_answer_and_no_earlier_one_stands_in():
    assert extract_svg(f"{OTHER}\nImproved version:\n<svg viewBox='0 0 10 10'><circle cx='5'") == (None, "svg_cut_off")


def test_a_mention_of_the_svg_tag_after_the_drawing_is_prose():
    assert extract_svg(f"{RIGHT}\nThe `<svg>` element sets the canvas.") == (RIGHT, "")


def test_escaped_drawings_are_read_as_their_text():
    assert extract_svg(json.dumps({"svg": RIGHT}))[0] == RIGHT
    escaped = RIGHT.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
    assert extract_svg(f"The drawing: {escaped}")[0] == RIGHT


def test_every_refusal_says_why_in_words():
    for text in ("nothing", f"{RIGHT} or {OTHER}", "<svg><rect/>"):
        svg_text, why = extract_svg(text)
        assert svg_text is None and READ_FAILURES[why]


@pytest.mark.parametrize(
    "text",
    [
        "Use an <svg> element:\n{d}",  # a tag prose mentions before the drawing opens nothing
        "{d}\n\nNote: the <svg/> root scales.",
        "{d}\n\nThe `<svg>` tag wraps it; `</svg>` closes it.",
        "{d}\nI used <svg> with a viewBox.",
    ],
)
def test_a_tag_that_prose_mentions_is_no_drawing(text):
    assert extract_svg(text.format(d=RIGHT)) == (RIGHT, "")


@settings(max_examples=30, deadline=None)
@given(before=PROSE, container=st.sampled_from(['<img src="{}"/>', "![drawing]({})", "{}"]))
def test_a_drawing_written_as_a_base64_data_uri_is_read(before, container):
    import base64

    uri = "data:image/svg+xml;base64," + base64.b64encode(RIGHT.encode()).decode()
    assert extract_svg(f"{before}\n{container.format(uri)}") == (RIGHT, "")
    assert extract_svg(f"{before}\ndata:image/svg+xml;base64,bm90IGFuIHN2Zw==")[0] is None  # "not an svg"

"""Reading a play from a model's completion: `<move>...</move>`, a `Move: ...` line, or a short
bare answer; PASS in English or Chinese. By the shared rules (docs/answers.md): the last play
written, unless the words before it offer it beside an earlier, different one (`<move>3 3</move>
or <move>4 4</move>`, "alternatively"): two plays are one answer too many, refused whichever wins."""

from __future__ import annotations

import re
from typing import NamedTuple

from ..locate import ASIDE, offers, tag_cut_off
from .cards import parse_cards

PASS_WORDS = frozenset({"pass", "不要", "不出", "要不起", "过"})
_PASS_STRIP = " \t\r\n.!。！*`'\"()[]"
# a `Move:` label, after at most a few lead words ("Alternatively, Move: 4 4" is a second play)
_LINE = re.compile(
    r"^[^\n]{0,40}?\b(?:move|play|answer|出牌)[\"']?\s*[:：]\s*[\"']?([^\n\"']{0,200})", re.IGNORECASE | re.MULTILINE
)  # also a JSON or YAML key (`{"move": "3 3"}`)
MOVE_FORMATS = ("tag", "line", "bare")
BARE_LIMIT = 40
_TAG = re.compile(r"<move>([^<]*(?:<(?!/?move>)[^<]*)*)</move>", re.IGNORECASE)  # stops at the next tag: linear
TWO_PLAYS = "two different plays are offered as the answer: one answer too many"
CUT_OFF = "the final play was cut off (a <move> tag never closed): no answer"


class Found(NamedTuple):
    """The play's raw text (None where there is none) and, where it is refused, why."""

    play: str | None
    why: str = ""


def _last_of(plays: list[re.Match[str]], text: str) -> Found:
    """The last of `plays`, refused where the text between it and an earlier, different play offers it."""
    last = plays[-1]
    for earlier in reversed(plays[:-1]):
        if " ".join(earlier.group(1).split()).lower() == " ".join(last.group(1).split()).lower():
            continue
        if offers(text[earlier.end(1) : last.start(1)]):
            return Found(None, TWO_PLAYS)
        break
    return Found(last.group(1).strip(" \t*_`"))


def find_play(text: str, formats: tuple[str, ...]) -> Found:
    """The last play written in the completion (raw text), trying the configured formats in
    order: the last complete <move>...</move> (none where the text ends inside a tag: cut off),
    else the last `Move: ...` line, else the whole (short) completion. Linear in the length of the text."""
    if "tag" in formats:
        if tag_cut_off(text, "move"):
            return Found(None, CUT_OFF)
        tags = list(_TAG.finditer(text))
        if tags:
            return _last_of(tags, text)
    if "line" in formats:
        lines = list(_LINE.finditer(text))
        if lines:
            return _last_of(lines, text)
    if "bare" in formats and len(text.strip()) <= BARE_LIMIT:
        return Found(text.strip())
    return Found(None)


# what a play's text may say beside its cards, tried only where the text does not read as cards as
# written: an aside in parentheses (`3 (a single)`) and the word "single" (`single 3`). Names that
# count cards (`pair of 5s`, `bomb`) are never dropped: without them the cards would say another play
_SINGLE = re.compile(r"\bsingle\b", re.IGNORECASE)
_BOXED = re.compile(r"^\s*\$*\\boxed\{(.*)\}\$*\s*$")


def read_play(raw: str) -> tuple[int, ...] | None:
    """Cards as counts per rank, or None for PASS. Raises ValueError for text that is not cards."""
    boxed = _BOXED.match(raw)
    raw = boxed.group(1) if boxed else raw
    if raw.strip(_PASS_STRIP).lower() in PASS_WORDS:
        return None
    try:
        cards = parse_cards(raw)
    except ValueError:
        plain = _SINGLE.sub(" ", ASIDE.sub(" ", raw))
        if plain == raw:
            raise
        cards = parse_cards(plain)
    if not any(cards):
        raise ValueError("no cards named")
    return cards

"""Reading moves from a model's completion: `<move>H8</move>`, `H8`, `(7, 7)` or `row 7, col 7`.

Notation as in `position.py`: columns are letters from the left, rows numbered from the bottom;
pairs and `row r col c` are 0-based with row 0 at the top.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from functools import lru_cache
from typing import Callable, Collection

from ..locate import (
    ANSWER_WORDS,
    OPENS_A_PLAN,
    OTHER_SIDE,
    REJECTS_UNSPACED,
    REPLY_WORDS,
    TAKES_BACK,
    UNDER_A_MISTAKE_LABEL,
    Span,
    after_a_denial,
    called_wrong,
    concluded_answer,
    doubts_after,
    introduced_as_the_form,
    json_fields,
    label_cut_off,
    labelled,
    last_line,
    line_at,
    list_at,
    none_stated_at,
    not_shown_as_mistakes,
    not_theirs,
    offered_after,
    offers,
    preferred_after,
    prefers_the_move,
    rank,
    reconsiders,
    replies_at,
    second_look,
    states_the_move_now,
    tag_cut_off,
    taken_back,
    tells_a_later_turn,
    tells_an_earlier_try,
    their_move,
    turned_to,
    without_asides,
    without_later_turns,
    without_mentions_after_the_answer,
)
from .board import LETTERS

_TAG = re.compile(r"<move>(.*?)</move>", re.IGNORECASE | re.DOTALL)
_ALGEBRAIC = re.compile(r"(?<![A-Za-z0-9])([A-Za-z])(\d{1,2})(?![A-Za-z0-9])")
_PAIR = re.compile(r"[([]\s*(\d{1,2})\s*,\s*(\d{1,2})\s*[)\]]")  # `(7, 7)`, `[7,7]`
_SPACED = re.compile(r"(?<![A-Za-z])([A-Za-z])[ \t-]+(\d{1,2})(?!\d)")  # `I 5`, `I-5` (inside a tag)
# a move written out in the letter-and-number notation: hyphenated (`I-5`; never a range `E5-H5`) or
# as its column letter and row (`column I, row 5`, `row 5, column I`)
_HYPHENATED = re.compile(r"(?<![A-Za-z0-9-])([A-Za-z])-(\d{1,2})(?![\d-])")
_COLUMN_ROW = re.compile(
    r"\b(?:col|column)\s*([A-Za-z])\s*,?\s*(?:and\s+)?row\s*(\d{1,2})\b"
    r"|\brow\s*(\d{1,2})\s*,?\s*(?:and\s+)?(?:col|column)\s*([A-Za-z])\b",
    re.IGNORECASE,
)
# a move spaced after the verb that places it (`I play I 5.`, `at H 8`): a capital column and its row
_SPACED_AFTER_A_VERB = re.compile(
    r"\b((?:play|plays|place|put|choose|pick|at|on)[ \t]+)([A-Z])[ \t]+(\d{1,2})\b(?![ \t]*(?:[,/&x×]|and\b)[ \t]*\d)"
)
_LETTER_PAIR = re.compile(r"\(\s*([A-Za-z])\s*,\s*(\d{1,2})\s*\)")  # `(I, 5)`: the letter is the column
_ROW_COL = re.compile(  # `row 7, col 7`, and column first (`column 9, row 5`): row and column, 0-based
    r"row\s*(\d{1,2})\s*,?\s*(?:and\s+)?(?:col|column)\s*(\d{1,2})|\b(?:col|column)\s*(\d{1,2})\s*,?\s*(?:and\s+)?row\s*(\d{1,2})",
    re.IGNORECASE,
)
_XY = re.compile(r"\bx\s*=\s*(\d{1,2})\s*[,;]?\s*(?:and\s+)?y\s*=\s*(\d{1,2})\b", re.IGNORECASE)  # `x=7, y=7`: a pair
MOVE_FORMATS = ("tag", "algebraic", "pair", "row_col")
_MOVE_TOKEN = re.compile("|".join(p.pattern for p in (_ALGEBRAIC, _PAIR, _ROW_COL, _XY)), re.IGNORECASE)
CALLED_WRONG = "the text calls its move wrong: no answer"
STATED_NONE = "the final answer says there is none (`Final move: none`)"
THEIRS_ONLY = "the only move tagged is the other side's (`The opponent plays <move>I5</move>`): no answer"
THEIRS_NAMED = "the only moves named are the other side's (`X threatens I5.`): no answer"
PREFERS_ANOTHER = "two different moves: a line after the answer ranks another above it (`I5 is better.`)"
NO_MOVE = "no move found (write it like <move>H8</move>)"


def parse_move(text: str, size: int) -> int | None:
    """One move in any notation, or None (off-board coordinates also give None)."""
    found = find_moves(text, size, MOVE_FORMATS)
    return found[-1][1] if found else None


def find_moves(text: str, size: int, formats: tuple[str, ...]) -> list[tuple[int, int | None]]:
    """Every (position in text, cell or None when off-board) in the chosen formats, in text order."""
    found: list[tuple[int, int | None]] = []
    if "tag" in formats:
        for m in _TAG.finditer(text):
            inner = find_moves(m.group(1), size, tuple(f for f in formats if f != "tag") or MOVE_FORMATS[1:])
            found.append((m.start(), inner[-1][1] if inner else None))
        if found:  # a tagged answer is the answer; other mentions are discussion
            return found
    if "algebraic" in formats:
        for m in _ALGEBRAIC.finditer(text):
            col = LETTERS.find(m.group(1).upper())
            row = size - int(m.group(2))
            found.append((m.start(), _cell(row, col, size)))
    if "pair" in formats:
        found += [(m.start(), _cell(int(m.group(1)), int(m.group(2)), size)) for m in _PAIR.finditer(text)]
        found += [
            (m.start(), _cell(int(m.group(2)), int(m.group(1)), size)) for m in _XY.finditer(text)
        ]  # y is the row
    if "row_col" in formats:
        found += [
            (m.start(), _cell(int(m.group(1) or m.group(4)), int(m.group(2) or m.group(3)), size))
            for m in _ROW_COL.finditer(text)
        ]
    return sorted(found, key=lambda x: x[0])


def _cell(row: int, col: int, size: int) -> int | None:
    return row * size + col if 0 <= row < size and 0 <= col < size else None


# words just before a move that reject it (`J11, not J10`, `instead of H8`): never the answer
_REJECTED = re.compile(
    rf"(?:\bnot(?: to)?(?: (?:play|place|go|put)(?: at| on)?)?|\binstead of|\brather than|\bover|\bavoid|\bnever|\bwrong|\b(?:don't|do not) (?:play|place|go|put)(?: at| on)?"
    rf"|{REPLY_WORDS})[\s:,]*$|{REJECTS_UNSPACED}$",
    re.IGNORECASE,
)  # or the other side's reply: `A1 loses to I5`
REJECTION_CHARS = 24  # how far before a move its rejecting words may stand


def answer_move(
    text: str,
    size: int,
    formats: tuple[str, ...],
    occupied: Collection[int] = (),
    examples: Collection[int] = (),
    *,
    replacing: bool = True,
    theirs: str = "",
    ours: str = "",
) -> tuple[int | None, str | None]:
    """The move a completion answers with, read by the rules every verifier shares (docs/answers.md):
    the last `<move>` tag, else the last line with an answer's label (`Move:`, `Answer:`) that names a
    move (lines after it explain it), else the last line that names a move; in it, a move the text rejects
    (`J11, not J10`) is not the answer, and two different moves offered (`H8 or J9`, a list of
    candidates, an earlier tag or line that the words before the last offer it beside:
    `Alternatively`, a line opening with "or") are one answer too many; a `<move>` tag the text
    ends inside was cut off: no answer. Coordinate pairs (`(8, 8)`, `row 8, column 8`) are read only
    where `formats` leave out the letter-and-number notation the prompt asks for; beside a move in
    that notation they restate it, and alone they are ambiguous. Where a line names several moves,
    the `occupied` cells among them describe the position (`O wins by playing I8: E4, F5, G6, H7,
    I8.`): a stone already on the board is no move, where the move stands apart from them (first or
    last). A tag that quotes the prompt's example (`examples`: cells) as the form to write (`answer
    in tags like <move>E5</move>`) is not the answer where the text names one elsewhere. A move a
    later line calls wrong is none, unless what the text writes from that line on names one
    (`replacing`: `Move: A1` / `Wait, that is wrong. I play I5 instead.` is I5; read once, never
    further). A line, a sentence or a label that gives the other side's move (`locate.their_move`: `The
    opponent plays I5`, `X: I5`, `Black's move: I5`, with `theirs` the game's names for them, a regex)
    is never ours; one that has our side play (`ours`, a regex: `O should play I5.`) states our move.
    Returns (cell, None), or (None, why)."""
    if "tag" in formats and tag_cut_off(text, "move"):
        return None, "the final move was cut off (a <move> tag never closed): no answer"
    if label_cut_off(text):
        return None, "the final move was cut off (its label ends the text): no answer"
    if not _TAG.search(text) and _last_label_names_no_move(text, size, formats):  # `Move: A`: none stands in
        return None, "the final answer's label names no move (cut off, or not a move as the prompt writes one)"
    tags = list(_TAG.finditer(text)) if "tag" in formats else []
    quoted = [t for t in tags if examples and _quotes_an_example(t, text, size, examples)]
    if quoted:  # the prompt's format example, quoted (`answer in tags like <move>E5</move>`): the answer is elsewhere
        elsewhere = answer_move(_blanked(text, quoted), size, formats, occupied, theirs=theirs, ours=ours)
        if elsewhere[0] is not None:
            return elsewhere
    if tags:  # in a tag, a move spaced or hyphenated (`I 5`, `I-5`) is still one move
        tags = [t for t in tags if not called_wrong(text, t.end())]  # `<move>A1</move> would lose.`
        if not tags:
            return None, CALLED_WRONG
        tags = not_shown_as_mistakes(tags, text, re.Match.start)  # `Don't play <move>A1</move>`
        tags = not_theirs(tags, text, re.Match.start, theirs)  # `Opponent's reply: <move>I5</move>`
        if not tags:
            return None, THEIRS_ONLY
        scopes = [(t.start(), t.end(), _SPACED.sub(r"\1\2", _written_out(t.group(1)))) for t in tags]
    else:
        text = _written_out(text)
        labels = _labelled_scopes(text, size, formats, theirs)  # one introduced as a mistake or a comparison is none:
        labels = not_shown_as_mistakes(labels, text, lambda scope: text.rfind("\n", 0, scope[0]) + 1)
        kept = [scope for scope in labels if not _rejects_all(scope[2], size, formats)]  # `Move: A1 ❌`
        if labels and not kept:
            return None, CALLED_WRONG
        labels = without_later_turns(kept, lambda scope: line_at(text, scope[0]))  # `Move 1: A1` / `Move 2: I5`
        scopes = labels or _line_scopes(text, size, formats, theirs, ours)
        if not scopes:
            return None, THEIRS_NAMED if find_moves(text, size, _plain(formats)) else NO_MOVE
        if (
            not labels
        ):  # `Candidate moves:` / `- A1` / `- I5`: a list of moves, the last no more the answer than the rest
            listed = _listed_moves(text, scopes[-1][0], size, formats, occupied)
            if len(set(listed.values())) > 1:
                marked = [cell for item, cell in listed.items() if _MARKED_AS_THE_ANSWER.search(item)]
                if len(set(marked)) != 1:
                    return None, "a list of candidate moves: one answer too many"
                return marked[0], None  # `1. I5 (best)` / `2. A1`
    start, end, scope = scopes[-1]
    cell, why = _move_in(scope, size, formats, occupied, theirs, ours)
    if taken_back(text, end, _names_another(cell, size, formats, occupied)):  # `That's wrong.` after it
        return (
            _written_after_a_denial(text, end, size, formats, occupied, examples, theirs, ours)
            if replacing
            else (None, CALLED_WRONG)
        )
    preferred = (
        preferred_after(text, end, _prefers_another(cell, size, formats, occupied, theirs)) if tags or labels else None
    )
    if preferred is not None:  # `Move: A1` / `Actually, I5 is better.`: the move it prefers replaces it, read once
        later = answer_move(preferred, size, formats, occupied, examples, replacing=False, theirs=theirs, ours=ours)
        return later if replacing and later[0] is not None else (None, PREFERS_ANOTHER)
    if none_stated_at(text) > start:  # `Final move: none` after it
        return None, STATED_NONE
    if cell is not None and _rejected_later(text, end, cell, size, formats):  # `Play I5.` / `I5 would lose.`
        return None, CALLED_WRONG
    if (tags or labels) and cell is not None and _offered_after(text, end, cell, size, formats, occupied):
        return None, "two different moves offered: one answer too many"
    if (tags or labels) and cell is not None and _concludes_another(text, end, cell, size, formats, occupied):
        return None, "two different moves: the text concludes with another after its answer"
    moves = find_moves(scope, size, _plain(formats))
    # a line's own words before its move (`Candidate 2: I5`), and for a line, after it too (`I5 is equally good.`)
    own_words = scope[: moves[0][0]] if moves and (tags or labels) else scope
    for _start, earlier_end, earlier in reversed(scopes[:-1]):  # the nearest earlier, different move
        if cell is None or _move_in(earlier, size, formats, occupied, theirs, ours)[0] in (None, cell):
            continue
        if offers(text[earlier_end:start] + own_words):  # the words between, or its own, offer the last beside it
            return None, "two different moves offered: one answer too many"
        break
    return cell, why


# a player named in words (`X wins at A1, so that fails.`): a denial after it may speak of our move
_A_PLAYER = re.compile(rf"\b[XO]\b|(?i:\b(?:black|white)\b|{OTHER_SIDE.pattern})")


def _names_another(
    cell: int | None, size: int, formats: tuple[str, ...], occupied: Collection[int]
) -> Callable[[str], bool]:
    """For `locate.taken_back`: do the words before a denial name a move of their own other than
    `cell`, no stone on the board, and no player (`A1 would be pointless: that does not work.` speaks
    of A1; `X then wins at A1, so that fails.` of the answer)?"""

    def names_another(words: str) -> bool:
        if cell is None or _A_PLAYER.search(words):
            return False
        return any(c not in (None, cell) and c not in occupied for _, c in _named(words, size, formats))

    return names_another


def _written_after_a_denial(
    text: str,
    end: int,
    size: int,
    formats: tuple[str, ...],
    occupied: Collection[int],
    examples: Collection[int],
    theirs: str = "",
    ours: str = "",
) -> tuple[int | None, str | None]:
    """The move written after the line that denies the move ending at `end` (rule 5): read from that
    line on, once. None where nothing after names one, or where what follows speaks of the other
    player (`That's wrong. The opponent then plays I5.`: their move, never ours in its place)."""
    rest = after_a_denial(text, end)
    if rest is None or _A_PLAYER.search(rest):  # `That's wrong: X wins at A1.`: their move, never ours
        return None, CALLED_WRONG
    cell, why = answer_move(rest, size, formats, occupied, examples, replacing=False, theirs=theirs, ours=ours)
    return (cell, why) if cell is not None else (None, CALLED_WRONG)


def _quotes_an_example(tag: re.Match[str], text: str, size: int, examples: Collection[int]) -> bool:
    """Is this tag the prompt's example move, presented as the form to write?"""
    return parse_move(tag.group(1), size) in examples and introduced_as_the_form(text, tag.start())


def _blanked(text: str, spans: list[re.Match[str]]) -> str:
    """`text` with each of `spans` replaced by spaces (every other position kept)."""
    for m in spans:
        text = text[: m.start()] + " " * (m.end() - m.start()) + text[m.end() :]
    return text


def _written_out(text: str) -> str:
    """`text` with moves written out (`I-5`, `(I, 5)`, `column I, row 5`, `I play I 5`) in the plain
    notation (`I5`)."""
    if " " in text:
        text = _SPACED_AFTER_A_VERB.sub(r"\1\2\3", text)
    if "-" in text:
        text = _HYPHENATED.sub(r"\1\2", text)
    if "," in text:
        text = _LETTER_PAIR.sub(r"\1\2", text)
    if "ol" in text:  # col, column
        text = _COLUMN_ROW.sub(lambda m: f"{m.group(1) or m.group(4)}{m.group(2) or m.group(3)}", text)
    return text


def _last_label_names_no_move(text: str, size: int, formats: tuple[str, ...]) -> bool:
    """Does the text end in an answer's label whose value is a fragment that names no move (`Move: A`,
    the token limit reached mid-move; never words: `Result: it blocks the four.`)? No earlier move
    stands in for it (rule 4)."""
    spans = [span for span in labelled(last_line(text)) if rank(span) == 2]
    if not spans or len(spans[-1].text) > MOVE_FRAGMENT_CHARS or " " in spans[-1].text.strip():
        return False
    return not find_moves(_SPACED.sub(r"\1\2", _written_out(spans[-1].text)), size, _plain(formats))


MOVE_FRAGMENT_CHARS = 3  # a move begun and cut (`A`, `I1`, `5I`): shorter than any sentence


def _labelled_scopes(text: str, size: int, formats: tuple[str, ...], theirs: str = "") -> list[tuple[int, int, str]]:
    """Lines whose label is an answer's (`Move:`, `Best move:`, `Answer:`, `落子：`; `locate.rank`)
    and names a move: (start, end, what follows the label). Lines after them explain the move."""
    found: dict[int, tuple[int, int, str]] = {}
    fields = json_fields(text) if "{" in text else []  # `{"reasoning": "…", "move": "I5"}`
    for span in labelled(text) + fields:
        if rank(span) < 2 or _named(span.label, size, formats) or (theirs and their_move(span.label, theirs)):
            continue  # a "label" that names a move is a sentence's clause (`I play I5: E4, F5, …`); `X's move:` theirs
        answer, at = span.text, text.find(span.text, span.start)
        end = text.find("\n", span.start)
        listed = _moves_listed_under(text, span, at, size, formats)
        if len(listed) > 1:  # `Answer:` / `- A1` / `- I5`: every item is the label's
            end = text.find("\n", listed[-1][0])
            found[span.start] = (at, len(text) if end < 0 else end, " ".join(item for _, item in listed))
            continue
        if listed:  # the one item that names a move (`- A1 (loses)` / `- I5`)
            (at, answer), end = listed[0], text.find("\n", listed[0][0])
        if not find_moves(answer, size, _plain(formats)):  # spaced or hyphenated after its label: one move
            answer = _SPACED.sub(r"\1\2", answer)
        if find_moves(answer, size, _plain(formats)):  # the scope starts where its move does: a hedge in
            if span in fields:
                end = at + len(span.text)  # a field of a JSON object: the object goes on after it
            elif not listed:  # `Move: I5. I considered A9, but it loses.`: the sentences after it explain it
                answer = _its_own_sentence(answer, size, formats)
                end = at + len(answer) if len(answer) < len(span.text) else end
            found[span.start] = (at, len(text) if end < 0 else end, answer)  # the label is between
    return sorted(found.values())


# a move (in its emphasis, `**I5**`) that ends a sentence whose stop was left out: a capitalised word, a
# side's name, or another move and its verb opens the next, perhaps after a dash (`My move: I5 I considered
# A9, but it loses.`, `**I5** X threatens A9.`, `So I play I5 — I considered A9, but it loses.`, `Move: I5
# A9 is a trap.`, `Move: I5 A9? No.`; never a list of moves: `Move: I5 A9`)
_A_MOVE_AND_ITS_VERB = (
    r"[A-Za-z]\d{1,2}(?:\?|[ \t]+(?:is|are|was|would|will|could|can|loses?|fails?|does|doesn't|looks|seems)\b)"
)
_MOVE_BEFORE = "|".join(
    f"(?<=[A-Za-z]{digits}{closer})" for digits in (r"\d", r"\d\d") for closer in ("", r"\*", r"\*\*", "_", "__")
)
_UNSTOPPED_AFTER_A_MOVE = (
    rf"(?:{_MOVE_BEFORE})(?=[ \t]+(?:[—–-]+[ \t]+)?(?:(?-i:I|[A-Z][a-z]+|[XO])\b|{_A_MOVE_AND_ITS_VERB}))"
)
# where a label's first sentence ends: its stop, or a move with the stop left out
_FIRST_SENTENCE_END = re.compile(rf"[.!?。！？](?=\s)|{_UNSTOPPED_AFTER_A_MOVE}")


def _its_own_sentence(answer: str, size: int, formats: tuple[str, ...]) -> str:
    """A label's text cut after its first sentence, where that sentence names one move and the
    sentences after it on the line neither offer, correct, prefer another nor doubt (`I5. I
    considered A9, but it loses.`): they explain it, as the lines after the label do; else all of it."""
    cut = _FIRST_SENTENCE_END.search(answer)
    if cut is None:
        return answer
    first, rest = answer[: cut.end()], answer[cut.end() :]
    if len({cell for _, cell in _named(first, size, formats)}) != 1 or offers(rest) or _preferred(rest, size, formats):
        return answer
    return answer if doubts_after(rest, lambda s: _rejects_all(s, size, formats)) else first  # `Hmm, A9.`


def _moves_listed_under(text: str, span: Span, at: int, size: int, formats: tuple[str, ...]) -> list[tuple[int, str]]:
    """Where the label `span` stands alone over a list (`locate.list_at`), its items that name a
    move they do not reject (`- A1 (loses)` names none): where each item's text starts, and the text."""
    if text.rfind("\n", 0, at) <= span.start:
        return []  # the label's answer is on its own line
    return [
        (text.find(item, start), item)
        for start, item in list_at(text, at)
        if find_moves(item, size, _plain(formats)) and not _rejects_all(item, size, formats)
    ]


def _offered_after(
    text: str, end: int, cell: int, size: int, formats: tuple[str, ...], occupied: Collection[int]
) -> bool:
    """Does a field after the answer's own (`locate.offered_after`: `"alternatives": ["A1"]`,
    `Other options: A1`) offer another move beside it? A stone on the board named there is the
    position, no move; a move the field rejects (`Alternatives considered: A1 (too slow)`) is none."""
    return any(
        {c for pos, c in _named(piece, size, formats) if not _rejected(piece, pos)} - {None, cell} - set(occupied)
        for piece in offered_after(text, end)
    )


def _concludes_another(
    text: str, end: int, cell: int, size: int, formats: tuple[str, ...], occupied: Collection[int]
) -> bool:
    """Does the line the text concludes with after the answer state another move (`locate.
    concluded_answer`: `Move: I5` … `So I play A1.`)? Its first move, not a stone on the board nor
    one it rejects (`So I play I5, not A1.` restates I5)."""
    stated = concluded_answer(text, end)
    named = [c for pos, c in _named(stated, size, formats) if not _rejected(stated, pos) and c not in occupied]
    return bool(named) and named[0] not in (None, cell)


def _line_scopes(
    text: str, size: int, formats: tuple[str, ...], theirs: str = "", ours: str = ""
) -> list[tuple[int, int, str]]:
    """Every line that names a move: (start, end, the line). A line that rejects every move it names
    (`Worst: A1`, `A1 ❌`, `Don't play A1.`) or tells of an earlier try (`I first considered A1, but it
    does not work.`) counts only where no other line names one. A line whose moves are all inside a
    parenthesis explains (`This makes five (E5, F5, G5, H5, I5).`): it counts only where no line
    names a move outside one; a line whose moves are all the other player's (`_names_only_theirs`: `The
    opponent then plays A1.`, `Opponent's move: A1`, `X: A1`) never counts, and one that tells of a later
    turn (`Then play I5.`) only where no line before it states the move now (`locate.without_later_turns`)."""
    scopes = [(start, start + len(line), line) for start, line in _lines(text)]
    named = [scope for scope in scopes if find_moves(scope[2], size, _plain(formats))]
    named = [scope for scope in named if not _sets_all_aside(scope[2], size, formats)] or named  # `Worst: A1`
    outside = [scope for scope in named if find_moves(without_asides(scope[2]), size, _plain(formats))] or named
    our_lines = {scope[0] for scope in outside if not _names_only_theirs(scope[2], size, formats, theirs)}
    if not our_lines:  # `X threatens I5. I'd rather take the corner.`: I5 is theirs, never our move in its place
        return []
    # a plan's line that has them play (`If they answer, play F8.`) still opens the plan the lines after it go on with
    planned = [scope for scope in outside if scope[0] in our_lines or tells_a_later_turn(scope[2])]
    planned = without_later_turns(planned, lambda scope: scope[2])  # `Play A1.` / `Then play I5.`: I5 comes later
    return without_mentions_after_the_answer(  # `Play I5.` / `The tempting A1 does nothing.`: A1 is discussed
        [scope for scope in planned if scope[0] in our_lines],
        lambda scope: scope[2],
        lambda line: (
            bool(_preferred(line, size, formats))
            or any(_states_our_move(s, size, formats, theirs, ours) for s in _SENTENCE_END.split(line))
        ),
    )


def _prefers_another(
    cell: int | None, size: int, formats: tuple[str, ...], occupied: Collection[int], theirs: str
) -> Callable[[str], bool]:
    """For `locate.preferred_after`: does a line rank a move other than `cell` above it
    (`locate.prefers_the_move`: `I5 is better.`), or open a correction that plays one (`Actually,
    I5.`)?"""

    def prefers_another(line: str) -> bool:
        if cell is None:
            return False
        if any(c not in (None, cell) for c in _preferred(line, size, formats)):
            return True
        played = second_look(line, lambda sentence: bool(find_moves(sentence, size, _plain(formats))))
        return played is not None and _move_in(played, size, formats, occupied, theirs)[0] not in (None, cell)

    return prefers_another


def _preferred(line: str, size: int, formats: tuple[str, ...]) -> list[int | None]:
    """The moves `line` ranks above another (`locate.prefers_the_move`: `Wait, I5 is stronger.`)."""
    found = []
    for pos, cell in _named(line, size, formats):
        written = _ALGEBRAIC.match(line, pos)
        if written and prefers_the_move(line, pos, written.end()):
            found.append(cell)
    return found


def _naming_sentences(line: str, size: int, formats: tuple[str, ...]) -> list[str]:
    """The sentences of `line` that name a move outside an aside."""
    return [s for s in _SENTENCE_END.split(line) if find_moves(without_asides(s), size, _plain(formats))]


def _sets_all_aside(line: str, size: int, formats: tuple[str, ...]) -> bool:
    """Does every sentence of `line` that names a move reject all it names (`Worst: A1`, `A1 ❌`,
    `Don't play A1.`) or tell of an earlier try (`I first considered A1, but it does not work.`)?"""
    if _rejects_all(line, size, formats):  # `A1? No, too slow.`: the verdict may stand in the next sentence
        return True
    naming = _naming_sentences(line, size, formats)
    return bool(naming) and all(_rejects_all(s, size, formats) or tells_an_earlier_try(s) for s in naming)


def _states_one_move(sentence: str, size: int, formats: tuple[str, ...], theirs: str, ours: str) -> bool:
    """`_states_our_move` for a sentence that names one move (`A1 B2 C3` lists candidates)."""
    named = {cell for pos, cell in _named(sentence, size, formats) if not _rejected(sentence, pos)}
    return len(named) == 1 and _states_our_move(sentence, size, formats, theirs, ours)


def _states_our_move(sentence: str, size: int, formats: tuple[str, ...], theirs: str, ours: str) -> bool:
    """Does `sentence` name a move and state it as ours now (`locate.states_the_move_now`; `ours`, our
    side's names), neither setting it aside nor giving it as the other side's?"""
    return (
        bool(find_moves(without_asides(sentence), size, _plain(formats)))
        and states_the_move_now(sentence, ours)
        and not _sets_all_aside(sentence, size, formats)
        and not their_move(sentence, theirs)
    )


# words that have us take the cell the other side would play (`X threatens I5, so block it.`, `X's four ends at
# I5, which must be blocked.`): that line's move is ours
_TAKES_THEIR_CELL = re.compile(
    r"\b(?:must|has to|have to|needs? to|should)[ \t]+be[ \t]+(?:blocked|taken|stopped|covered|occupied|filled)\b"
    r"|\b(?:block|take|stop|cover|occupy|fill)(?:ing)?[ \t]+(?:it|that|this|there"
    r"|the (?:threat|four|cell|point|spot|gap|end))\b",
    re.IGNORECASE,
)


def _names_only_theirs(line: str, size: int, formats: tuple[str, ...], theirs: str) -> bool:
    """Is every move `line` names one the other side would play (`_theirs_at`: `X threatens to play
    I5.`, `If X gets I5, X wins. Still, I choose the corner.`), and none has us take their cell
    (`_TAKES_THEIR_CELL`: `…, so block it.`)?"""
    if _TAKES_THEIR_CELL.search(line):
        return False
    scope = without_asides(line)
    named = find_moves(scope, size, _plain(formats))
    return bool(named) and all(_theirs_at(scope, pos, theirs) for pos, _cell in named)


@lru_cache(maxsize=8)  # the scopes being read now (a long hostile one is held by few)
def _sentence_bounds(scope: str) -> tuple[list[int], list[int]]:
    """Where `scope`'s sentences start and where they end (its `_SENTENCE_END` separators' ends and starts)."""
    separators = list(_SENTENCE_END.finditer(scope))
    return [m.end() for m in separators], [m.start() for m in separators]


# a move that opens a clause of its own and goes on with what it does (`X has four in a row and I5 is the only
# defence.`, `…, but I5 stops it.`): that clause is about the move, whoever the sentence opened with
_CLAUSE_BEFORE_MOVE = re.compile(r"(?:^|[,;—–]|\b(?:and|but|so|thus|hence|therefore)\b)[\s*_`]*$", re.IGNORECASE)
_CLAUSE_AFTER_MOVE = re.compile(
    r"[\s*_`]+(?:is|blocks?|stops?|prevents?|defends?|covers?|must|should|would|will|makes?|creates?|wins?)\b",
    re.IGNORECASE,
)


def _theirs_at(scope: str, pos: int, theirs: str) -> bool:
    """Is the move at `pos` in a sentence of `scope` that gives the other side's move
    (`locate.their_move`), and neither that sentence nor a clause of it opens with the move (`I5 —
    X would win there otherwise.`, `X has four and I5 is the only defence.` are about I5)?"""
    starts, ends = _sentence_bounds(scope)  # found once per scope: linear over all the moves it names
    k = bisect_left(ends, pos)  # the sentences that end before the move
    start = starts[k - 1] if k else 0
    end = ends[k] if k < len(ends) else len(scope)
    sentence, at = scope[start:end], pos - start
    if not their_move(sentence, theirs) or _OPENS_WITH_MOVE.match(sentence):
        return False
    move = _ALGEBRAIC.match(sentence, at)
    opens_a_clause = _CLAUSE_BEFORE_MOVE.search(sentence, 0, at) and _CLAUSE_AFTER_MOVE.match(
        sentence, move.end() if move else at
    )
    return not opens_a_clause


# words that say what a line plays (`O wins by playing I8: E4, F5, G6, H7, I8.`, `I5 blocks E5-H5`): where
# they stand, the stones it names beside the move describe the position; a bare list of cells (`A1 B2 C3
# D4 E5`) is a list of candidates, one answer too many, whatever stands on the board
_SAYS_WHAT_IT_PLAYS = re.compile(
    rf"{ANSWER_WORDS.pattern}|\b(?:wins?|winning|blocks?|blocking|completes?|completing|makes?|making|five)\b",
    re.IGNORECASE,
)


# what stands between words that turn from a move (`locate.turned_to`) and the move they turn to: little (`—
# sorry, I mean I5`, `, or rather I5`, `, make that I5`, `(oops) -> I5`, `, or rather Move: I5`); never a
# sentence that only names one (`(oops, I almost played I5)`, `actually X threatens I5`)
_LEADS_TO_THE_MOVE = re.compile(
    r"[\W_]*(?:(?:i[ \t]+(?:mean|meant)|(?:i(?:'ll|[ \t]+will)?[ \t]+)?play|the (?:best )?move is)\b[\W_]*)?"
    r"(?:[^\W\d_]+(?:[ \t]+[^\W\d_]+){0,2}[ \t]*[:：][\W_]*)?",  # and a label (`I mean Move: I5`)
    re.IGNORECASE,
)


def _move_in(
    scope: str, size: int, formats: tuple[str, ...], occupied: Collection[int] = (), theirs: str = "", ours: str = ""
) -> tuple[int | None, str | None]:
    """The one move `scope` (a tag's content or a line) names, or (None, why). What a parenthesis
    after the first named move says explains it (`I5 (blocking E5-H5)`); where it names several,
    the stones already on the board (`occupied`) describe the position where it says what it plays
    (`_SAYS_WHAT_IT_PLAYS`), unless it offers one beside another."""
    turned = turned_to(scope)
    if turned is not None:  # `Move: A1 — sorry, I mean I5`: the move it turns to, where little stands before it
        named_after = _named(scope[turned:], size, formats)
        if named_after and _LEADS_TO_THE_MOVE.fullmatch(scope, turned, turned + named_after[0][0]):
            later = _move_in(scope[turned:], size, formats, occupied, theirs, ours)
            if later[0] is not None:
                return later
    first = _ALGEBRAIC.search(scope) if "algebraic" in _plain(formats) else None
    if first is not None:
        scope = scope[: first.end()] + without_asides(scope[first.end() :])
    named = [(pos, cell) for pos, cell in _named(scope, size, formats) if not _rejected(scope, pos)]
    if theirs and named and not _TAKES_THEIR_CELL.search(scope):  # `X can win at I5. O should play at (1, 1).`
        named = [(pos, cell) for pos, cell in named if not _theirs_at(scope, pos, theirs)]
    if not named:
        pairs = [m for m in _pairs(scope, size, formats) if not _rejected(scope, m[0])]
        if pairs and "algebraic" in formats:
            return None, "coordinates such as (8, 8) are ambiguous: the prompt asks for a letter and a row number (E5)"
        named = pairs
    if not named:
        return None, NO_MOVE
    describes = occupied and not offers(scope) and _SAYS_WHAT_IT_PLAYS.search(scope)  # never a bare list of cells
    if len({cell for _, cell in named}) > 1 and describes and _apart(named, occupied):
        named = [(pos, cell) for pos, cell in named if cell not in occupied]
    if len({cell for _, cell in named}) > 1:
        corrected = _corrected(scope, size, formats)
        if corrected is not None:  # `Play I5. Actually, A1 is better.`: the later sentence replaces the move
            return corrected, None
        answered = _answering_sentence(scope, size, formats, occupied, theirs, ours)
        if answered is None:
            answered = _opening_move(scope, size)
        if answered is None:
            return None, "two different moves offered: one answer too many"
        return answered, None
    return named[-1][1], None


def _corrected(scope: str, size: int, formats: tuple[str, ...]) -> int | None:
    """The one move the last sentence that names a move names, where that sentence opens by replacing
    the move before it (`locate.reconsiders`: `Actually, A1 is better.`, `Wait, A1.`) or ranks it above
    (`locate.prefers_the_move`: `Hmm, A1 is better.`); else None."""
    for sentence in reversed(_SENTENCE_END.split(scope)):
        named = {cell for pos, cell in _named(sentence, size, formats) if not _rejected(sentence, pos)}
        if named:
            one = len(named) == 1
            return named.pop() if one and (reconsiders(sentence) or _preferred(sentence, size, formats)) else None
    return None


def _apart(named: list[tuple[int, int | None]], occupied: Collection[int]) -> bool:
    """Is the move named apart from the stones on the board beside it: first or last of the cells
    the line names (`I play I8: E4, F5, G6, H7, I8.`, `With E4 and F5 on the board, I8 wins.`)? An
    empty cell amid stones (`A1 B2 C3`, B2 empty) is one of a list, not the answer."""
    ends = {named[0][1], named[-1][1]}
    return any(cell is not None and cell not in occupied for cell in ends)


# where a sentence, a concluding clause or a plan ends (`Both D3 and I8 win, so I choose D3.`, `O blocks
# at I5, and if X then plays G6, O answers at H6.`, `I play I5 now, and next turn F8.`)
_SENTENCE_END = re.compile(
    rf"(?<=[.!?。！？;；])\s+|{_UNSTOPPED_AFTER_A_MOVE}[ \t]+(?:[—–-]+[ \t]+)?|,\s*(?=(?:so|thus|therefore|hence)\b)"
    r"|,\s*(?:and\s+|but\s+)?(?=(?:if|when|after|then|once|should|since|because|as|next|later)\b)",
    re.IGNORECASE,
)
# a sentence that gives a reason (`since H6 is covered`): its moves explain the move now (as a plan's,
# `locate.OPENS_A_PLAN`, and the other player's, `locate.their_move`, are later or theirs)
_GIVES_A_REASON = re.compile(r"^[\W_]*(?:since|because|as)\b", re.IGNORECASE)


def _answering_sentence(
    scope: str, size: int, formats: tuple[str, ...], occupied: Collection[int] = (), theirs: str = "", ours: str = ""
) -> int | None:
    """Where a line names different moves in different sentences (`The answer is I5. After that,
    White might try A1.`) and offers none beside another: the one move named by the sentences about
    the move now (not a plan of later moves, a reason or the other player's: `locate.OPENS_A_PLAN`,
    `_GIVES_A_REASON`, `locate.their_move`) that say what they answer (`locate.ANSWER_WORDS`: answer,
    move, play, …), else, where such sentences were set aside, the one the rest name (`O must block
    at I5; if X then plays G6, O answers at H6.`); stones already on the board named beside it
    describe the position (`Play I5 to block E5-H5;`). None where that is not one move."""
    if offers(scope):
        return None
    sentences = _SENTENCE_END.split(scope)
    now = [
        s
        for s in sentences
        if not (OPENS_A_PLAN.match(s) or tells_a_later_turn(s) or _GIVES_A_REASON.match(s) or their_move(s, theirs))
    ]
    # `Check A1: it loses. Play I5.`: the sentences that state one move now, and nothing after them doubts it
    stating = [k for k, s in enumerate(sentences) if s in now and _states_one_move(s, size, formats, theirs, ours)]
    cells = {cell for pos, cell in _named_in([sentences[k] for k in stating], size, formats)}
    if len(cells) == 1:  # never `A1? Hmm, I5.`, `I5. Hmm, wait.`; `I5. I considered A1, but it loses.` leaves it
        doubted = TAKES_BACK.search(sentences[stating[0]]) or doubts_after(
            " ".join(sentences[stating[0] + 1 :]), lambda s: _rejects_all(s, size, formats)
        )
        if not doubted:
            return cells.pop()
    cells = {cell for pos, cell in _named_in(now, size, formats, answering=True)}
    cells = (cells - set(occupied)) or cells
    if cells or len(now) == len(sentences):
        return cells.pop() if len(cells) == 1 else None
    named = _named_in(now, size, formats)  # the move now, beside the plans and reasons set aside
    if len({cell for _, cell in named}) > 1 and _apart(named, occupied):
        named = [(pos, cell) for pos, cell in named if cell not in occupied]
    return named[0][1] if len({cell for _, cell in named}) == 1 else None


def _named_in(
    sentences: list[str], size: int, formats: tuple[str, ...], answering: bool = False
) -> list[tuple[int, int | None]]:
    """The moves `sentences` name and do not reject, in order (`answering`: only those of the
    sentences that say what they answer, `locate.ANSWER_WORDS`)."""
    return [
        (pos, cell)
        for sentence in sentences
        if not answering or ANSWER_WORDS.search(sentence)
        for pos, cell in _named(sentence, size, formats)
        if not _rejected(sentence, pos)
    ]


# a line that opens with its move, not in a list of moves (`I5, blocking the four…`, never `I5, H6 and G7…` nor
# `A1 B2 C3`)
_OPENS_WITH_MOVE = re.compile(
    r"^[\s*_`>#•-]*(?P<move>[A-Za-z]\d{1,2})\b(?![*_`]*(?:\s*(?:[,/&]|\band\b|\bor\b))?\s*[*_`]*[A-Za-z]\d)"
)
_COMPARES = re.compile(
    r"\b(?:than|over|vs|versus|better|worse|rather|instead|prefer\w*|compared)\b|[<>]", re.IGNORECASE
)


def _opening_move(scope: str, size: int) -> int | None:
    """Where a line opens with its move and the rest explains it (`I5, blocking the four and
    threatening H6.`, `I5 creates a double threat at H6 and G7.`): that move; never where the line
    compares moves, doubts or takes back (`A1 is worse than I5`, `A1? Hmm, I5.`; `locate.TAKES_BACK`)
    or offers one beside another."""
    m = _OPENS_WITH_MOVE.match(scope)
    if m is None or offers(scope) or TAKES_BACK.search(scope) or _COMPARES.search(scope):
        return None
    return parse_move(m.group("move"), size)


def _lines(text: str) -> list[tuple[int, str]]:
    """Each line of `text` with where it starts."""
    out, start = [], 0
    for line in text.split("\n"):
        out.append((start, line))
        start += len(line) + 1
    return out


def _plain(formats: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(f for f in formats if f != "tag") or MOVE_FORMATS[1:]


def _named(scope: str, size: int, formats: tuple[str, ...]) -> list[tuple[int, int | None]]:
    """Moves in the letter-and-number notation (`H8`)."""
    return find_moves(scope, size, ("algebraic",)) if "algebraic" in _plain(formats) else []


def _pairs(scope: str, size: int, formats: tuple[str, ...]) -> list[tuple[int, int | None]]:
    """Moves written as coordinate pairs (`(7, 7)`, `row 7, col 7`, `x=7, y=7`)."""
    return find_moves(scope, size, tuple(f for f in _plain(formats) if f in ("pair", "row_col")))


# what may follow a listed move in its item: an aside, or words after a dash or a colon (`- I5 (blocks)`, `2. A1 —
# builds a three`); an item that goes on in a sentence (`1. I5 blocks the four.`) is reasoning, no candidate
_ITEM_TAIL = re.compile(r"[*_`]*[ \t]*(?:[(\[—–:-][^\n]*)?")
# an item marked as the answer among the listed (`1. I5 (best)`, `- A1 ← my move`): never `second best`
_MARKED_AS_THE_ANSWER = re.compile(
    r"(?<!second )(?<!next )(?<!2nd )(?<!third )\bbest\b|\bmy (?:move|choice|pick)\b|\bchosen\b|←|✓|✔|✅", re.IGNORECASE
)


def _listed_moves(text: str, at: int, size: int, formats: tuple[str, ...], occupied: Collection[int]) -> dict[str, int]:
    """Where the line at `at` is an item of a list of moves (`locate.list_at`; each item a move alone,
    perhaps with an aside: `- A1`, `2. I5 (blocks the four)`), each item's text and its move, for
    every item of that list that lists one (none rejected, `A1 (loses)`, nor a stone on the board)."""
    listed = {}
    for _, item in list_at(text, at):
        body = item.lstrip("*_`")
        move = _MOVE_TOKEN.match(body)
        named = find_moves(body, size, _plain(formats)) if move else []
        if not named or named[0][0] != 0 or not _ITEM_TAIL.fullmatch(body, move.end()):
            continue  # an item of reasoning (`1. X has four on row 5.`)
        cell = named[0][1]
        if cell is not None and cell not in occupied and not _rejected(body, 0):
            listed[item] = cell
    return listed


def _rejected_later(text: str, end: int, cell: int, size: int, formats: tuple[str, ...]) -> bool:
    """Does a line after the answer that ends at `end` reject every move it names, the answer's among
    them (`Play I5.` / `I5 would lose.`, `Avoid I5.`; never as the reply another loses to: `A1 loses to
    I5.`)? The text calls its answer wrong (rule 7)."""
    return any(
        _rejects_all(line, size, formats)
        and any(c == cell and not replies_at(line, pos) for pos, c in _named(line, size, formats))
        for _, line in _lines(text[end:])
    )


def _rejects_all(scope: str, size: int, formats: tuple[str, ...]) -> bool:
    """Does `scope` (what follows an answer's label) name moves and reject every one (`A1 ❌`, `A1
    would lose`)? Such a line is no answer, as a tag called wrong is none."""
    named = _named(scope, size, formats)
    return bool(named) and all(_rejected(scope, pos) for pos, _ in named)


def _rejected(scope: str, pos: int) -> bool:
    """Do the words before the move at `pos` (`not J10`, a mistake's label: `Worst: J10`) or right
    after it (`J10 would lose`, `J10 ❌`) reject it?"""
    before = scope[max(0, pos - REJECTION_CHARS) : pos]
    if _REJECTED.search(before) or UNDER_A_MISTAKE_LABEL.search(before):
        return True
    move = _MOVE_TOKEN.match(scope, pos)
    return move is not None and called_wrong(scope, move.end())

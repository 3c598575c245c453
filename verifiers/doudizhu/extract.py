"""Reading a play from a model's completion: `<move>...</move>`, a `Move: ...` line, or a short
bare answer; PASS in English or Chinese. By the shared rules (docs/answers.md): the last play
written, unless the words before it offer it beside an earlier, different one (`<move>3 3</move>
or <move>4 4</move>`, "alternatively"): two plays are one answer too many, refused whichever wins."""

from __future__ import annotations

import re
from typing import Callable, NamedTuple

from ..locate import (
    ANSWER_WORDS,
    ASIDE,
    MISTAKE_LABEL_WORDS,
    MOST_TALK_LINES,
    OFFERS,
    OPENS_A_PLAN,
    OTHER_SIDE,
    REJECTS_UNSPACED,
    REPLY_WORDS,
    UNDER_A_MISTAKE_LABEL,
    after_a_denial,
    called_wrong,
    concluded_answer,
    doubts_after,
    earlier_tries,
    introduced_as_the_form,
    label_cut_off,
    labelled,
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
    talk_takes_back,
    tells_a_later_turn,
    tells_an_earlier_try,
    their_move,
    turned_to,
    without_asides,
    without_later_turns,
    without_mentions_after_the_answer,
)
from .cards import Hand, parse_cards

PASS_WORDS = frozenset({"pass", "不要", "不出", "要不起", "过"})
_PASS_STRIP = " \t\r\n.!。！*`'\"()[]"
# an answer's label (`Move:`, `Respuesta:`, `出牌：`; `locate.ANSWER_WORDS`), after at most a few lead
# words ("Alternatively, Move: 4 4" is a second play; "Putting it together, the **Solution:** 3")
_LINE = re.compile(
    rf"^[^\n]{{0,40}}?(?:{ANSWER_WORDS.pattern})[^\W\d_]{{0,8}}[\"'*_]*\s*[:：]\s*[\"']?"
    r"(\[[^\]\n]{0,200}\][^\n]{0,200}|[^\n\"']{0,200})",
    re.IGNORECASE | re.MULTILINE,
)  # also a JSON or YAML key (`{"move": "3 3"}`), its value a list too (`["3", "3"]`, read with the rest of
# its line: `[3] or [4]` offers two plays)
MOVE_FORMATS = ("tag", "line", "bare")
BARE_LIMIT = 40
_TAG = re.compile(r"<move>([^<]*(?:<(?!/?move>)[^<]*)*)</move>", re.IGNORECASE)  # stops at the next tag: linear
TWO_PLAYS = "two different plays are offered as the answer: one answer too many"
CUT_OFF = "the final play was cut off (a <move> tag never closed): no answer"
LABEL_CUT_OFF = "the final play was cut off (its label ends the text): no answer"
CALLED_WRONG = "the text calls its play wrong: no answer"
THEIRS_NAMED = "the only play named is the other side's (`The opponent will play 3.`): no answer"
PREFERS_ANOTHER = "two different plays: a line after the answer ranks another above it (`3 is better.`)"
STATED_NONE = "the final answer says there is none (`Final answer: none`)"


class Found(NamedTuple):
    """The play's raw text (None where there is none) and, where it is refused, why."""

    play: str | None
    why: str = ""


class _Written(NamedTuple):
    """A play as written in a tag or after a label: where its text starts and ends, and the text."""

    start: int
    end: int
    text: str


def _last_of(plays: list[_Written], text: str) -> Found:
    """The last of `plays`, refused where the text between it and an earlier, different play offers it."""
    last = plays[-1]
    for earlier in reversed(plays[:-1]):
        if " ".join(earlier.text.split()).lower() == " ".join(last.text.split()).lower():
            continue
        if offers(text[earlier.end : last.start]):
            return Found(None, TWO_PLAYS)
        break
    return Found(last.text.strip(" \t*_`"))


def _labelled_plays(text: str) -> list[_Written]:
    """What follows each label of a play, in order: a `Move:` line (`_LINE`, JSON keys and lists too)
    and any label whose words are an answer's in any language (`locate.rank`: `Respuesta:`, `答案：`,
    `Lösung:`); never a label that names the other player (`Opponent's move:`, `Landlord's move:`) or a mistake (`Bad play:`). Where there is none,
    a label in words no lexicon holds whose whole text is cards, where every such label names the
    same play (a hand restated under another label, `Mano: 3 6 J`, refuses)."""
    found = {
        m.start(1): _Written(m.start(1), m.end(1), m.group(1))
        for m in _LINE.finditer(text)
        if not _THEIRS.search(text, m.start(), m.start(1))
        and not MISTAKE_LABEL_WORDS.search(text, m.start(), m.start(1))
    }
    lines_read = {text.rfind("\n", 0, at) for at in found}  # where each line read already starts
    others = []  # labels in words no lexicon holds (`Xyzzy:`, `Keputusan:`)
    for span in labelled(text):
        at = text.find(span.text, span.start)
        numbered = _A_NUMBERED_LABEL.fullmatch(span.label)  # `Move 2:`: its number counts turns, names no card
        if (
            at < 0
            or text.rfind("\n", 0, span.start + 1) in lines_read
            or (_NUMBER_CARD.search(span.label) and not numbered)
        ):
            continue  # a "label" that names a card is a sentence's clause: `Lead 3: it forces 5`
        if _THEIRS.search(span.label):
            continue  # the other side's, by its role too: `Landlord's move: 3`
        if rank(span) == 2:
            listed = list_at(text, at) if text.rfind("\n", 0, at) > span.start else []  # a label alone over a list
            playing = [(start, item) for start, item in listed if _listed_play(item) is not None]
            if len({_listed_play(item) for _, item in playing}) > 1:  # `Candidate plays:` / `- A` / `- 3`
                found[at] = _Written(at, listed[-1][0] + len(listed[-1][1]), "\n".join(item for _, item in listed))
            elif playing:  # the one item that plays (`- A (loses)` / `- 3`)
                item_at = text.find(playing[0][1], playing[0][0])
                found[at] = _Written(item_at, item_at + len(playing[0][1]), playing[0][1])
            else:
                found[at] = _Written(at, at + len(span.text), span.text)
        elif rank(span) == 1 and _reads_as_play(span.text) and not tells_a_later_turn(span.label):  # `Next turn: 3`
            others.append(_Written(at, at + len(span.text), span.text))
    if not found and len({read_play(w.text) for w in others}) == 1:  # one play under such labels: the answer
        return others[-1:]
    return [found[at] for at in sorted(found)]


def _listed_play(item: str) -> str | None:
    """The play a list's item names (`A`, `3 (single)`, `pair of 5s`), as its cards; None where it
    names none (`keeps the 2`), or rejects it (`A (loses)`)."""
    return _play_in(with_counts_written_out(_own_clauses(item))).play


def find_play(
    text: str,
    formats: tuple[str, ...],
    on_table: Hand | None = None,
    examples: tuple[str, ...] = (),
    *,
    replacing: bool = True,
) -> Found:
    """The last play written in the completion (raw text), trying the configured formats in
    order: the last complete <move>...</move> (none where the text ends inside a tag: cut off),
    else the last line a play's label opens (`_labelled_plays`), else the whole (short) completion
    or its last line's sentences; a text that does not read as cards is read as a sentence
    (`sentence_play`). A play the text calls wrong is none, and a tag that quotes the prompt's
    example (`examples`) as the form to write (`answer like <move>3 3</move>`) is none where the text
    answers elsewhere. A play a later line calls wrong is none, unless what the text writes from that
    line on names one (`replacing`: `Play: PASS` / `Wait, that is wrong. I play 3 instead.` is 3;
    read once, never further). Linear in the length of the text."""
    if "tag" in formats:
        if tag_cut_off(text, "move"):
            return Found(None, CUT_OFF)
        tags = [_Written(m.start(), m.end(1), m.group(1)) for m in _TAG.finditer(text)]  # from the tag's opening
        quoted = [t for t in tags if _quotes_an_example(t, text, examples)]
        if quoted:  # the prompt's format example, quoted: the answer is elsewhere
            elsewhere = find_play(_blanked(text, quoted), formats, on_table)
            if elsewhere.play is not None:
                return elsewhere
        kept = [t for t in tags if not called_wrong(text, t.end)]  # `<move>3</move> would lose.`
        if tags and not kept:
            return Found(None, CALLED_WRONG)
        kept = not_shown_as_mistakes(kept, text, lambda t: t.start)  # `Don't play <move>2</move>`
        kept = not_theirs(kept, text, lambda t: t.start, _ROLES)  # `Opponent's reply: <move>3</move>`
        if tags and not kept:
            return Found(None, "the only play tagged is the other side's: no answer")
        if kept:
            if _offers_another(offered_after(text, text.find(">", kept[-1].end) + 1), kept[-1].text):
                return Found(None, TWO_PLAYS)  # `<move>3</move> (or J)`, `— J would also work`
            if taken_back(text, kept[-1].end, _names_another(kept[-1].text)):
                return _written_after_a_denial(text, kept[-1].end, formats, on_table, examples, replacing)
            preferred = preferred_after(text, kept[-1].end, _prefers_another(kept[-1].text))
            if preferred is not None:  # `Play: A` / `Actually, 3 is better.`: 3 replaces it
                return _written_after_a_preference(preferred, formats, on_table, examples, replacing)
            if none_stated_at(text) > kept[-1].start:  # `Final answer: none` after it
                return Found(None, STATED_NONE)
            if _concludes_another(text, kept[-1], on_table):
                return Found(None, TWO_PLAYS)  # `<move>3</move>` … `So I lead 4 4.`
            return _as_play(_last_of(kept, text), on_table)
    if "line" in formats:
        if label_cut_off(text):
            return Found(None, LABEL_CUT_OFF)
        labelled_plays = _labelled_plays(text)
        lines = [w for w in labelled_plays if not _called_wrong_in_its_line(w, text)]  # `Play: 3 doesn't work.`
        if labelled_plays and not lines:
            return Found(None, CALLED_WRONG)
        lines = not_shown_as_mistakes(lines, text, lambda w: text.rfind("\n", 0, w.start) + 1)  # `Don't write this:`
        lines = without_later_turns(lines, lambda w: line_at(text, w.start))  # `Turn 1: A` / `Turn 2: 3`
        if lines:
            if "\n" in lines[-1].text:  # a label over a list of different plays (`_labelled_plays`)
                return Found(None, TWO_PLAYS)
            if _offers_another(offered_after(text, lines[-1].end), lines[-1].text):
                return Found(None, TWO_PLAYS)  # `{"move": "3", "alternatives": ["6"]}`
            if taken_back(text, lines[-1].end, _names_another(lines[-1].text)):
                return _written_after_a_denial(text, lines[-1].end, formats, on_table, examples, replacing)
            preferred = preferred_after(text, lines[-1].end, _prefers_another(lines[-1].text))
            if preferred is not None:  # `Play: A` / `Actually, 3 is better.`: 3 replaces it
                return _written_after_a_preference(preferred, formats, on_table, examples, replacing)
            if _concludes_another(text, lines[-1], on_table):
                return Found(None, TWO_PLAYS)  # `Play: 3` … `So the best play is 4.`
            return _as_play(_last_of(lines, text), on_table)
    if "bare" in formats:
        stripped = text.strip()
        return _as_play(Found(stripped), on_table) if len(stripped) <= BARE_LIMIT else sentence_play(text, on_table)
    return Found(None)


def _concludes_another(text: str, answer: _Written, on_table: Hand | None) -> bool:
    """Does the line the text concludes with after the answer state another play (`locate.
    concluded_answer`: `Play: 3` … `So the best play is 4.`)? Two final answers: one too many (rule 5)."""
    stated = concluded_answer(text, answer.end)
    found = sentence_play(stated, on_table) if stated else Found(None)
    if found.play is None:
        return False
    try:
        return read_play(found.play) != read_play(answer.text.strip(" \t*_`"))
    except ValueError:
        return False  # either is no play as written: the play's own reading says why


def _offers_another(pieces: list[str], answer: str) -> bool:
    """Does a piece after the answer that offers (`locate.offered_after`: `<move>3</move> (or J)`,
    `Alternatively, J.`, `{"move": "3", "alternatives": ["6"]}`) name a play other than `answer`,
    one it neither rejects nor calls wrong (`Alternatives like J lose to the 2.` offers none)?"""
    return any(_names_another(answer, offered=True)(piece) for piece in pieces)


def _names_another(answer: str, offered: bool = False) -> Callable[[str], bool]:
    """For `locate.taken_back`: do the words before a denial name a play of their own other than
    `answer`, and no other side (`Leading A would waste control, so that doesn't work.` speaks of A;
    `The opponent then plays 2, so that fails.` of the answer)? `offered`: for words that offer a
    play beside the answer, where a play rejected or called wrong is none (`_offers_another`)."""

    def names_another(words: str) -> bool:
        if not offered and _OTHER_SIDE.search(words):
            return False
        written = answer.strip(" \t*_`")
        try:
            mine = None if written.upper() == "PASS" else parse_cards(written)  # a pass names no cards
        except ValueError:
            return offered and _TOKEN_RUN.search(words) is not None  # no play as written: a denial stands
        words = with_counts_written_out(words)
        runs = [run for run in _runs(words) if run.cards]
        if offered:  # what the piece rejects or calls wrong is not offered
            runs = [run for run in runs if not (_rejected(words, run.start) or called_wrong(words, run.end))]
        named = (_cards_or_none(run.cards) for run in runs)
        passes = mine is not None and _PASS_IN_SENTENCE.search(words) is not None  # `I also looked at PASS`
        return passes or any(cards is not None and cards != mine for cards in named)

    return names_another


def _cards_or_none(cards: list[str]) -> Hand | None:
    try:
        return parse_cards(" ".join(cards))
    except ValueError:
        return None


def _written_after_a_denial(
    text: str, end: int, formats: tuple[str, ...], on_table: Hand | None, examples: tuple[str, ...], replacing: bool
) -> Found:
    """The play written after the line that denies the play ending at `end` (rule 5): read from that
    line on, once. None where nothing after names one, or where what follows speaks of the other
    side (`That's wrong. The opponent plays 3.`: their play, never ours in its place)."""
    rest = after_a_denial(text, end) if replacing else None
    if rest is None or _THEIRS.search(rest):  # `That's wrong. The landlord then plays 3.`: never ours
        return Found(None, CALLED_WRONG)
    later = find_play(rest, formats, on_table, examples, replacing=False)
    return later if later.play is not None and _reads_as_play(later.play) else Found(None, CALLED_WRONG)


def _written_after_a_preference(
    rest: str, formats: tuple[str, ...], on_table: Hand | None, examples: tuple[str, ...], replacing: bool
) -> Found:
    """The play written in `rest`, the text from the line that ranks another play above the answer on
    (`locate.preferred_after`; rule 5), read once; none (two plays) where that reading names none."""
    later = find_play(rest, formats, on_table, examples, replacing=False) if replacing else Found(None)
    return later if later.play is not None and _reads_as_play(later.play) else Found(None, PREFERS_ANOTHER)


def _prefers_another(answer: str) -> Callable[[str], bool]:
    """For `locate.preferred_after`: does a line rank a play other than `answer` above it (`3 is
    better.`), or open a correction or a second look that plays one (`Actually, 3.`, `Wait, 3.`)?"""

    def prefers_another(line: str) -> bool:
        other = (_NO_HAND, _as_hand(answer))
        if any(_as_hand(cards) not in other for cards in _preferred(line)):
            return True
        played = second_look(line, lambda sentence: not _names_nothing(sentence))
        corrected = _play_in(with_counts_written_out(without_asides(played))).play if played else None
        return corrected is not None and _as_hand(corrected) not in other

    return prefers_another


def _preferred(line: str) -> list[str]:
    """The plays `line` ranks above another (`locate.prefers_the_move`: `Wait, 3 3 is stronger.`, `Pass
    is better.`; `Passing is better.` names no pass)."""
    written = with_counts_written_out(line)
    plays = [
        " ".join(run.cards) for run in _runs(written) if run.cards and prefers_the_move(written, run.start, run.end)
    ]
    passes = any(prefers_the_move(written, m.start(), m.end()) for m in _PASS_IN_SENTENCE.finditer(written))
    return plays + ["PASS"] * passes


def _quotes_an_example(tag: _Written, text: str, examples: tuple[str, ...]) -> bool:
    """Is this tag the prompt's example play, presented as the form to write?"""
    if not examples or not _reads_as_play(tag.text):
        return False
    return read_play(tag.text) in {read_play(e) for e in examples} and introduced_as_the_form(text, tag.start)


def _blanked(text: str, plays: list[_Written]) -> str:
    """`text` with each play's tag (up to its closing tag) replaced by spaces."""
    for play in plays:
        end = text.find(">", play.end) + 1
        text = text[: play.start] + " " * (end - play.start) + text[end:]
    return text


# a play whose stop was left out before the next sentence (`My move: 2 Let me check 5 5: it loses.`, `**8** I
# considered 7, but it loses.`): a capitalised word that is no card's name, then a word, opens it
_UNSTOPPED_PLAY = re.compile(
    r"(?<=[0-9AKQJT])([*_]{0,2})([ \t]+)"
    r"(?=(?!(?:Jacks?|Queens?|Kings?|Aces?|Jokers?|Black|Red|Big|Small|Little)\b)(?:I|[A-Z][a-z]+)[ \t]+[A-Za-z])"
)


def _stops_restored(text: str) -> str:
    """`text` with the stop put back after a play that ends its sentence without one, so that each
    sentence is read as its own (gomoku's `_UNSTOPPED_AFTER_A_MOVE` for moves)."""
    return _UNSTOPPED_PLAY.sub(r"\1.\2", text) if " " in text else text


def _as_play(found: Found, on_table: Hand | None = None) -> Found:
    """`found`, or where its text does not read as cards, its first sentence where that is cards and
    the rest neither doubts nor offers (`Move: 3. Reason: the 2 and A control the game.`; never `Move:
    3. Actually, J is better.`, which J replaces), else the play its sentence names (`Move: I lead the 3.`,
    `<move>play 3</move>`, `I play 3.`); where the sentence names none, none if it is words (`Play
    three.`), else as found (read_play then says why it is no play: `3 3 Z`)."""
    if found.play is None or _reads_as_play(found.play):
        return found
    found = found._replace(play=_stops_restored(found.play))
    first, *rest = _SENTENCE_OR_LINE_END.split(found.play, maxsplit=1)  # `3. Reason: the 2 …`, `**3**` / `A? No.`
    asked = found.play[len(first) : len(first) + 1] in ("?", "？")  # `A? No, too slow. So I play 3.`: A is asked
    first = first.strip(_PASS_STRIP)
    settled = not rest or not (asked or _unsettles(rest[0]))  # never `3. Actually, J.`
    if settled and first and _reads_as_play(first):
        return Found(first)
    in_sentence = sentence_play(found.play, on_table)
    if in_sentence.play is not None or in_sentence.why:
        return in_sentence
    return Found(None) if _A_WORD.search(found.play) else found  # `Play three.`: words that name no card, no play


# no card's name is three letters long (`BJ`, `RJ`, `10`), nor a CJK character (`不出3`: "not 3")
_A_WORD = re.compile(r"[A-Za-z]{3,}|[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


def _unsettles(rest: str) -> bool:
    """Do the sentences after a play offer another, prefer another (`J is better.`), state a play on a
    line of their own (`So I play J.`) or open with a doubt or a correction (`Hmm, J.`, `Actually,
    J.`)? `I considered J, but it loses.` does none."""
    if offers(rest) or _preferred(rest) or any(map(_states_our_play, rest.split("\n"))):
        return True  # `3. J is better.`, `**3**` / `So I play J.`
    return doubts_after(rest, lambda s: bool(_rejected_plays(s)))


def _reads_as_play(text: str) -> bool:
    try:
        read_play(text)
    except ValueError:
        return False
    return True


# A play written in a sentence (`I play 3.`, `The best move is to lead 3 3.`, `我出3`): the one run of
# card tokens the last line names. Card tokens are case-sensitive (`A`, `J`; never the article "a"), and
# a number with letters attached (`3s`, in `pair of 3s`) is no card: a name that counts cards refuses.
# letters (Latin, Greek, Cyrillic: `Réponse` is one word, never the R joker) and digits run together are
# one token (`H8`, `3s`); any other word character (CJK) is a token of its own
_WORD_CHARACTER = r"[A-Za-z0-9\u00c0-\u024f\u0370-\u03ff\u0400-\u04ff]"
_TOKEN = re.compile(rf"{_WORD_CHARACTER}+|\w|[^\s\w]")
# a card token; the jokers as the prompt (B, R) and `with_counts_written_out` (BJ, RJ) name them
_CARD = r"(?:(?:10|[2-9TJQKA])+|BJ|RJ|B|R)"
# a play named anywhere (cards, case-sensitive as in sentences, or a pass)
_TOKEN_RUN = re.compile(rf"(?<!{_WORD_CHARACTER}){_CARD}(?!{_WORD_CHARACTER})|\b(?:[Pp]ass|PASS)\b|不要")
_CARD_TOKEN = re.compile(_CARD)
# between the cards of one play: `3 3`, `3-4-5-6-7`, `3, 3`, and a trio's kicker: `2 2 2 with K K`, `222带K`
_KICKER_JOIN = re.compile(r"with|带", re.IGNORECASE)
_RUN_GAP = re.compile(r"[\s,+/、，-]*(?:(?<![^\s\d])with(?![^\s\d])|带)?[\s,+/、，-]*", re.IGNORECASE)
_SENTENCE_END = re.compile(r"[.!?;。！？；]")
_SENTENCE_OR_LINE_END = re.compile(r"[.!?;。！？；\n]")
# a pass in a sentence: never the words that reject a play after them (`不要出A`: "do not play A")
_PASS_IN_SENTENCE = re.compile(r"\bpass\b|不要(?![出打]?[ \t]*[\w大小])|不出(?![ \t]*[\w大小])|要不起", re.IGNORECASE)
_REJECTED = re.compile(
    rf"(?:\bnot|n't|\bnever|\bavoid|\binstead of|\brather than|\bover|{REPLY_WORDS})\b[\w ]{{0,12}}$|{REJECTS_UNSPACED}$",
    re.IGNORECASE,
)  # or the other side's reply: `3 loses to 5`
MAX_SENTENCE = 300  # characters of a last line read as sentences
_A_STEP = re.compile(r"^\W*(?:step|stage|phase)\s*\d", re.IGNORECASE)  # `Step 2: lead the 3.`: a step, no description


# the other side, or a side by its role (`the landlord`): a play named after it is theirs
_ROLES = r"[Ll]andlords?|[Ff]armers?|[Pp]easants?|地主|农民"  # as `locate.their_move` takes a game's names
_THEIRS = re.compile(rf"{OTHER_SIDE.pattern}|\b(?:landlord|farmers?|peasants?)\b|地主|农民", re.IGNORECASE)
# what is not our play in a line that names several: a clause that gives the other side's play
# (`the opponent must answer with 5`; `locate.their_move`), cards kept for later (`keeping 2 and A`) or
# the reply a play forces (`Lead 3: it forces 5`), or a sentence of what happens if (`If the opponent
# plays K, I answer with A.`); a clause of ours that mentions them is ours (`but I lead A to break their pair`);
# `Hold on, A.` takes a second look (`locate.reconsiders`), holding nothing
_KEPT = re.compile(
    r"\b(?:keeps?|keeping|kept|saves?|saving|saved|holds?(?![ \t]+on\b(?![ \t]+to\b))|holding|held|left|remaining|stays?"
    r"|staying|reserved?|preserv(?:e|es|ing|ed))\b"
    r"|留着|保留|剩下"
    r"|\bforc(?:e|es|ing)\b",
    re.IGNORECASE,
)
_OTHER_SIDE = re.compile(rf"{_THEIRS.pattern}|{_KEPT.pattern}", re.IGNORECASE)  # either, anywhere
# a clause about a later turn (`Play the single 3, then win with 2 and A later.`): a plan, not this play
_LATER = re.compile(
    r"^\W*(?:then|and then|next|afterwards|after that|followed by)\b|\b(?:later|afterwards|next (?:turn|trick|round))\b"
    r"|然后|之后|接着|下一轮",
    re.IGNORECASE,
)
_NUMBER_CARD = re.compile(r"(?<!\w)(?:10|[2-9])(?!\w)")  # a card a label's words may name (never the article "A")
# a label numbered as a turn, a step or an option (`Move 2`, `Turn #3`, `Step 2`): the number is no card
_A_NUMBERED_LABEL = re.compile(
    r"[\W_]*(?:move|turn|round|trick|step|play|option|candidate)[ \t]*#?[ \t]*\d{1,2}[\W_]*", re.IGNORECASE
)
_ONLY_CARDS = re.compile(
    rf"[\s.!?;。！？；]*(?:(?:(?:and|or)\s+)?{_CARD}[\s.!?;。！？；]*)+", re.IGNORECASE
)  # `6, J, A`
_CARDS_AT_START = re.compile(  # a play, on its own line (`Move: A` / `3 would be pointless`: A alone)
    rf"[ \t*_`]*(?:(?i:pass)\b|(?:(?i:single)[ \t]+)?{_CARD}(?:[ \t,]+{_CARD})*)(?!{_WORD_CHARACTER})"
)


def _called_wrong_in_its_line(play: _Written, text: str) -> bool:
    """Do the words right after a labelled play's cards call it wrong (`Play: 3 doesn't work.`)?"""
    cards = _CARDS_AT_START.match(text, play.start)
    return cards is not None and called_wrong(text, cards.end())


# where a clause ends: a comma, colon or dash, a word that opens a reason (`Play 3 because the opponent has
# 5 5.`) or what the play forces (`Leading 3 forces them to answer with 5.`), or cards kept beside the play
# (`I play 3 and keep the 2.`, `I play the 3 to keep the A.`)
_CLAUSE_END = re.compile(
    r"[,，:：—–]|\s-\s|\s(?=(?:because|since|as|so that|while|whereas|which|when|forc(?:e|es|ing))\b)"
    r"|\s(?=(?:and|to|in order to)\s+(?:keep|save|hold|leave|preserve)\b)",
    re.IGNORECASE,
)


# a clause that gives a reason (`since the 2 is my control card`): its cards explain the play, as gomoku's do
_A_REASON = re.compile(r"\s*(?:because|since|so that)\b", re.IGNORECASE)


def _own_clauses(line: str) -> str:
    """`line` without what is not our play: the clauses about the other side, kept cards or a later
    turn (with the bare cards that go on listing it: `3 first, then 6, J, A, 2.`), and the sentences
    that say what happens if (each left as a sentence end, so runs never join across)."""
    kept = []
    for sentence in re.split(r"(?<=[.!?;。！？；])", line):
        if OPENS_A_PLAN.search(sentence) or tells_a_later_turn(sentence):  # `If they play K, …`, `Step 2: then …`
            kept.append(". ")
            continue
        # a later turn's or the other side's clause, and the bare cards that go on listing it (`then 6, J,
        # A`, `the opponent can only answer with 5, 8 or K`)
        not_ours, start = False, 0
        for end in [*(m.start() for m in _CLAUSE_END.finditer(sentence)), len(sentence)]:
            clause, start = sentence[start:end], end  # each clause with the mark that opened it (`5? No, too slow`)
            listing = not_ours and _ONLY_CARDS.fullmatch(clause.lstrip(",，:：—–- \t")) is not None
            not_ours = (
                bool(_LATER.search(clause) or their_move(clause, _ROLES) or _KEPT.search(clause))
                or bool(_A_REASON.match(clause.lstrip(",，:：—–- \t")))
                or listing
            )
            kept.append(". " if not_ours else clause)
    return "".join(kept)


def sentence_play(text: str, on_table: Hand | None = None) -> Found:
    """The play the last non-empty line (past lines after it under a label that describes: `Remaining
    hand: 6 J A 2`, and a few lines of talk that name no card and take nothing back: `Hope this
    helps!`) names in its sentences: its one run of cards (runs the
    text rejects, `not 3`, left out), PASS where it names no card and says pass; where it names
    different plays, the one in the sentences that say what they answer (`locate.ANSWER_WORDS`), or
    none. A second play offered (`3 or J`), or cards beside a pass, are one answer too many. Where
    the line names several, what is not our play (the other side's reply, cards kept, what happens
    if) is left out first: `Play the single 3; the opponent must answer with 5.` plays 3; so is the
    play `on_table` that this one must beat (`To beat the 8, play K.` plays K: no play beats its equal)."""
    lines = [_stops_restored(line) for line in text.split("\n") if line.strip()]
    # lines after it that are not its play: talk (`Hope this helps!`: no cards, nothing that takes it back, or a
    # play it rejects: `Avoid 7.`), a label that describes (`Remaining hand: 6 J A 2`, `Opponent: 5 5 8`, `Bad
    # move: 7`), the other side's (`They will probably answer with 5.`), an earlier try told (`I first
    # considered 8, but it does not work.`); and a later turn's, after the move now (`Play A.` / `Then play
    # 3.`), with what follows it; in any order (`I play 9.` / `The opponent then plays 4.` / `After that, 4.`)
    rejected: set[Hand] = set()  # plays a line after it names and rejects (`Not A.`, `A? No.`, `Avoid 3.`)
    for _ in range(MOST_TALK_LINES):
        lines_before, aside = len(lines), 0
        while len(lines) > 1 and aside < MOST_TALK_LINES:
            named = _rejected_plays(lines[-1])
            if named:
                rejected |= named
            elif _names_nothing(lines[-1]):
                if talk_takes_back(lines[-1]):
                    return Found(None, CALLED_WRONG)  # `I play 3.` then `Hmm, wait.` or `Oops, I made a mistake.`
            elif not _not_our_play(lines[-1]):
                break
            lines.pop()
            aside += 1
        if len(lines) > 1 and any(map(tells_a_later_turn, lines[1:])):
            naming = without_later_turns(
                [k for k, line in enumerate(lines) if not _names_nothing(line)], lines.__getitem__
            )
            lines = lines[: naming[-1] + 1] if naming else lines
        # lines that only discuss another play after the one the text states (`So I play A.` / `The tempting 3
        # does nothing.`): never the answer (rule 4, docs/answers.md)
        if len(lines) > 1 and not _states_our_play(lines[-1]):  # (most texts end on the line that states it)
            naming = [k for k, line in enumerate(lines) if len(line) > MAX_SENTENCE or not _names_nothing(line)]
            kept = without_mentions_after_the_answer(naming, lines.__getitem__, _states_our_play)
            lines = lines[: kept[-1] + 1] if kept else lines
        if len(lines) == lines_before:
            break
    if not lines or len(lines[-1]) > MAX_SENTENCE:
        return Found(None)
    line = with_counts_written_out(without_asides(lines[-1]))
    if their_move(lines[-1], _ROLES) and _names_nothing(_own_clauses(line)):
        return Found(None, THEIRS_NAMED)  # `The opponent will play 3.` / `I'd rather keep it.`: never ours
    found = _play_in(line, on_table)
    if found.play is None and not found.why and ASIDE.search(lines[-1]):  # `Best: Option 2 (3)`: the aside holds it
        found = _play_in(with_counts_written_out(lines[-1]), on_table)
    if found.play is None and found.why and found.why != CALLED_WRONG:  # never past words that call it wrong
        own = _own_clauses(line)
        if own != line:
            mine = _play_in(own, on_table)
            found = mine if mine.play is not None else found
    if rejected and found.play is not None and _as_hand(found.play) in rejected:
        return Found(None, CALLED_WRONG)  # `Play 3.` / `Avoid 3.`: the text calls its play wrong
    return found


def _rejected_plays(line: str) -> set[Hand]:
    """The plays a line names and rejects, playing none (`Not A.`, `A? No.`, `Avoid 3.`, `Not PASS.`, `A
    loses to 2.`: {A}; the reply a play loses to is the other side's, never rejected); empty where it
    plays one, or names none."""
    written = with_counts_written_out(without_asides(line))
    runs = [run for run in _runs(written) if run.cards]
    passes = list(_PASS_IN_SENTENCE.finditer(written))
    found = _play_in(written)
    if not (runs or passes) or found.play is not None or found.why not in ("", CALLED_WRONG):
        return set()  # no cards, a play, or not one (`3. Finish with A.`: two plays named, none rejected)
    named = [" ".join(run.cards) for run in runs if not replies_at(written, run.start)]
    return {_as_hand(cards) for cards in named + ["PASS"] * bool(passes)} - {_NO_HAND}


_NO_HAND: Hand = ()  # what `_as_hand` gives text that is no cards
_PASS_HAND: Hand = (-1,)  # and a pass


def _as_hand(cards: str) -> Hand:
    """The play `cards` names, to compare plays however written (`3 3`, `33`, `PASS`)."""
    if cards.strip(_PASS_STRIP).lower() in PASS_WORDS:
        return _PASS_HAND
    try:
        return parse_cards(cards)
    except ValueError:
        return _NO_HAND


def _not_our_play(line: str) -> bool:
    """Does a line after the play name cards that are not our play: under a label that describes
    (`Remaining hand:`, `Bad move:`; never `Step 2:`), as the other side's (`locate.their_move`), as
    an earlier try told (`locate.tells_an_earlier_try`), or only in clauses that are not ours
    (`_own_clauses`: `This keeps the 2 for later.`)?"""
    described = not _A_STEP.match(line) and any(rank(span) == 0 for span in labelled(line))
    if described or their_move(line, _ROLES) or tells_an_earlier_try(line):
        return True
    return not _names_nothing(line) and _names_nothing(_own_clauses(with_counts_written_out(line)))  # `Keep the 2.`


def _states_our_play(line: str) -> bool:
    """Does `line` name a play and state it as ours now (`locate.states_the_move_now`: `So I play A.`,
    `Play 3.`, `**3**`), neither rejecting it nor giving it as another's or as cards kept?"""
    if len(line) > MAX_SENTENCE:
        return True  # too long to read as a sentence: no line after it is passed over as a mention
    return bool(_preferred(line)) or (
        not _names_nothing(line) and states_the_move_now(line) and not _not_our_play(line) and not _rejected_plays(line)
    )


def _names_nothing(line: str) -> bool:
    """Does a line name no play and no pass (`Hope this helps!`, `This keeps the 2 for later` names one)?"""
    found = _play_in(with_counts_written_out(without_asides(line)))
    return found.play is None and not found.why


class _Run(NamedTuple):
    """Card tokens in a row in a line: one play, as far as the words go."""

    sentence: int  # which sentence of the line it is in
    start: int
    end: int
    cards: list[str]


def _runs(line: str, on_table: Hand | None = None) -> list[_Run]:
    """The runs of card tokens in `line`, and each word between them as an empty run (it ends a run)."""
    found: list[_Run] = []
    sentence = end = 0
    for m in _TOKEN.finditer(line):
        token = m.group()
        if _RUN_GAP.fullmatch(token):
            continue  # a separator: the gap to the next token holds it
        if _CARD_TOKEN.fullmatch(token):
            gap = line[end : m.start()]
            if found and found[-1].cards and found[-1].sentence == sentence and _RUN_GAP.fullmatch(gap):
                if not _KICKER_JOIN.search(gap) or _trio_and_kicker(found[-1].cards, line, m.start(), on_table):
                    found[-1].cards.append(token)  # the run goes on
                    found[-1] = found[-1]._replace(end=m.end())
                    end = m.end()
                    continue
            found.append(_Run(sentence, m.start(), m.end(), [token]))
        else:
            found.append(_Run(sentence, m.start(), m.end(), []))  # a word ends the run
            sentence += bool(_SENTENCE_END.fullmatch(token))
        end = m.end()
    return found


def _play_in(line: str, on_table: Hand | None = None) -> Found:
    """The play `line` names (see `sentence_play`)."""
    turned = turned_to(line)
    if turned is not None:  # `Play: 3 — sorry, I mean 7 7`, `3, or rather 7 7`: the play it turns to, if it names one
        later = _play_in(line[turned:], on_table)
        if later.play is not None:
            return later
    found = _runs(line, on_table)
    named = [run for run in found if run.cards and not _rejected(line, run.start)]
    wrong = [run for run in named if called_wrong(line, run.end)]  # `A or 2 would be a mistake`
    kept = [run for run in named if run not in wrong]
    passes = [  # `Play the 3, not a pass.`, `Worst: PASS`, `PASS ❌`: a pass rejected is none
        _Run(len(_SENTENCE_END.findall(line, 0, m.start())), m.start(), m.end(), ["PASS"])
        for m in _PASS_IN_SENTENCE.finditer(line)
        if not _rejected(line, m.start()) and not called_wrong(line, m.end())
    ]
    tried = earlier_tries(line)  # `**A** I considered 3, but it loses.`: 3 was tried
    untried = [run for run in kept if not any(start <= run.start < end for start, end in tried)]
    if kept and not untried and not passes:
        return Found(None, CALLED_WRONG)  # `I considered 3, but it loses.`: no play of ours
    kept = untried
    # a pass named beside cards is one play among them (`So I play 2. I considered a pass, but it loses.`)
    plays = sorted([run._replace(cards=[" ".join(run.cards)]) for run in kept] + passes, key=lambda play: play.start)
    if plays and wrong:  # `I'll go with A. Playing 3 is a mistake.`: that denial speaks of 3
        if taken_back(_without_sentences_about(wrong, plays, line), plays[-1].end):
            return Found(None, CALLED_WRONG)
    elif (plays or named) and taken_back(line, (plays or named)[-1].end):  # `I play 3. That's wrong.`
        return Found(None, CALLED_WRONG)
    if not kept:
        return Found("PASS") if passes else Found(None)
    between = (line[a.end : b.start] for a, b in zip(plays, plays[1:]))  # an "or" between plays offers
    if OFFERS.search(line) or any(offers(words) for words in between):
        return Found(None, TWO_PLAYS)
    runs = [(play.sentence, play.cards[0]) for play in plays]
    last = plays[-1]
    sentences = _SENTENCE_END.split(line)
    stop = _SENTENCE_END.search(line, last.end)  # `Wait, is A better? No.`: a question replaces nothing
    asked = stop is not None and stop.group() in "?？"
    replaces = (reconsiders(sentences[last.sentence]) and not asked) or prefers_the_move(line, last.start, last.end)
    if len({_as_hand(cards) for _, cards in runs}) > 1 and replaces:
        return Found(runs[-1][1])  # `Play 3. Actually, 2 is better.`, `Play 3. Pass is better.`: the later replaces it
    if len({_as_hand(cards) for _, cards in runs}) > 1 and on_table is not None:
        runs = [(at, cards) for at, cards in runs if _as_hand(cards) != on_table] or runs  # `To beat the 8, play K.`
    if len({_as_hand(cards) for _, cards in runs}) == 1:
        return Found(runs[-1][1])
    if (
        len({at for at, _ in runs}) > 1
    ):  # `**A**. The tempting 3 does nothing.`: the one play its stating sentences name
        stating = [at for at in sorted({at for at, _ in runs}) if _states_our_play(sentences[at])]
        stated = {_as_hand(cards): cards for at, cards in runs if at in stating}
        stops = [m.end() for m in _SENTENCE_END.finditer(line)]
        after = line[stops[stating[0]] :] if stating and stating[0] < len(stops) else ""  # with its stops (`? No.`)
        if len(stated) == 1 and not doubts_after(after, lambda s: bool(_rejected_plays(s))):
            return Found(next(iter(stated.values())))
    answering = {  # never the other side's sentence (`…; they'd probably play 5.`)
        _as_hand(cards): cards
        for at, cards in runs
        if ANSWER_WORDS.search(sentences[at]) and not their_move(sentences[at], _ROLES)
    }
    return Found(next(iter(answering.values()))) if len(answering) == 1 else Found(None, TWO_PLAYS)


_A_NO = re.compile(r"[^\w\n]*(?:no|nope)\b", re.IGNORECASE)


def _without_sentences_about(wrong: list[_Run], kept: list[_Run], line: str) -> str:
    """`line` with each sentence that names only plays it calls wrong (`wrong`, none of `kept`:
    `Playing 3 is a mistake.`) blanked, positions kept: its words deny those plays, not the one before."""
    ends = [m.end() for m in _SENTENCE_END.finditer(line)]
    about_others = {run.sentence for run in wrong} - {run.sentence for run in kept}
    spans = list(zip([0, *ends], [*ends, len(line)]))
    for k, (start, end) in enumerate(spans[1:], 1):  # `A? No, too slow.`: the "No" answers the question
        if k - 1 in about_others and line[spans[k - 1][1] - 1] in "?？" and _A_NO.match(line, start, end):
            about_others.add(k)
    return "".join(
        " " * (end - start) if k in about_others else line[start:end] for k, (start, end) in enumerate(spans)
    )


def _rejected(line: str, at: int) -> bool:
    """Do the words before the play at `at` reject it (`not 3`, `instead of PASS`) or label it a
    mistake (`Worst: PASS`, `Bad play: 3`)?"""
    return (
        _REJECTED.search(line, 0, at) is not None or UNDER_A_MISTAKE_LABEL.search(line, max(0, at - 24), at) is not None
    )


def _trio_and_kicker(cards: list[str], line: str, at: int, on_table: Hand | None) -> bool:
    """Do the cards before a "with"/带 and the run that starts at `at` make a trio or four with its
    kickers (`2 2 2 with K K`, `K K with 2 2 2`), rather than two plays (`beat 8 with K`, `beat 3 3 3
    with 5 5 5`, the first being the play on the table)?"""
    after = _RUN_AFTER.match(line, at)
    try:
        before, kicker = parse_cards(" ".join(cards)), parse_cards(after.group() if after else "")
    except ValueError:
        return False
    return before != on_table and kicker != on_table and (max(before) >= 3 or max(kicker) >= 3)


_RUN_AFTER = re.compile(rf"{_CARD}(?:[\s,+/、，-]+{_CARD}(?![A-Za-z0-9]))*")  # the run a kicker may be


# cards named by their count and rank in words (`a pair of 3s`, `three kings`, `bomb of 5s`, `the black
# joker`): the cards themselves, so that the play they name is read, never a single of that rank
_RANK_WORDS = {
    "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7", "eight": "8", "nine": "9", "ten": "10",
    "jack": "J", "queen": "Q", "king": "K", "ace": "A", "two": "2",
}  # fmt: skip
_RANK = r"(10|[2-9TJQKA]|three|four|five|six|seven|eight|nine|ten|jack|queen|king|ace|two)"
_COUNTED = re.compile(
    rf"(?<![A-Za-z])(?:(?:a|an|the)\s+)?(?:(?P<name>pair|trio|triple|bomb)\s+of\s+{_RANK}(?:'?s|es)?"
    rf"|(?P<count>two|three|four)\s+{_RANK}(?:'?s|es))(?![A-Za-z])",
    re.IGNORECASE,
)
_COUNTS = {"pair": 2, "trio": 3, "triple": 3, "bomb": 4, "two": 2, "three": 3, "four": 4}
# a straight named by its ends (`the straight from 3 to 7`, `a run of 3 through 7`, `the 3-to-7 straight`,
# `3 to 7 straight`): every rank between them, as a straight is written; never where 2 or a joker would be in it
_STRAIGHT_ENDS = re.compile(
    rf"(?<![A-Za-z])(?:(?:a|an|the)\s+)?(?:(?:straight|run|sequence)\s+(?:of\s+|from\s+)?{_RANK}\s*(?:to|through|thru|[-–])\s*{_RANK}"
    rf"|{_RANK}\s*(?:to|through|thru|[-–])\s*{_RANK}\s+(?:straight|run|sequence))(?![A-Za-z])",
    re.IGNORECASE,
)
_STRAIGHT_RANKS = "3456789TJQKA"  # a straight's ranks, in order
# and in Chinese: `一对3`, `对K`, `三个K`, `三张5`, `两个2`, a rank as a numeral (`对三`), the rocket `王炸`
_CN_RANKS = {"三": "3", "四": "4", "五": "5", "六": "6", "七": "7", "八": "8", "九": "9", "十": "10", "二": "2"}
_CN_COUNTED = re.compile(r"(?:一?对|(?P<count>两|三|四)[个张])(?P<rank>10|[2-9JQKA]|[三四五六七八九十二])")
_CN_COUNTS = {None: 2, "两": 2, "三": 3, "四": 4}
_JOKERS = re.compile(r"\b(?P<colour>black|small|little|red|big|large)[\s_-]*joker\b|小王|大王", re.IGNORECASE)
# the two jokers named together: one play, the rocket (`the black joker and the red joker`, `both jokers`)
_ROCKET = re.compile(
    r"\b(?:(?:the\s+)?(?:black|small|little)[\s_-]*joker\s+(?:and|&|\+)\s+(?:the\s+)?(?:red|big|large)[\s_-]*joker"
    r"|(?:the\s+)?(?:red|big|large)[\s_-]*joker\s+(?:and|&|\+)\s+(?:the\s+)?(?:black|small|little)[\s_-]*joker"
    r"|both\s+jokers|the\s+two\s+jokers|(?:the|a)\s+rocket|(?:the|a)\s+joker\s+bomb)\b|大小王|王炸",
    re.IGNORECASE,
)
_SUITS = re.compile(r"[♠♥♦♣♤♡♢♧]\ufe0f?")
# a number that numbers an option, a choice or a step (`option 2`, `choice 3`, `#2`, `Step 2`): no card (written
# `option 2th`, a number with letters attached); never the "No." that answers a question (`What about A? No. 3.`)
_NUMBERED = re.compile(
    r"(?P<word>\b(?:option|choice|case|plan|variant|idea|approach|number|(?<![?!][ \t])no\.|step|stage|phase)[ \t]*|#)"
    r"(?P<number>\d{1,2})\b",
    re.IGNORECASE,
)


def with_counts_written_out(text: str) -> str:
    """`text` with cards named in words written as the cards (`a pair of 3s` is `3 3`, `three kings`
    `K K K`, `the black joker` `BJ`, `一对3` `3 3`, the rocket `王炸`, `both jokers` or `the black joker
    and the red joker` `BJ RJ`, `the straight from 3 to 7` `3 4 5 6 7`) and suits dropped (`3♠ 3♥` is
    `3 3`: a suit has no rank)."""
    if "joker" in text.lower() or "王" in text or "rocket" in text.lower():
        text = _JOKERS.sub(_joker, _ROCKET.sub(" BJ RJ ", text))
    if not text.isascii():
        text = _CN_COUNTED.sub(_counted_in_chinese, text)
    if _STRAIGHT_WORD.search(text):
        text = _STRAIGHT_ENDS.sub(_straight, text)
    text = _COUNTED.sub(_counted, _NUMBERED.sub(r"\g<word>\g<number>th", text))
    return _SUITS.sub("", _ONE_CARD_NAMED.sub(_one_card, text))


_STRAIGHT_WORD = re.compile(r"straight|run|sequence", re.IGNORECASE)
# one card named by its rank in words after an article (`Lead the ace.`, `Play the three.`, `a king now`): a face
# card anywhere but before "of"; a number only where nothing it could count follows (never `the three remaining`)
_ONE_CARD_NAMED = re.compile(
    r"(?<![A-Za-z])(?P<article>(?:the|a|an|single|lone|my)\s+)"
    r"(?:(?P<face>jack|queen|king|ace)(?!\s+of\b)"
    r"|(?P<number>two|three|four|five|six|seven|eight|nine|ten)"
    r"(?=\s*(?:[.,;:!?)]|$)|\s+(?:now|first|here|then|as|card|single|to)\b))(?![A-Za-z'’-])",
    re.IGNORECASE,
)


def _one_card(m: re.Match[str]) -> str:
    """`the ace`: `the A`."""
    return m.group("article") + _RANK_WORDS[(m.group("face") or m.group("number")).lower()]


def _straight(m: re.Match[str]) -> str:
    """`the straight from 3 to 7`: `3 4 5 6 7`; as written where the ends make no straight."""
    low, high = (g for g in m.groups() if g)
    ranks = [_RANK_WORDS.get(end.lower(), end.upper()).replace("10", "T") for end in (low, high)]
    first, last = (_STRAIGHT_RANKS.find(rank) for rank in ranks)
    if first < 0 or last - first < 4:  # 2 or a joker, or fewer than five ranks: no straight
        return m.group()
    return " " + " ".join(_STRAIGHT_RANKS[first : last + 1]) + " "


def _joker(m: re.Match[str]) -> str:
    black = m.group() == "小王" or (m.group("colour") or "").lower() in ("black", "small", "little")
    return " BJ " if black else " RJ "


def _counted(m: re.Match[str]) -> str:
    """`a pair of 3s`, `three kings`: the rank, as many times as the words count."""
    word = m.group(2) or m.group(4)
    rank = _RANK_WORDS.get(word.lower(), word.upper())
    return " ".join([rank] * _COUNTS[(m.group("name") or m.group("count")).lower()])


def _counted_in_chinese(m: re.Match[str]) -> str:
    """`一对3`, `三个K`: the rank, as many times as the words count."""
    rank = _CN_RANKS.get(m.group("rank"), m.group("rank"))
    return " " + " ".join([rank] * _CN_COUNTS[m.group("count")]) + " "


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
        plain = _SINGLE.sub(" ", without_asides(with_counts_written_out(raw)))
        if plain == raw:
            raise
        cards = parse_cards(plain)
    if not any(cards):
        raise ValueError("no cards named")
    return cards

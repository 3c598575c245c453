"""Candidate places of a one-line final answer, found from the text's structure rather than a word
list (docs/answers.md): a verifier tries them, last first, with its own parser, and takes the first
that parses as its answer.

- **labelled**: a line that opens with a label, recognised by its shape: a short phrase (at most four
  words, or eight ending in an answer's word, no digit) ending in a colon of any width and spacing
  (`Lösung:`, `答え：`, `정답:`, `Réponse :`, `**Final answer:**`), or a key of a JSON or YAML object (`"answer": "…"`); the answer is
  the rest of the line, or the next non-empty line where the label stands alone;
- **cell**: the last cell of a table row whose first cell is such a label (`| answer | … |`), or a
  cell under a header that is an answer's label (`| Expression | Value |`);
- **sentence**: in the last non-empty line (the conclusion's place), each stretch from a character
  that can open an expression to the end of the line, longest first (`Putting it together, (8 − 4) ·
  6 gives 24.`, `24 can be made as (8 + 4) × (6 − 4).`), for a verifier that reads commentary after
  its answer;
- **line**: the last non-empty line, and **whole**: the whole text (an unmarked answer).

Every scan is linear in the text.
"""

from __future__ import annotations

import json
import re
from typing import Callable, Iterable, NamedTuple, TypeVar

T = TypeVar("T")

_LABEL = re.compile(
    r"^[ \t>#*_\-•]*"  # heading, quote, list and bold markers
    r"(?P<label>[^\W\d_][^\n:：\d]{0,40}?)"  # a short phrase without digits
    r"[ \t*_]*[:：][ \t*_]*(?P<rest>[^\n]*)$",
    re.MULTILINE,
)
_KEY = re.compile(
    r"""^[ \t{,]*["']?(?P<label>[^\W\d][\w ]{0,30}?)["']?[ \t]*:[ \t]*["']?(?P<rest>[^\n"']*)["']?[ \t,}]*$""",
    re.MULTILINE,
)
_FENCE = re.compile(r"[ \t]*(?:`{3,}|~{3,})[\w+-]*[ \t]*")  # a code fence's opening or closing line
_ROW = re.compile(r"^[ \t]*\|(?P<cells>[^\n]*)\|[ \t]*$", re.MULTILINE)
_GAP = r"[\s\u200b-\u200d\u2060\ufeff\ufe00-\ufe0f]*"  # spaces and invisible characters (a reader drops them)
_EXPRESSION_START = re.compile(r"[(\[0-9$]|\\(?:[A-Za-z]+|[(\[])")  # `$…$`, `\(…\)` and `\Big(` open one too
# what an expression's start never follows: a word it would be inside (or a factorial's `!`), or,
# spaces and invisible characters apart, a number, an operator it would drop (`√14`, `2^14`, `2 * 14`),
# a bracket that closes one (`2 (14 + 17)`, an implicit product); a `*` after no operand is emphasis
# (`So **(14 + 17)**`)
# a character an expression never opens after: a word, an operator, a closed group, and the comma or "and" of a
# list of numbers (`Using 4, 4, 6 and 8: …`: its last number is no start)
_NOT_A_START_AFTER = re.compile(
    rf"[A-Za-z.!]$|[A-Za-z0-9]_$|(?:[0-9^√∛∜−+/×÷·⋅\\)\]}}-]|[0-9)\]}}][ \t]*\*|[0-9],[ \t]*|[0-9],?[ \t]+(?:and|&)[ \t]+){_GAP}$"
)
_BEFORE_A_START = 8  # characters before a start read for what it follows
# a numbered label's number (`Attempt 2: …`, `Try #2: …`, `解法2：…`): a word, perhaps `#`, then the number and a
# colon; the label's, never the start of the answer after it (`2: (6 - 4) * …` read a value of 2)
_LABEL_NUMBER = re.compile(r"\d{1,3}[ \t]*(?:：|:(?!\d))")  # `2:3` is a ratio; a full-width colon needs no space
_WORD_BEFORE_A_NUMBER = re.compile(r"[^\W\d_]\.?[ \t]*[#№]?[ \t]*$")
_AFTER_AN_OPERAND = re.compile(r"[\d)\]}](?P<between>[^\d\n]*)$")  # the words after the last operand before a start
# words just before an expression that deny it (`Not 8*3-8-3 = 13; or rather, …`, `rather than 8 * 3`, `Unlike 8 * 3`)
_DENIED_BEFORE = re.compile(r"\b(?:not|never|rather than|instead of|unlike|avoid)[ \t]+$", re.IGNORECASE)
_LIST_MARKER = re.compile(r"[ \t>]*(?:[-+*•◦▪‣]|\d{1,2}[.)])[ \t]+")
_EMPHASIS_BEFORE = re.compile(r"(?<![^\s(:：])(?:\*{1,3}|_{1,2}|`)$")  # emphasis that opens at an expression
# words that offer a second answer beside the first: two answers are one too many (docs/answers.md);
# every verifier's reader refuses them from this one list ("otherwise" after a modal, or before what a
# player then does, or at a clause's end, is a condition, never an offer: `block at I5, since X would otherwise
# complete five`, `Block at I5; otherwise X wins.`, `F8 would be strong otherwise, but …`)
_A_CONSEQUENCE = (  # `otherwise X wins`, `otherwise the opponent plays 5`, `otherwise we lose`
    r",?[ \t]+(?:(?:X|O|black|white|the (?:opponent|landlord|farmers?|peasants?|other side)|opponent|they|he|she|it)"
    r"[ \t]+(?:\w+[ \t]+)?(?:wins?|loses?|lost|completes?|gets?|makes?|will|would|can|could|might|threatens?|plays?"
    r"|leads?|answers?|responds?|takes?|has)|(?:we|I|you)[ \t]+(?:\w+[ \t]+)?(?:lose|lost))\b"
)
_AT_A_CLAUSE_END = r"[ \t]*(?:[.;)!?]|,?[ \t]*but\b|$)"  # `F8 would be strong otherwise, but …`: a condition
HEDGE_WORDS = (
    rf"alternatively|alternatives?|(?<!would )(?<!could )(?<!will )(?<!might )otherwise(?!{_A_CONSEQUENCE}|{_AT_A_CLAUSE_END})|another (?:way|approach|solution|version|option|implementation|one|answer)"
    r"|another(?=[ \t*_]*(?:[:：]|$))"
    r"|or you could|you could also|simpler (?:one|version|solution|way|approach)|other (?:options?|solutions?)"
    r"|(?:would |will |could )?also (?:[^.!?\n]{1,40}? )?(?:works?|wins?|valid|correct|fine|good|possible|playable|acceptable|viable"
    r"|worth considering|an option)|works too|would work too|(?:works?|would work|could work) as well"
    r"|(?:equally|just as) (?:good|strong|valid|viable|fine)"
    r"|option \d|approach \d|candidate \d|if you(?: would|'d)? (?:prefer|like|want)|variant\b"
    # the same in other languages (German, French, Spanish, Portuguese, Italian, Russian)
    r"|alternativ|alternativement|alternativamente|in alternativa|альтернативно"
    r"|eine andere (?:lösung|möglichkeit|antwort)|une autre (?:solution|réponse|possibilité)|ou bien|ou encore"
    r"|otra (?:solución|respuesta|opción)|o bien|o también|outra (?:solução|resposta|opção)|un'altra soluzione"
    r"|другое решение|или же|geht auch|funktioniert auch|marche aussi|fonctionne aussi|también funciona"
    r"|também funciona"
)
# the same where words are not spaced (Chinese, Japanese): no word boundary stands around them
_UNSPACED_HEDGES = "或者|还可以|也可以|または|あるいは|もしくは|別解|또는|혹은"
# "or" in the languages whose word for it is a word of its own (never the Spanish and Italian "o": a
# letter and a side's name)
_OR_WORDS = r"or|oder|ou|oppure|или"
# a second answer offered in the words between two answers: a hedge word, or a line that opens with
# "or" ("or better" and "or rather" replace the earlier answer instead)
OFFERS = re.compile(
    rf"\b(?:{HEDGE_WORDS})\b|{_UNSPACED_HEDGES}"
    rf"|^[^\w\n]*(?:{_OR_WORDS})\b(?![ \t,]*(?:even )?(?:better|rather|equivalently))",
    re.IGNORECASE | re.MULTILINE,
)
# between two answers side by side (`<move>3</move> or <move>4</move>`), a bare "or" offers too
_OR = re.compile(
    rf"\b(?:{_OR_WORDS})\b(?![ \t,]*(?:even )?(?:better|rather|equivalently))|或|または|또는", re.IGNORECASE
)
SIDE_BY_SIDE = 40  # characters between two answers on one line that read as one choice between them
MOST_LABEL_WORDS = 4
MOST_LEAD_LABEL_WORDS = 8  # a label's words with lead words before an answer's (`So, putting it together, the answer:`)


def offers(between: str) -> bool:
    """Do the words between two different answers offer the later beside the earlier: a hedge word,
    a line opening with "or", or a bare "or" between two answers side by side on one line?"""
    if OFFERS.search(between) is not None:
        return True
    return len(between) <= SIDE_BY_SIDE and "\n" not in between and _OR.search(between) is not None


# a line that opens with a label or a key (`Alternative: A1`, `"alternatives": ["A1"]`)
_KEY_LINE = re.compile(r"^[ \t>*_\-•]*[\"']?(?P<key>[^\W\d][\w ]{0,30}?)[\"']?[ \t*_]*[:：][^\n]*", re.MULTILINE)


def offered_after(text: str, end: int) -> list[str]:
    """The pieces after an answer that ends at `end` which offer something beside it: the rest of
    its line where that offers (a JSON object's `"alternatives": ["A1"]` after its `"move"`), each
    later line whose label or key offers (`Alternative: A1`, `"other options": [...]`), and each
    later line whose words offer (`Alternatively, A1.`, `A1 is equally good.`). A verifier refuses
    where one names an answer other than its own that it does not call wrong (rule 5: one answer
    too many; `Alternatives like A1 lose at once.` offers none)."""
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    keys = {m.start(): m.group() for m in _KEY_LINE.finditer(text, line_end) if offers(m.group("key"))}
    lines = {m.start(): m.group() for m in _NON_EMPTY_LINE.finditer(text, line_end) if OFFERS.search(m.group())}
    pieces = [piece for _, piece in sorted({**lines, **keys}.items())]
    rest = text[end:line_end]
    return [rest, *pieces] if offers(rest) else pieces


# a line after the answer that says no answer exists (`There is no solution.`, `No valid solution
# exists.`, `这题无解`): the text ends taking its answer back, a second, different final answer
DENIALS = re.compile(
    r"(?:\bthere(?:'s| is| are| exists?) no (?:valid |possible |such |exact )?(?:solutions?|answers?)\b"
    r"|\bno (?:valid |possible |exact )?solutions? (?:exists?|is possible|(?:was |can be )?found)\b"
    r"|\b(?:is|seems|looks|be) (?:unsolvable|impossible to solve)\b|\bcannot be solved\b|无解|没有解"
    r"|\b(?:i|we) (?:give|gave) up\b"  # `Answer: …` then `I give up.`: it was no answer after all
    # the model says it found none (`I can't find one.`, `We couldn't find a solution.`), not a narrower one
    r"|\b(?:i|we) (?:can(?:'t|not)|could(?:n't| not)|(?:was|were) (?:not |un)able to|did(?:n't| not)) (?:find|get|solve)"
    r" (?:it|one|any(?:thing| solution| answer)?+|a (?:valid |working |correct )?(?:solution|answer|combination)|the answer)\b)"
    r"(?![ \t]+(?:using|without|if|unless|except|other than|that (?:uses|avoids)|only|better|else|simpler|faster"
    r"|shorter|more|other)\b)",  # a narrower claim
    re.IGNORECASE,
)


def denies(line: str) -> bool:
    """Does this line, after an answer, say that no answer exists, or that the answer is wrong?"""
    return DENIALS.search(line) is not None or REJECTS.search(line) is not None


# a line after the answer that calls it wrong, strikes it or admits a blunder (`No, that's wrong.`, `This is
# incorrect.`, `That doesn't work.`, `Scratch that.`, `Oops, …`, `Let me fix that.`), with no answer after it
# to replace it: the text takes its answer back
_WHAT_IS_WRONG = (  # `That's wrong.`, `This answer is incorrect.`, `The above SVG was wrong.`
    r"\b(?:that|this|it|the above|my)(?:[ \t]+(?:answer|drawing|svg|image|picture|move|play|solution|expression"
    r"|code|program|function|version|one))?"
)
_CALLS_IT_WRONG = (
    rf"{_WHAT_IS_WRONG}(?:(?:'s| is| was) (?:wrong|incorrect|invalid|not (?:right|correct|valid))\b"
    r"| (?:does(?:n't| not)|won't|will not) work\b)"
)
REJECTS = re.compile(
    r"\b(?:scratch|strike) (?:that|this)\b|\b(?:disregard|ignore|forget) (?:that|this|the above|my (?:last |previous )?answer)\b"
    rf"|^[^\w\n]*(?:no|nope)[,.!]|{_CALLS_IT_WRONG}"
    # a blunder admitted, and nothing after it to mend it (`Oops, the circle is lopsided.`, `I made a mistake.`)
    r"|^[^\w\n]*(?:oops|whoops|uh[- ]?oh|my bad)\b"
    r"|\b(?:i|we)(?: have|'ve)? made (?:a |an )?(?:mistake|error|blunder|typo)(?:[ \t]+(?:here|there|above))?[ \t]*[.!]?[ \t]*$"
    r"|\blet me (?:fix|correct|redo|re-do) (?:it|that|this|the \w+)[ \t]*[.!:]?[ \t]*$",  # a mend promised, never given
    re.IGNORECASE,
)


# Which answer a denial's "that" means: a line that names an attempt of its own before words that call
# "that" wrong (`Note that 8 * 4 - 6 - 4 = 22, so that does not work.`, `A1 would be pointless: that
# does not work.`) speaks of its attempt, not of the answer before it. Only the verifier knows what
# an attempt other than its answer is: it passes `names_another` (the words before the denial -> do
# they name one?) to `taken_back`, `lines_deny`, `denial_at` and `after_a_denial`
NamesAnother = Callable[[str], bool]
_PRONOUN_DENIAL = re.compile(_CALLS_IT_WRONG, re.IGNORECASE)


def _denies_the_answer(line: str, before: str, names_another: NamesAnother | None) -> bool:
    """Does `line` deny the answer before it (`denies`), where a pronoun's denial after an attempt of
    the line's own (`names_another`, on `before` and the line's words before the denial; `before` is
    a question it answers on the same line: `Why not A1? It doesn't work.`) speaks of that attempt?"""
    if not denies(line):
        return False
    if tells_an_earlier_try(line) and not _A_PRONOUNS_TRY.search(line):
        return False  # `Earlier I tried 8 * 4 - 6 - 4 = 22; no.`, `I first tried 5 + 11, but …`: its own try
    pronoun = _PRONOUN_DENIAL.search(line) if names_another else None
    if pronoun is None or not names_another(before + line[: pronoun.start()]):
        return True
    return denies(line[: pronoun.start()]) or denies(line[pronoun.end() :])


# words in the sentence that introduces an answer (a block, a drawing) that show it as what not to
# do, a mistake, a lesser one (`Second best:`) or an illustration beside the answer (`Don't do this:`, `A
# common mistake is to write:`, `For comparison, a naive version would be:`): not the model's answer (rule 6), where
# another is. A sentence that also says it fixes or replaces (`here is the fixed one; the old one was
# wrong:`) introduces the answer
SHOWN_NOT_ANSWERED = (
    "wrong", "incorrect", "broken", "buggy", "flawed", "faulty", "erroneous", "bad", "mistaken", "mistakes?", "invalid",
    "avoid", "what not to", "do not", "don't", "would look", "would be", "(?:second|next|2nd|third) best", "runner-up",
)  # fmt: skip
# words that set what follows beside the answer, whatever it is called (`For comparison, a correct
# version would be:`): no word of a fix makes it the answer
SHOWN_BESIDE = ("for comparison", "for contrast", "for reference", "to compare", "compare (?:it |this )?(?:with|to)")
FIXES = "fix fixed corrected correct right instead improved better revised updated final".split()
_SENTENCE_TAIL = r"[^\n.!?。]"  # the rest of the introducing sentence, up to the answer
_COUNTER_EXAMPLE = re.compile(rf"\b(?:{'|'.join(SHOWN_NOT_ANSWERED)})\b{_SENTENCE_TAIL}{{0,60}}$", re.IGNORECASE)
_BESIDE = re.compile(rf"\b(?:{'|'.join(SHOWN_BESIDE)})\b{_SENTENCE_TAIL}{{0,60}}$", re.IGNORECASE)
_INTRODUCES_A_FIX = re.compile(rf"\b(?:{'|'.join(FIXES)})\b{_SENTENCE_TAIL}*$", re.IGNORECASE)
_FENCE_OPENING = re.compile(r"\n[ \t]*(?:`{3,}|~{3,})[\w+-]*[ \t]*\n?[ \t]*$")


INTRODUCTION_CHARS = 200  # prose before an answer read for the sentence that introduces it


# a conclusion just before the answer (`…would be my choice, but it is not needed, so <move>C7</move>`): the
# words of a mistake before it speak of something else
_CONCLUDES_JUST_BEFORE = re.compile(
    r"\b(?:so|therefore|thus|hence|instead)\b[,:]?(?:[ \t]+(?:I|we)(?:'ll| will)?[ \t]+(?:play|choose|pick|go with|take))?$",
    re.IGNORECASE,
)


def counter_example(before: str) -> bool:
    """Does the prose just `before` an answer (up to its fence's opening line) introduce it as what
    not to do, a mistake, or an illustration beside the answer? Never where a conclusion opens just
    before it (`…, so`)."""
    introduction = _FENCE_OPENING.sub("", before).rstrip()
    if _CONCLUDES_JUST_BEFORE.search(introduction):
        return False
    if _BESIDE.search(introduction):
        return True
    return _COUNTER_EXAMPLE.search(introduction) is not None and _INTRODUCES_A_FIX.search(introduction) is None


def introduced_as_mistake(text: str, start: int) -> bool:
    """`counter_example` for the answer that starts at `start` in `text`."""
    return counter_example(text[max(0, start - INTRODUCTION_CHARS) : start])


# words in an answer's sentence, before it, that present it as the form to write rather than as the
# answer (`answer with a tag like <move>E5</move>`, `the format <move>E5</move>`, `e.g. <move>3 3</move>`)
_AS_THE_FORM = re.compile(
    r"(?:\be\.g\.|\bfor (?:example|instance)\b|\bsuch as\b|\b(?:looks?|something|write it|written|tags?|formatted)\s+like\b"
    r"|\bformat\b|\bin the form\b|\btemplate\b|\bexample\b)[^.!?\n]{0,40}$",
    re.IGNORECASE,
)
FORM_CHARS = 80  # prose before an answer read for words that present it as the form to write


def introduced_as_the_form(text: str, start: int) -> bool:
    """Do the words just before the answer at `start`, in its sentence, present it as the form to
    write (the prompt's format example, quoted)? A reader drops such an answer where the prompt's
    example is what it names and the text answers elsewhere (docs/answers.md, rule 6)."""
    return _AS_THE_FORM.search(text, max(0, start - FORM_CHARS), start) is not None


def not_shown_as_mistakes(found: list[T], text: str, start: Callable[[T], int]) -> list[T]:
    """`found` (answers in `text`, each starting at `start(answer)`) without those introduced as a
    mistake or a comparison, unless that leaves none (rule 6: such an answer is none where another is)."""
    return [answer for answer in found if not introduced_as_mistake(text, start(answer))] or found


ASIDE = re.compile(r"\([^()\n]*\)")  # a parenthesis after an answer: what it says explains the answer


def without_asides(text: str) -> str:
    """`text` without the parentheses that explain (`(blocking E5-H5)`, `(a single)`); one that offers
    another answer beside it (`(or G4)`, `(D5 also works)`) is kept: a second answer, no explanation;
    so is one that turns to what an arrow after it gives (`3 (oops, wrong one) -> 7 7`, `turned_to`)."""
    return ASIDE.sub(lambda m: m.group() if offers(m.group()) or _turns_by_an_arrow(m) else " ", text)


def _turns_by_an_arrow(aside: re.Match[str]) -> bool:
    """Does the parenthesis `aside` turn from what came before it to what an arrow after it gives
    (`(oops, wrong one) -> 7 7`)?"""
    return bool(TURNED_IN_A_CLAUSE.search(aside.group()) and _TURNED_BY_AN_ARROW.match(aside.string, aside.end()))


# an option's label where a line or a sentence starts (`Option A: lead 3`, `**Option 2**: I5`, `Choice B) …`)
_OPTION_STEMS = ("option", "choice", "plan", "candidate", "alternative")
_OPTION_WORDS = "|".join(_OPTION_STEMS)
_OPTION_STEM = re.compile(_OPTION_WORDS)  # on lowered text: a case-insensitive search costs 3 us a text
_OPTION_LABEL = re.compile(
    rf"(?:^|(?<=[.!?]))[ \t>*_#-]*\b(?:{_OPTION_WORDS})[ \t]+(?P<name>[A-Z]|\d{{1,2}})\b[*_]*[ \t]*[:)：—–-][ \t]*",
    re.IGNORECASE | re.MULTILINE,
)
# an option named as the choice (`I choose option A`, `Option 2 it is`): not its label
_OPTION_NAMED = re.compile(
    rf"\b(?:{_OPTION_WORDS})[ \t]+(?P<name>[A-Z]|\d{{1,2}})\b(?![*_]*[ \t]*[:)：—–-])", re.IGNORECASE
)
_OPTION_ENDS = re.compile(r"[.!?](?=\s|$)|\n")


def with_choices_resolved(text: str) -> str:
    """`text` where an option chosen by its name (`I choose option A`) is written as what that option's
    label said it is, and the options listed are left out (`Option A: lead 3.` `Option B: lead 2.`
    `I choose option A.` reads `I choose lead 3.`): the name of an option is no answer (read as a
    card, `option A` played an ace; read past, the last option listed was paid), and the options a
    choice settles are what it chose from, not answers offered beside it. Only an option labelled
    before the choice, and only once (two options of one name: left as written). A decision in the
    last line settles a choice offered before it (`_with_decision_labelled`)."""
    lowered = text.lower().replace("ı", "i")  # as IGNORECASE reads: a dotless i is an i
    if not _A_CHOICE_STEM.search(lowered):
        return text  # one plain test first: every score passes here, few texts decide or choose
    if _DECISION_STEM.search(lowered):
        text = _with_decision_labelled(text)
    if _PLACE_STEM.search(lowered):  # the plain test first (a case-insensitive search costs 1 us a text)
        text = _with_item_resolved(text)
    if not _OPTION_STEM.search(lowered) or not _OPTION_NAMED.search(text):
        return text  # the plain test first: every score passes here, few texts name an option
    said: dict[str, tuple[str, int]] = {}  # an option's name: what its label says, and where that ends
    listed: list[tuple[int, int]] = []  # where each option's label and what it says stand
    seen: set[str] = set()
    labels = list(_OPTION_LABEL.finditer(text))
    for k, label in enumerate(labels):
        name = label.group("name").upper()
        stop = labels[k + 1].start() if k + 1 < len(labels) else len(text)
        end = _OPTION_ENDS.search(text, label.end(), stop)
        what = text[label.end() : end.start() if end else stop].strip()
        listed.append((label.start(), end.end() if end else stop))
        if name in seen:
            said.pop(name, None)
        elif what:
            said[name] = (what, label.end())
        seen.add(name)
    chosen = [
        (m.start(), m.end(), said[name][0])
        for m in _OPTION_NAMED.finditer(text)
        if (name := m.group("name").upper()) in said and m.start() >= said[name][1]
    ]
    if not chosen:
        return text
    pieces, at = [], 0
    for start, end, what in sorted([(start, end, "") for start, end in listed] + chosen):
        if start >= at:  # an option's name inside another's text is left as written
            pieces += [text[at:start], what]
            at = end
    return "".join(pieces) + text[at:]


# a sentence that decides (`I'll go with A.`, `I choose A.`, `Let's go with A.`):
# never a choice of a course (`I choose to …`) or by place (`the first`: `_with_item_resolved`)
_DECISION_STEM = re.compile(  # on lowered text
    r"go with|choose|pick|select|settle|stick with|going with|选|決|choisis|prends|retiens|wähle|nehme|elijo|quedo con"
    r"|escolho|fico com|scelgo|выбираю"
)
_LAST_DECISION = re.compile(
    r"(?:^|(?<=[.!?…。！？])[ \t]+)[^\w\n]*(?:(?:so|ok(?:ay)?|then|fine|alright|hmm|well|in the end|finally),?[ \t]+)?"
    r"(?:I(?:'ll| will|'m going to| am going to)?|let's|let me|we(?:'ll| will)?)[ \t]+"
    r"(?:go with|choose|pick|select|settle (?:on|for)|stick with)[ \t]+(?!to\b|the[ \t]+(?:first|second|third|last|former|latter)\b)"
    # the same in other languages (`Je choisis A.`, `Ich nehme A.`, `Me quedo con A.`, `我选A。`)
    r"|(?:^|(?<=[.!?…。！？])[ \t]*)[^\w\n]*(?:je (?:choisis|prends|retiens)|ich (?:wähle|nehme)|(?:yo )?elijo|me quedo con"
    r"|escolho|fico com|scelgo|я? ?выбираю|我(?:最终|最後|还是)?(?:选择?|決定|决定)(?:出|下)?)[ \t]*[:：]?[ \t]*",
    re.IGNORECASE | re.MULTILINE,
)


def _with_decision_labelled(text: str) -> str:
    """`text` where a sentence of its last line decides between answers offered before it (`Answer: A, or maybe
    B... I'll go with A.`) reads as the final answer's label on a line of its own (`… B...` /
    `Final answer: A.`): the decision settles the choice, in every verifier, as a later `Final answer:`
    does. Only in the text's last line (words about it may follow there: `I'll go with A. It blocks.`),
    only after an offer (rule 5, docs/answers.md); a decision with no choice before it is read as it stands."""
    body = text.rstrip()
    decision = next(reversed(list(_LAST_DECISION.finditer(body))), None)
    if decision is None or "\n" in body[decision.end() :] or not _offered_before(body, decision.start()):
        return text
    return body[: decision.start()].rstrip(" \t") + "\nFinal answer: " + body[decision.end() :] + text[len(body) :]


def _offered_before(text: str, end: int) -> bool:
    """Is a second answer offered before `end`: a hedge, a line opening with "or", or a bare "or"?"""
    return OFFERS.search(text, 0, end) is not None or _OR.search(text, 0, end) is not None


# a list's item chosen by its place after the list (`The first one works.`, `the second option`): the item's
# words, as an option's name is its label's (`with_choices_resolved`)
_PLACES = {"first": 0, "1st": 0, "second": 1, "2nd": 1, "third": 2, "3rd": 2, "fourth": 3, "4th": 3, "last": -1}
_PLACE_STEM = re.compile(rf"the[ \t]+(?:{'|'.join(_PLACES)})\b")  # on lowered text
_ITEM_NAMED = re.compile(
    rf"\bthe[ \t]+(?P<place>{'|'.join(_PLACES)})[ \t]+(?:one|option|attempt|expression|solution|try|candidate"
    r"|answer|move|play|way|approach|formula|idea|item)\b",
    re.IGNORECASE,
)


_A_CHOICE_STEM = re.compile(f"{_DECISION_STEM.pattern}|{_PLACE_STEM.pattern}|{_OPTION_STEM.pattern}")


def _with_item_resolved(text: str) -> str:
    """`text` where the last item chosen by its place (`_ITEM_NAMED`) names an item of the list just
    before its line (`1. A` / `2. B` / `The first one works.` reads `The A works.`), with that list
    left out; else as it is. The list's items are what the choice chose from, not answers offered."""
    chosen = last_match(_ITEM_NAMED.finditer(text))
    line_start = text.rfind("\n", 0, chosen.start()) + 1 if chosen else 0
    if chosen is None or _LIST_MARKER.match(text, line_start):
        return text  # no choice, or one inside the list (`2. the first one, improved`)
    before = text[:line_start].rstrip()  # its last line must be the list's last item
    items = list_at(text, text.rfind("\n", 0, len(before)) + 1) if before else []
    place = _PLACES[chosen["place"].lower()]
    if not items or place >= len(items):
        return text  # no list right before the choice, or no item in that place
    first, last = items[0][0], items[-1][0] + len(line_at(text, items[-1][0]))
    return text[:first] + text[last : chosen.start()] + items[place][1] + text[chosen.end() :]


def tag_cut_off(text: str, tag: str) -> bool:
    """Does the text end inside an answer tag (`<move>A`, `<move>A1</mo`, `<mo`): one opened after
    the last closed one and never closed, or the start of one at the very end? The token limit cut
    the final answer: no answer, and no earlier one stands in for it (rule 4, docs/answers.md)."""
    lowered = text.lower()
    closing = f"</{tag}>"
    last_close = lowered.rfind(closing)
    after = lowered[last_close + len(closing) :] if last_close >= 0 else lowered
    opening = f"<{tag}"
    if opening in after:
        return True
    end = after.rstrip()
    return any(end.endswith(opening[:k]) for k in range(2, len(opening)))


def label_cut_off(text: str) -> bool:
    """Does the text end in an answer's label with nothing after it (`Move:`, `**Final answer:**`)?
    The token limit cut the final answer: no answer, and no earlier one stands in (rule 4)."""
    m = _LABEL.fullmatch(last_line(text))
    if m is None or m.group("rest") or not _short_label(m.group("label")):
        return False
    return rank(Span("", "labelled", 0, m.group("label"))) == 2


def last_line(text: str) -> str:
    """The text's last non-empty line (from its last line end on, trailing spaces dropped)."""
    end = text.rstrip()
    return end[end.rfind("\n") + 1 :]


def line_at(text: str, at: int) -> str:
    """The whole line of `text` that holds position `at`."""
    end = text.find("\n", at)
    return text[text.rfind("\n", 0, at) + 1 : len(text) if end < 0 else end]


class Span(NamedTuple):
    """A candidate answer: its text, its kind (labelled, cell, sentence, line, whole), where it
    starts, and its label (labelled and cell only)."""

    text: str
    kind: str
    start: int
    label: str = ""


# words that rank a label (never gate one: any label of the right shape is a candidate): an answer's
# label first, then any other, and last a label that introduces something else (a question, a step)
ANSWER_WORDS = re.compile(
    r"answer|solution|result|final|expression|formula|equation|lösung|antwort|réponse|respuesta|resposta|risposta"
    r"|ответ|решение|答|解|정답|답|الجواب|الإجابة|cevap|odpowied|jibu|उत्तर|antwoord|svar|vastaus"
    r"|jawaban|javob|odgovor|válasz|odpověď|trả lời|คำตอบ|תשובה|απάντηση|відповідь|pasuxi"
    r"|decision|choice|\bpick\b|conclusion|verdict|\bbest\b"  # `Best:` (never `Second best:`: a mistake's, ranked 0)
    r"|\bmove\b|\bplay(?:s|ing)?\b|\blead\b|\bzug\b|\bcoup\b|jugada|jogada|mossa|着手|落子|出牌"  # a turn's answer: its move
    r"|\bI(?:'ll| will)? (?:choose|pick|select|go with)\b",  # or the choice the model says it makes
    re.IGNORECASE,
)
OTHER_WORDS = re.compile(
    r"question|problem|task|step|example|note|hint|input|given|numbers|check|verif|explanation|reasoning|thought"
    r"|attempt|try|left|remaining|goal|target|instruction|user|human|\bhand\b|\bboard\b|手牌|剩",
    re.IGNORECASE,
)


# words just before a move that make it the other side's reply to another (`A1 loses to I5`, `3 is
# beaten by 5`): never the model's answer
# words just before an answer that reject it, where words are not spaced (`不要出A`, `而不是A`, `避免下A1`);
# each game's own rejecting words take these too
REJECTS_UNSPACED = r"(?:不要|别|不出|不能|不该|不应该?|而不是|避免)[出打下走放]?[ \t]*"
REPLY_WORDS = r"\blos(?:es?|ing) to|\brefuted by|\banswered by|\bmet by|\bbeaten by|\bfails? against|\bcountered by"
_A_REPLY_BEFORE = re.compile(rf"(?:{REPLY_WORDS})\W*$", re.IGNORECASE)


def replies_at(text: str, at: int) -> bool:
    """Do the words just before `at` make what follows the other side's reply to another move (`A1
    loses to I5`): neither our answer nor one the text rejects?"""
    return _A_REPLY_BEFORE.search(text, max(0, at - REPLY_CHARS), at) is not None


REPLY_CHARS = 24  # how far before a move the words that make it a reply may start


# a sentence that opens a plan of later turns or a condition (`If X then plays G6, …`, `Then they play 5,
# and I answer with A.`, `After that, …`, `Otherwise X wins with …`, `如果…`): what it names is not the
# move now (gomoku, doudizhu)
_PLAN_WORDS = (
    r"(?:(?:if|when|whenever|unless|after(?:wards| that| this)?|once|should|then|next|later|followed by|otherwise"
    r"|in (?:reply|response))\b|如果|若|要是|然后|之后|接着|下一轮)"
)
OPENS_A_PLAN = re.compile(rf"^[\W_]*{_PLAN_WORDS}", re.IGNORECASE)

# words that replace what came before them with what follows (`Actually, …`, `…, or rather …`, `Sorry, I
# mean …`, `No wait, …`, `Make that …`); never `instead of` or `rather than`, which reject what follows them
CORRECTION_WORDS = (
    r"(?:actually|instead(?![ \t]+of\b)|on second thought|correction|(?:or[ \t]+)?rather(?![ \t]+than\b)"
    r"|sorry|i[ \t]+mean(?:t)?|oops|scratch that|make (?:that|it)|no[ \t,]*wait|my (?:mistake|bad)"
    r"|let me correct(?:[ \t]+(?:that|myself|it))?)"
)
# a sentence that opens by replacing the answer before it (`Actually, A1 is better.`, `Instead, lead 6.`): where
# it names an answer, that one is the answer (every reader)
OPENS_A_CORRECTION = re.compile(rf"^\W*{CORRECTION_WORDS}\b", re.IGNORECASE)
# words that prefer what follows them (`I'd rather write …`, `I prefer …`, `I'll go with …`); never `…, which I
# prefer to B`, where no clause opens with them, nor what they would rather keep or not do
_PREFERENCE_WORDS = (
    r"(?:i(?:'d| would)[ \t]+rather(?:[ \t]+(?:write|use|go with))?"
    r"|i(?:[ \t]+(?:prefer|choose|pick)|(?:'ll|[ \t]+will)[ \t]+(?:write|use|go with|take)))"
    r"(?![ \t]+(?:to|not|keep(?:ing)?|sav(?:e|ing)|hold(?:ing)?)\b)"  # `I'd rather keep the 7 7`: no play
)
# the words of a clause that turns from what came before to what follows it (a correction or a preference)
_TURNING_WORDS = rf"(?:{CORRECTION_WORDS}|{_PREFERENCE_WORDS})\b[ \t,:)]*"
# a clause after an answer, in its sentence, that concludes with, corrects to or prefers what follows it
# (`…, so B`, `…, or rather B`, `… — sorry, I mean B`, `… (oops) B`, `…, but I prefer B`): where another
# answer follows it, that one is the answer
TURNS_TO_ANOTHER = re.compile(
    rf"(?:[,;:—–(]|\bbut\b)[ \t]*(?:(?:so|therefore|thus|hence)\b[ \t,:)]*|{_TURNING_WORDS})", re.IGNORECASE
)

# a sentence that opens by taking a second look (`Wait, I5.`, `Hold on, I5.`): where it plays a
# move, that move replaces the answer before it, as a correction's does
_OPENS_A_SECOND_LOOK = re.compile(r"^\W*(?:wait|hold on|oh)\b", re.IGNORECASE)  # never `A1? Hmm, I5.`: a doubt


def reconsiders(line: str) -> bool:
    """Does `line` open a correction or a second look (`Actually, I5.`, `Wait, I5.`)? Where the line
    plays a move other than the answer, that move replaces it (gomoku, doudizhu). A question never does."""
    if "?" in line or "？" in line:
        return False  # `Wait, is I5 better? No.`: a question states no move
    return bool(OPENS_A_CORRECTION.match(line) or _OPENS_A_SECOND_LOOK.match(line))


def second_look(line: str, names_a_move: Callable[[str], bool]) -> str | None:
    """Where `line` opens a correction or a second look (`reconsiders`), the sentence that plays
    its move: the first that names one (`names_a_move`, the verifier's), past openings that name none
    (`Wait. Actually, I5.`); None where the line opens none. Only that sentence: a later one that
    mentions the move again never plays it (`Wait, A9 would lose. The tempting A9 does nothing.`:
    read as one, A9 was played)."""
    if not reconsiders(line):
        return None
    return next((sentence for sentence in _A_SENTENCE_END.split(line) if names_a_move(sentence)), None)


# words that name the other player (`Opponent's move:`, `Their reply:`, `对手出牌：`): what follows is
# their move, never the model's answer
_THE_OTHER_SIDE = r"(?:opponents?|opponent's|enemy|rival|they|them|their|he|she|his|her|the other (?:player|side))"
OTHER_SIDE = re.compile(rf"\b{_THE_OTHER_SIDE}\b|对手|对方", re.IGNORECASE)
# verbs whose actor plays a move (`The opponent plays I5`, `they then answer with 5`, `X would win at A1`)
_PLAYS = (
    r"(?:plays?|played|replies|reply|answers?|responds?|moves?|goes|leads?|blocks?|takes?|wins?|will|would|could"
    r"|might|can|must|has to|is forced|then|next)"
)


def not_theirs(found: list[T], text: str, start: Callable[[T], int], names: str = "") -> list[T]:
    """`found` (answers in `text`, such as tags, each starting at `start(answer)`) less those the
    words before them give as the other side's move (`their_move`, read from the sentence's start or
    the answer before: `Opponent's reply: <move>I5</move>`, `I play <move>A1</move>, and X replies
    <move>I5</move>`). Their move is never the model's answer, even where it is the only one."""
    kept, previous = [], 0
    for answer in found:
        at = start(answer)
        opening = max(previous, *(text.rfind(mark, 0, at) + 1 for mark in ".!?\n"))
        concluding = last_match(_CONCLUDING_CLAUSE.finditer(text, opening, at))
        opening = concluding.start() if concluding else opening  # `X would win at I5, so O must take it: <move>…`
        if not their_move(text[opening:at], names):
            kept.append(answer)
        previous = at + 1  # the words after an answer's start belong to the next one's clause
    return kept


# a clause that concludes what the clauses before it told (`…, so O must take it:`): the words a tag after it
# belongs to
_CONCLUDING_CLAUSE = re.compile(r"(?<=[,;])[ \t]*(?:so|therefore|thus|hence|which means)\b", re.IGNORECASE)


def their_move(line: str, names: str = "") -> bool:
    """Does `line` (a line or a sentence) give the other side's move, not ours: it opens with them
    (`The opponent plays I5.`, `Opponent: I5`, `Their reply: A1`, `X: I5` where `names` holds the
    game's names for them, a regex such as `X|[Bb]lack`) or has them play (`…, and then they answer
    with 5`), and states no move of ours (`Their four is on row 5, so I block at I5.`)? A mention of
    them elsewhere leaves the move ours (`A1 blocks their four.`, `So I lead A to break their pair.`)."""
    them = rf"(?:(?i:(?:the[ \t]+)?{_THE_OTHER_SIDE}){'|' + names if names else ''})"  # their names as written
    opening = re.match(rf"[\W_]*{them}(?:'s)?\b", line)
    playing = re.search(rf"\b{them}\b(?:'d|'ll|’d|’ll)?[ \t]+(?i:(?:\w+[ \t]+)?{_PLAYS})\b|对手|对方", line)
    return (opening is not None or playing is not None) and _STATES_OUR_ANSWER.search(line) is None


# a label that says it replaces what came before (`Better:`, `Corrected:`, `Fixed version:`): an
# answer's label (in a sentence, "J is better" compares: no answer's word there)
FIX_LABEL_WORDS = re.compile(
    r"\b(?:better|corrected|correction|fixed|revised|updated|improved|actually)\b", re.IGNORECASE
)


# a label that introduces a mistake (`Worst:`, `Wrong answer:`, `Avoid:`, `Don't play:`, `Rejected:`) or a
# move ranked below the answer (`Second best:`, `Runner-up:`): never an answer's
MISTAKE_LABEL_WORDS = re.compile(
    r"\b(?:worst|avoid|wrong|incorrect|mistaken|mistakes?|bad|losing|blunders?|don't|do not"
    r"|(?:second|2nd|third|3rd|next)[- ]best|runner[- ]up|rejected|discarded|ruled out|dismissed|eliminated)\b",
    re.IGNORECASE,
)


# a mistake's label just before an answer on its line (`Worst: A1`, `Bad move: I5`): what follows is no answer
UNDER_A_MISTAKE_LABEL = re.compile(
    rf"(?:{MISTAKE_LABEL_WORDS.pattern})(?:[ \t]+[^\W\d_]+){{0,2}}[ \t*_]*[:：][ \t*_]*$", re.IGNORECASE
)

MISTAKE_LABEL_CHARS = 30  # how far before an answer a mistake's label may start


def rank(span: Span) -> int:
    """2 for an answer's label, 1 for any other label, 0 for one that introduces something else
    (a question, a step, the other player's move, a mistake)."""
    if OTHER_SIDE.search(span.label) or MISTAKE_LABEL_WORDS.search(span.label):
        return 0
    if ANSWER_WORDS.search(span.label) or FIX_LABEL_WORDS.search(span.label):
        return 2
    return 0 if OTHER_WORDS.search(span.label) else 1


def _short_label(label: str) -> bool:
    """At most four words, or a few lead words before an answer's word that ends it (`Putting it
    together, the answer:`, `Donc, la réponse finale :`)."""
    words = label.replace("*", " ").replace("_", " ").split()
    if 0 < len(words) <= MOST_LABEL_WORDS:
        return True
    ending = " ".join(words[-2:])
    return len(words) <= MOST_LEAD_LABEL_WORDS and bool(ANSWER_WORDS.search(ending)) and not OTHER_WORDS.search(label)


def labelled(text: str) -> list[Span]:
    """Lines opened by a label of the right shape (the module docstring), and an answer's label
    after a sentence on its line (`Wait, I5 is taken. Answer: A1`), in order."""
    found = []
    for pattern in (_LABEL, _KEY):
        for m in pattern.finditer(text):
            if not _short_label(m.group("label")):
                continue
            rest = m.group("rest").strip().strip("*_").strip()
            if not rest:  # the label stands alone: the answer is the next non-empty line (in a fence too)
                following = text[m.end() : m.end() + 2000].split("\n")
                rest = next((line.strip() for line in following if line.strip() and not _FENCE.fullmatch(line)), "")
            if rest:
                found.append(Span(rest, "labelled", m.start(), m.group("label")))
    found += labels_after_a_sentence(text) if ":" in text or "：" in text else []
    found.sort(key=lambda s: s.start)
    return found


def list_at(text: str, at: int) -> list[tuple[int, str]]:
    """The items of the list that the line at `at` is an item of (markers `-`, `*`, `•`, `1.`, `2)`;
    blank lines between items allowed), up to `MOST_LISTED` each way: where each item's line starts,
    and its text, marker off; [] where that line is no item or its list has one. A label standing
    alone over a list (`Candidate moves:` / `- A1` / `- I5`) labels every item, never the first alone,
    and a list of moves is no more its last item than any other (rule 5, docs/answers.md)."""
    start = text.rfind("\n", 0, at) + 1
    if _LIST_MARKER.match(text, start) is None:
        return []
    lines_read = 0
    while start > 0 and lines_read < 3 * MOST_LISTED:  # back to the list's first item
        before = text.rfind("\n", 0, start - 1) + 1
        if text[before : start - 1].strip() and _LIST_MARKER.match(text, before, start - 1) is None:
            break  # the line before the list
        start, lines_read = before, lines_read + 1
    items: list[tuple[int, str]] = []
    while start < len(text) and len(items) < 2 * MOST_LISTED:  # on to its last
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        marker = _LIST_MARKER.match(text, start, end)
        if marker is None and text[start:end].strip():
            break  # the list ends
        if marker is not None:
            items.append((start, text[marker.end() : end].strip()))
        start = end + 1
    return items if len(items) > 1 else []


MOST_LISTED = 12  # items of a list read each way from the line asked about


_AFTER_A_SENTENCE = re.compile(r"[.!?؟।][ \t]+|[。！？][ \t]*")  # a full-width end needs no space after it
_LABEL_HERE = re.compile(r"(?P<label>[^\W\d_][^\n:：\d.!?]{0,40}?)[ \t*_]*[:：][ \t]*(?P<rest>[^\n]{1,200})")
_LIST_NUMBER_BEFORE = re.compile(r"[ \t>#*•-]*\d{1,3}")  # `1. Answer: …`: a list's number, no sentence
LIST_NUMBER_CHARS = 12


def labels_after_a_sentence(text: str) -> list[Span]:
    """An answer's label (`locate.rank` 2) that opens a sentence inside a line (`That is taken.
    Answer: A1`): it labels the answer as one opening the line does. Each try reads a bounded
    stretch: linear in the text."""
    found = []
    for end in _AFTER_A_SENTENCE.finditer(text):
        m = _LABEL_HERE.match(text, end.end())
        if m is None or not _short_label(m.group("label")):
            continue
        near = max(0, end.start() - LIST_NUMBER_CHARS)  # a bounded look back: linear on one long line
        newline = text.rfind("\n", near, end.start())
        line_start = newline + 1 if newline >= 0 else 0 if near == 0 else -1
        if line_start >= 0 and _LIST_NUMBER_BEFORE.fullmatch(text, line_start, end.start()):
            continue  # the line's label after its list number: the line-start reading has it
        span = Span(m.group("rest").strip(), "labelled", m.start(), m.group("label"))
        if span.text and rank(span) == 2:
            found.append(span)
    return found


def cells(text: str) -> list[Span]:
    """The last cell of each table row whose first cell is a short label (`| answer | … |`), and
    the cells under each header of short labels, in any words (`| Expression | Value |`, `|
    Expresión | Valor |` over `| … | 24 |`): a header in words no lexicon holds labels its column as
    any unknown label does (`locate.rank` 1: only an answer to the task is read there)."""
    found = []
    header: list[str] = []  # the column labels of the table being read, "" for a column no answer's
    row_end = -2
    for m in _ROW.finditer(text):
        parts = [p.strip() for p in m.group("cells").split("|")]
        if m.start() > row_end + 1:  # not the next line of the same table
            header = []
        row_end = m.end()
        if _DIVIDER.fullmatch("".join(parts)):
            continue
        if header and len(parts) == len(header):
            found += [Span(cell, "cell", m.start(), label) for label, cell in zip(header, parts) if cell and label]
        elif not any(c.isdigit() for c in "".join(parts)) and any(map(_short_label, parts)):
            header = [p if _short_label(p) else "" for p in parts]  # labels by their shape; `rank` weighs them
        if len(parts) >= 2 and _short_label(parts[0]) and not any(c.isdigit() for c in parts[0]) and parts[-1]:
            found.append(Span(parts[-1], "cell", m.start(), parts[0]))
    return found


_DIVIDER = re.compile(r"[\s:\-|]*-[\s:\-|]*")  # a table's `|---|:--:|` row
MOST_SENTENCE_STARTS = 12  # places in the last line an expression may start, tried left to right


# words in a line after an answer that take it back or doubt it (`No, that's wrong.`, `Hmm, let me
# reconsider.`, `I do not know.`): such a line is never talk an answer may stand before
CROSS_MARKS = "✗❌✘"  # a mark that strikes out what it follows (`(8 - 4) * 6 = 24 ✗`)
# words that say the text has no answer after all (`I give up.`, `I cannot find a way to make 24.`; never
# `I couldn't find a simpler one.`)
GIVES_UP = (
    r"\b(?:give up|gave up|giving up)\b"
    r"|\b(?:it|this|that|puzzle|problem|task)(?:'s| is| seems| looks| appears)(?: to be)?[ \t]+(?:impossible|unsolvable)"
    r"|\b(?:can(?:not|'t)|could(?:n't| not)|unable to|failed to) (?:find|solve|get|make|reach)\b"
    r"(?![^\n]{0,24}\b(?:better|simpler|shorter|faster|other|another|different)\b)"
)
TAKES_BACK = re.compile(
    rf"[{CROSS_MARKS}]|\?|\b(?:no|not|wrong|incorrect|invalid|mistake|oops|wait|but|however|actually|hmm|hold on|reconsider"
    rf"|rethink|re-check|recheck|unsure|maybe|perhaps|doubt)\b|n't\b|{GIVES_UP}",
    re.IGNORECASE,
)
# a line that computes: an operator (or `=`) between two operands, in any spelling the readers know:
# symbols, LaTeX or words
_ARITHMETIC = re.compile(
    rf"[\d)\]}}]{_GAP}(?:[-+*/×÷·⋅∙•✕⨯✖➗➖➕∶:−–^=x]|\\times|\\cdot|\\div|\\ast|\\\*|plus|minus|times|divided by|multiplied by)"
    rf"{_GAP}[\d(\[{{\\]"
    r"|\\frac",
    re.IGNORECASE,
)
MOST_TALK_LINES = 4  # lines of talk after the conclusion (`Hope this helps!`, `Let me know if you want another.`)
# words in a line of talk after an answer that doubt it or object to it (`Hmm, let me reconsider.`,
# `But that uses 4 twice.`, `It doesn't equal 24.`, `Is that right?`). Narrower than TAKES_BACK: a
# plain "no" or "not" in talk is harmless (`No number is left over.`, `This uses each number once,
# not twice.`), and so is a question that offers more (`Want another one?`)
_TALK_DOUBTS = re.compile(
    rf"[{CROSS_MARKS}]|\b(?:wrong|incorrect|invalid|mistaken?|error|oops|wait|hmm+|hold on|reconsider|rethink|re-?check|unsure"
    r"|doubt|actually|(?:do not|don't|dunno) know|no idea)\b"
    r"|^[^\w\n]*(?:(?:no|nope)\b(?![ \t]+\w)|(?:not|but|however|maybe|perhaps|although|except)\b)"  # an objection
    r"|\bnot (?:sure|quite|right|correct|valid|allowed|possible|equal|\d)|n't (?:sure|quite|right|correct|valid|allowed"
    r"|work|equal|make|give|get|add|reach|possible)"
    r"|\b(?:this|that|it|the answer|my answer)\b[^?\n]*\b(?:right|correct|work|works|valid|true)\b[^?\n]*\?"
    r"(?![ \t]*(?:yes|yep|yeah|correct|indeed)\b)"  # `Is that right?`, unless it answers `Yes!`
    rf"|{GIVES_UP}",
    re.IGNORECASE | re.MULTILINE,
)


def talk_takes_back(after: str) -> bool:
    """Does a line of talk after an answer (`after`) deny it, doubt it or object to it
    (`lines_deny`, `_TALK_DOUBTS`)? One rule for the talk after any answer's conclusion."""
    return lines_deny(after) or _TALK_DOUBTS.search(after) is not None


def conclusion(text: str) -> tuple[int, int]:
    """Where the conclusion's line is (start, end): the last non-empty line, or, where a few lines
    of talk or tries the text calls wrong follow the last line that computes (no arithmetic, nothing
    that takes an answer back: `Hope this helps!`, `All four numbers (4, 4, 6, 8) are used once.`;
    `(6 - 2) * 3 * 4 = 48 (too big)`), that line."""
    lines = [(m.start(), m.end()) for m in _NON_EMPTY_LINE.finditer(text)]
    if not lines:
        return len(text), len(text)
    for start, end in reversed(lines[-(MOST_TALK_LINES + 1) :]):
        line = text[start:end]
        if _ARITHMETIC.search(line) and _sets_a_try_aside(line):
            continue  # a try the text calls wrong: the conclusion is before it
        if _ARITHMETIC.search(line):  # the last line that computes
            return start, end
        if talk_takes_back(line):
            return lines[-1]
    return lines[-1]


def _sets_a_try_aside(line: str) -> bool:
    """Does a line that computes set its try aside: call it wrong (`(6 - 2) * 3 * 4 = 48 (too big)`, `…, so
    that does not work.`), answer it "No" (`A? No, that gives 16.`), open by rejecting it (`Not A.`,
    `(Avoid A.)`, `Wrong: A`) or tell it as an earlier try (`I first tried A, but …`)?"""
    first = _EXPRESSION_START.search(line)
    return (
        rejected_in_its_sentence(line)
        or denies(line)
        or tells_an_earlier_try(line)
        or _A_TRY_SET_ASIDE.search(line) is not None
        or (first is not None and UNDER_A_MISTAKE_LABEL.search(line, 0, first.start()) is not None)
    )


# a try answered "No" (`A? No, that gives 16.`), or a line that opens by rejecting what it names (`Not A.`)
_A_TRY_SET_ASIDE = re.compile(
    r"[\d)\]][ \t*_]*\?[ \t]*(?:no|nope|nah)\b|^[\W_]*(?:not|never|avoid|unlike|don't|do not)\b", re.IGNORECASE
)
_NON_EMPTY_LINE = re.compile(r"[^\n]*[^\s][^\n]*")
# a line that tells of a try before the answer and that it failed (`I first tried 8 * 4 - 6 - 4, but it gives
# 22.`, `My first attempt, A1, lost.`): a try, not the conclusion
_AN_EARLIER_TRY = re.compile(
    r"\b(?:I|we)[ \t]+(?:\w+[ \t]+)?(?:tried|attempted|considered|started with)\b[^\n]*?(?:\bbut\b|\bhowever\b|n't\b|\bnot?\b)"
    r"|\b(?:my|the|our)[ \t]+(?:first|initial|earlier|previous|original)[ \t]+(?:attempt|try|idea|guess)\b",
    re.IGNORECASE,
)


# an earlier try named by a pronoun (`I tried this, but it fails.`): the answer before it, taken back
_A_PRONOUNS_TRY = re.compile(
    r"\b(?:tried|attempted|considered|started with|was)[ \t]+(?:this|that|it)\b", re.IGNORECASE
)


def tells_an_earlier_try(line: str) -> bool:
    """Does `line` tell of a try before the answer that failed (`I first tried A, but it gives 22.`,
    `My first idea was A1.`)? A try, never the answer nor the conclusion (rule 7, docs/answers.md)."""
    return _AN_EARLIER_TRY.search(line) is not None


def earlier_tries(line: str) -> list[tuple[int, int]]:
    """Where `line` tells of earlier tries (`tells_an_earlier_try`), each from its first word to its
    sentence's end (`**9** I considered 4, but it loses.`: 4 is tried, 9 is not)."""
    spans = []
    for m in _AN_EARLIER_TRY.finditer(line):
        stop = _SENTENCE_END.search(line, m.start())
        end = stop.end() if stop else len(line)
        if m.end() <= end:  # the try and what it says of it in one sentence
            spans.append((m.start(), end))
    return spans


# a line that opens by concluding (`So I play A1.`, `Therefore, the best move is A1.`, `In conclusion, lead
# 4 4.`, `所以出 4 4。`): what it names is the answer the text ends with
CONCLUDES = re.compile(
    r"^[\W_]*(?:(?:so|therefore|thus|hence|overall|finally|in (?:conclusion|summary|short)|to (?:sum up|conclude)"
    r"|all in all|all things considered)\b|所以|因此|综上|總之|总之)",
    re.IGNORECASE,
)
# a plan of later turns or a condition anywhere in a concluding line (`So if they answer A1, I play B2.`)
_A_PLAN_WITHIN = re.compile(
    r"\b(?:if|when|whenever|unless|after|once|then|next|later)\b|如果|若|要是|然后|之后", re.IGNORECASE
)

# the words in a conclusion that state our answer (`So I play A1.`, `Thus the best move is A1.`, `So, play
# A1.`, `Therefore I pass.`, `所以我出 4 4。`): never a line that only explains (`So my move blocks the four
# and prepares G6.`) or says what another player is forced to do (`So X must answer at A1.`)
_STATES_OUR_ANSWER = re.compile(
    r"\b(?:I|we)(?:'ll|'d| will| would| should| must| can)?[ \t]+(?:play|place|put|choose|pick|select|go with|lead"
    r"|pass|block|answer|respond|reply)\b"
    r"|\b(?:answer|solution|move|play|choice|pick)[ \t]+(?:is|would be|will be|should be)\b"
    r"|^[\W_]*(?:the answer[ \t]*:|play(?:ing)?|lead(?:ing)?|plac(?:e|ing)|put(?:ting)?|go with|choos(?:e|ing)|pick(?:ing)?)\b"
    r"|我(?:出|下|走|选)",
    re.IGNORECASE,
)
# a conclusion this short after its word, in words this short, is the answer alone (`Therefore, A1.`, `So, 4
# 4.`); never a clause (`Finally, H6 is covered.`)
MOST_WORDS_ALONE, MOST_CHARS_A_WORD_ALONE = 3, 4


# a line that opens by naming the answer (`The best move is A1.`, `My final answer is 4 4.`): a conclusion too
_OPENS_NAMING_THE_ANSWER = re.compile(
    r"^[\W_]*(?:the|my|our)[ \t]+(?:(?:best|final|right|correct|winning)[ \t]+)?(?:answer|move|play|choice)"
    r"[ \t]+(?:is|would be|will be|should be)\b",
    re.IGNORECASE,
)


def _opens_a_conclusion(line: str) -> re.Match[str] | None:
    """The words a line opens its conclusion with (`So`, `Therefore,`, `The best move is`, an answer's
    label: `Final answer:`, `Lösung:`), or None."""
    return CONCLUDES.match(line) or _OPENS_NAMING_THE_ANSWER.match(line) or _answer_label_opening(line)


_A_SIDES_LABEL = re.compile(r"['’]s\b|\b(?:black|white|red|blue|[xo]|landlord|farmers?|peasants?)\b", re.IGNORECASE)
_LABEL_OPENING = re.compile(r"^[^\w\n]*(?P<label>[^\W\d][^\n:：]{0,40}?)[ \t*_]*[:：]")


def _shown_as_an_example(text: str, start: int) -> bool:
    """Is what starts at `start` introduced as a mistake or as the form to write?"""
    return introduced_as_mistake(text, start) or introduced_as_the_form(text, start)


def _answer_label_opening(line: str) -> re.Match[str] | None:
    """The answer's label a line opens with (`Final answer:`, `**Move:**`), or None."""
    m = _LABEL_OPENING.match(line)
    if m is None or not _short_label(m.group("label")) or _A_SIDES_LABEL.search(m.group("label")):
        return None  # `Black's move:`, `White:`: a side's, maybe the other's (`their_move` reads them)
    return m if rank(Span("", "labelled", 0, m.group("label"))) == 2 else None


def concluded_answer(text: str, end: int) -> str:
    """What the last line after the answer that ends at `end` that opens as a conclusion
    (`CONCLUDES`, or by naming the answer: `The best move is A1.`; among the last few: talk may follow
    it) states as our answer now, from the words
    that state it on (`Move: I5` … `So I play A1.` gives `play A1.`; `Therefore, A1.` gives `A1.`),
    else "": no such line, or one that explains, plans (`So if they answer A1, …`) or speaks of the
    other player. Where it names another answer than the one before, the text offers two final
    answers: one too many (docs/answers.md, rule 5)."""
    line_end = text.find("\n", end)
    if line_end < 0:
        return ""
    lines = _NON_EMPTY_LINE.findall(text, line_end)[-(MOST_TALK_LINES + 1) :]  # talk may follow it
    at = next((k for k in range(len(lines) - 1, -1, -1) if _opens_a_conclusion(lines[k])), -1)
    line = lines[at] if at >= 0 else ""
    opening = _opens_a_conclusion(line)
    if opening is None or their_move(line):
        return ""
    if _answer_label_opening(line) and _shown_as_an_example(text, text.rfind(line)):
        return ""  # `A common mistake is:` then `Move: A1`: shown, not concluded (rule 6)
    if at > 0 and _FINALLY.match(line) and tells_a_later_turn(lines[at - 1]):
        return ""  # `Then F8.` / `Finally, play I5.`: the plan's last step, no conclusion
    rest = line[opening.end() :]
    if _A_PLAN_WITHIN.search(rest):
        return ""
    stated = _STATES_OUR_ANSWER.search(rest)
    if stated:
        return rest[stated.start() :]
    words = [word.strip(".,;:!?*_`") for word in rest.split()]
    alone = len(words) <= MOST_WORDS_ALONE and all(len(word) <= MOST_CHARS_A_WORD_ALONE for word in words)
    return rest if alone else ""


# a line that tells of a later turn: a plan's opening after a list's number or a step's label (`Then play
# I5.`, `2. Then A1.`, `Step 2: after they respond, play 3.`), or a later turn's number (`Turn 2: I5`)
_TELLS_A_LATER_TURN = re.compile(
    rf"^[\W_]*(?:(?:\d{{1,2}}[.)]|(?:step|stage|phase)[ \t]*\d{{1,2}}(?:st|nd|rd|th)?[ \t]*[:.)])[\W_]*)?{_PLAN_WORDS}"
    r"|^[\W_]*(?:turn|move|round|trick)[ \t]*#?[ \t]*(?:[2-9]|[1-9]\d)(?:nd|rd|th)?\b",
    re.IGNORECASE,
)
# words that name a line's answer as the answer (`Then, the best move is I5.`: a conclusion, no plan)
_NAMES_THE_ANSWER = re.compile(
    r"\b(?:answer|solution|move|play|choice|pick)[ \t]+(?:is|would be|will be|should be)\b|\banswer[ \t]*[:：]",
    re.IGNORECASE,
)
# words that state the move now (`Play A1.`, `First, lead A.`, `I play I5 now.`, `Turn 1: A1`)
_THE_MOVE_NOW = re.compile(
    rf"{_STATES_OUR_ANSWER.pattern}|\b(?:now|first(?:ly)?(?![ \t]+(?:glance|sight))|this turn|immediately)\b"
    r"|^[\W_]*(?:turn|move|round|trick|step)[ \t]*#?[ \t]*1\b",
    re.IGNORECASE,
)


def tells_a_later_turn(line: str) -> bool:
    """Does `line` open by telling of a later turn or a condition (`Then play I5.`, `2. Then A1.`, `Turn 2:
    I5`, `If they answer, play 3.`), rather than naming the answer (`Then, the best move is I5.`)?"""
    opening = _TELLS_A_LATER_TURN.match(line)
    return opening is not None and not _NAMES_THE_ANSWER.search(line, opening.end())


def without_later_turns(found: list[T], line_of: Callable[[T], str]) -> list[T]:
    """`found` (answers in text order, each on the line `line_of(answer)`) less those on a line that
    tells of a later turn after a line that states the move now (`Play A1.`, `**A1**`, `Best: A1` / `Then play I5.`: I5 is a
    later turn's move, never the answer; rule 5, docs/answers.md). A line that offers its answer
    beside the other (`Otherwise, A1.`) stays: two answers, one too many. The lines after a later
    turn's line go on with its plan (`1. Lead 3.` / `2. Then play 2.` / `3. Finish with A.`) until
    one names the answer (`_goes_on_with_the_plan`)."""
    kept, now, planning = [], False, False
    for answer in found:
        line = line_of(answer)
        later = tells_a_later_turn(line)
        marker = _LIST_MARKER.match(line)  # `1. Play A1.`: the item's words state it
        line = line[marker.end() :] if marker else line
        later = later or (planning and _goes_on_with_the_plan(line, marker is not None))
        if now and later and not offers(line):
            planning = True
            continue
        planning = False
        kept.append(answer)
        now = now or (
            not later and (_THE_MOVE_NOW.search(line) is not None or _answer_labelled(line) or _ALONE.match(line))
        )
    return kept


_SIDE_PLAYS = r"(?i:plays?|places?|puts?|blocks?|takes?|moves?|goes|leads?)"  # `O should play A1`, `White blocks`


def states_the_move_now(line: str, ours: str = "") -> bool:
    """Does `line` state the move it names as ours now: its words (`I play A1.`, `Play A1 now.`, `The
    best move is A1.`, `So A1.`; with `ours` our side's names as a regex, `O should play A1.`), an
    answer's label (`Move: A1`) or the move alone (`**A1**`)? A question never does (`A1?`)."""
    if line.rstrip(" \t*_`").endswith(("?", "？")):
        return False
    if ours and re.match(rf"[\W_]*(?:{ours})\b(?!['’]s)[ \t]+(?:\w+[ \t]+)?{_SIDE_PLAYS}\b", line):
        return True
    return bool(
        _THE_MOVE_NOW.search(line)
        or _NAMES_THE_ANSWER.search(line)
        or _answer_labelled(line)
        or _ALONE.match(line)
        or (CONCLUDES.match(line) and not _A_PLAN_WITHIN.search(line))
    )


# a sentence that opens with a move, after words of doubt, correction or opinion (`Wait,`, `Hmm,`, `Actually,`,
# `I think`), and
# ranks it above another (`B is better.`, `Wait, B is stronger.`, `Hmm, B wins outright.`, `B is the better
# move.`), or that names it as the better one (`The better move is B.`; `The best move is B.` after another is
# a second answer): it prefers that move
_DOUBT_OR_CORRECTION = (
    r"[\W_]*(?:(?:actually|wait|hmm+|hold on|oh|no|on second thought|instead|but"
    r"|i (?:think|believe|guess|feel)(?: that)?|i'd say|maybe|perhaps|probably)\b[\W_]*)*"
)
_BEFORE_A_PREFERRED = re.compile(rf"{_DOUBT_OR_CORRECTION}(?:the[ \t]+)?", re.IGNORECASE)
_NAMED_THE_BETTER = re.compile(
    rf"{_DOUBT_OR_CORRECTION}(?:the|a)[ \t]+(?:better|stronger|superior)[ \t]+"
    r"(?:move|play|choice|option|answer)[ \t]+(?:is|would be|here is)[ \t:]+(?:the[ \t]+)?",
    re.IGNORECASE,
)
_AFTER_A_PREFERRED = re.compile(
    r"[\s*_`]*(?:(?:is|would be|will be|looks|seems|might be|could be|was)[ \t]+)?"
    r"(?:(?:even|much|far|clearly|actually|definitely|probably|the|a)[ \t]+)*(?:better|stronger|superior|preferable)\b"
    r"|[\s*_`]+wins\b",
    re.IGNORECASE,
)
# the space (and emphasis) after a sentence's stop: where the next sentence opens
_A_SENTENCE_END = re.compile(r"(?<=[.!?。！？])[\s*_`]+")
_MOST_BEFORE_A_PREFERRED = 48  # characters of opening words before the move (`On second thought, the `)


def prefers_the_move(line: str, start: int, end: int) -> bool:
    """Does the sentence of `line` holding the move written at `start`-`end` open with that move
    (after words of doubt or correction) and rank it above another (`B is better.`, `Wait, B is
    stronger.`, `Hmm, B wins outright.`; never `It is better than B.`), or open by naming it the
    better one (`The better move is B.`)? After a stated move, such a sentence states its own (rule
    5, docs/answers.md)."""
    window = max(0, start - _MOST_BEFORE_A_PREFERRED)  # bounded: linear over all the moves of a line
    opening = max((m.end() for m in _A_SENTENCE_END.finditer(line, window, start)), default=0 if not window else -1)
    if opening < 0:
        return False  # the sentence opens further back than its opening words reach: not with this move
    if _NAMED_THE_BETTER.fullmatch(line, opening, start):
        return True
    return bool(_BEFORE_A_PREFERRED.fullmatch(line, opening, start) and _AFTER_A_PREFERRED.match(line, end))


def preferred_after(text: str, end: int, prefers_another: Callable[[str], bool]) -> str | None:
    """What the text writes from the first line after the answer ending at `end` that prefers
    another (`prefers_another`, built on `prefers_the_move`: `Move: A` / `Actually, B is better.`),
    or from the words after the answer on its own line that do (`<move>A</move> Actually, B is
    better.`), where a move game reads the answer that replaces it, as after a denial (rule 5); None
    where none does, or where that text speaks of the other side."""
    start = text.find("\n", end)
    closing = _A_CLOSING_TAG.match(text, end)  # a tag's answer: its words start after `</move>`
    after = closing.end() if closing else end
    line = text[after : start if start >= 0 else len(text)]
    if line.strip() and prefers_another(line):
        return None if OTHER_SIDE.search(text, after) else text[after:]
    while start >= 0:
        line_end = text.find("\n", start + 1)
        line = text[start + 1 : line_end if line_end >= 0 else len(text)]
        if prefers_another(line):
            rest = text[start + 1 :]
            return None if OTHER_SIDE.search(rest) else rest
        start = line_end
    return None


_A_CLOSING_TAG = re.compile(r"[ \t]*</[A-Za-z_][\w-]*>")


# a sentence that opens with a doubt (`Hmm, A9.`, `Wait.`, `But maybe A9.`, `No.`); never one that rejects
# another move (`Not A9.`, `No, A9 is too slow.` after a question) or goes on with a reason (`But it loses.`)
_OPENS_A_DOUBT = re.compile(
    r"^[\W_]*(?:(?:but[ \t,]+)?(?:wait|hmm+|hold on|oops|maybe|perhaps|let me (?:reconsider|rethink|re-?check))\b"
    r"|(?:no|nope)[\W_]*$|(?:no|nope)[ \t]*[,.!—–-]+[ \t]*(?:wait|hmm+|actually|hold on)\b)",
    re.IGNORECASE,
)


def doubts_after(rest: str, rejects_all: Callable[[str], bool] = lambda sentence: False) -> bool:
    """Does a sentence of `rest` (what follows an answer on its line) open with a doubt or a
    correction (`Hmm, A9.`, `But wait, A9.`, `Actually, A9.`), other than a "No" that answers a
    question, a question so answered (`A9? No, too slow.`, `Wait, is A9 better? No.` reject A9), or
    one that rejects every move it names (`rejects_all`, the verifier's: `Wait, A9 would lose.`)? `I
    considered A9, but it loses.` does not."""
    said = _A_SENTENCE_END.split(rest.strip())
    for k, sentence in enumerate(said):
        asked = sentence.rstrip().endswith(("?", "？"))
        answers_a_question = k > 0 and said[k - 1].rstrip().endswith(("?", "？")) and _LEADING_NO.match(sentence)
        answered_no = asked and k + 1 < len(said) and _LEADING_NO.match(said[k + 1])  # `Wait, is A9 better? No.`
        doubt = _OPENS_A_DOUBT.match(sentence) or OPENS_A_CORRECTION.match(sentence)
        if doubt and not (answers_a_question or answered_no or rejects_all(sentence)):  # `Wait, A9 would lose.`
            return True
    return False


def without_mentions_after_the_answer(
    found: list[T], line_of: Callable[[T], str], states: Callable[[str], bool]
) -> list[T]:
    """`found` (answers in text order, each on the line `line_of(answer)`) less those after a line that
    `states` the move now (a verifier's test built on `states_the_move_now`, knowing the sides) on a
    line that only mentions another: no words that state it (`prefers_the_move` is stating: `B2 is
    better.`), offer it, correct or conclude (`I play I5.` / `The tempting A1 does nothing.` / `Let me
    check B2: it loses to a four.`): such lines discuss the answer, as the lines after an answer's
    label do (rule 4, docs/answers.md)."""
    kept, stated = [], False
    for answer in found:
        line = line_of(answer)
        states_it = states(line)
        if stated and not (states_it or offers(line) or reconsiders(line) or CONCLUDES.match(line)):
            continue
        kept.append(answer)
        stated = stated or states_it
    return kept


# a line that is an answer alone, perhaps in emphasis (`**A9**`, `3 3`, `**4 5 6 7 8**`, `I5.`): it states the move now
_ALONE = re.compile(
    r"[\s*_`>#•-]*(?:[^\s*_`]{1,4}(?:[ \t]+[^\s*_`]{1,4})?|[^\s*_`]{1,2}(?:[ \t]+[^\s*_`]{1,2}){2,11})[\s*_`.!]*$"
)


def _goes_on_with_the_plan(line: str, list_item: bool) -> bool:
    """Does `line`, after a line that told of a later turn, go on with that plan rather than name the
    answer? A list item does unless it names the answer or corrects (`3. Finally, play A.` is the
    plan's last step); a line outside a list also unless it states the move now or concludes
    (`So I5.`)."""
    if _NAMES_THE_ANSWER.search(line) or OPENS_A_CORRECTION.match(line):
        return False
    if list_item:
        return True
    concludes = CONCLUDES.match(line) is not None and _FINALLY.match(line) is None
    return not concludes and _THE_MOVE_NOW.search(line) is None


_FINALLY = re.compile(r"^[\W_]*(?:finally|lastly)\b", re.IGNORECASE)  # a plan's last step, not a conclusion


def _answer_labelled(line: str) -> bool:
    """Does `line` hold an answer's label (`Move: A1`, `Play: 3`)?"""
    return any(rank(span) == 2 for span in labelled(line))


# words right after an answer, in its own sentence, that call it wrong (`(6-4)*(4+8) = 24 is wrong.`,
# `<move>I5</move> would lose.`, `8 / (3 - 8/3) doesn't work`): the text rejects that answer. Closing
# markup may stand between (`</answer>`, `}`, `**`, a quote), and a stated value (`= 24`)
_CLOSING = r"(?:</\w+>|[*_`~$'\"”’)\]}]|\n[ \t]*(?=[`~]))*+"  # a fence's closing line too; possessive: linear
_CALLED_WRONG = re.compile(
    r"(?:\b(?:is|was|are|would be|will be|seems|looks)|'s)[ \t]+(?:(?:actually|clearly|also|still|probably|definitely)[ \t]+)?"
    r"(?:wrong|incorrect|invalid|illegal|a mistake|a blunder|a trap|a dead end|losing|bad|weak|pointless|useless"
    r"|a waste|wasteful|worse(?![ \t]+than)|suboptimal|inferior(?![ \t]+to)|premature|a bad idea"
    r"|too[ \t]+(?:slow|weak|passive|late|big|small|large|high|low|much|little)|not[ \t]+(?:right|correct|valid|legal|allowed"
    r"|possible|good|best|optimal|enough|it|equal|\d+|(?:a|an|the)[ \t]+(?:(?:good|valid|legal|winning|correct|right"
    r"|best|final)[ \t]+)?(?:answer|solution|move|play)))\b"
    r"|\b(?:does(?:n't| not)|won't|will not|would(?:n't| not)|can(?:'t|not))[ \t]+(?:work|equal|make|reach|get|win)\b"
    r"|\bfails\b|\b(?:would |will )?(?:loses?|wastes?|squanders?)\b"
    r"|(?:[,;?]|\.{2,}|…)[ \t]*(?:no|nope|nah)\b(?![ \t]*\w)"  # a search's verdict on its try (`= 22, no.`, `A1? No,`)
    r"|(?:不好|不行|不对|会输|必输|是错的|是错误的|是个错误)"  # the same, unspaced (`出A不好`)
    rf"|[{CROSS_MARKS}]",  # struck out (`A1 ❌`, `= 22 ✗`)
    re.IGNORECASE,
)
# between the answer's end and the words: closing markup, a stated value, others named with it (`A1 and B2 are
# too slow`)
_BEFORE_THE_WORDS = rf"{_CLOSING}(?:[ \t]*(?:,|and|or|&)[ \t]+\w{{1,4}}{_CLOSING})*[ \t]*(?:=[ \t]*\d+[ \t]*)?"
# a verdict in a parenthesis right after the answer (`A1 (too slow)`, `B2 (doesn't block)`)
_CALLED_WRONG_ASIDE = (
    r"\((?:too[ \t]+(?:slow|weak|passive|late|big|small|large|high|low|much|little)|no|nope|los(?:es|ing)|bad|weak|wrong|incorrect|a blunder|fails?"
    r"|does(?:n't| not)[ \t]+(?:work|block|win|help))\b"
)
_CALLED_WRONG_AFTER = re.compile(
    rf"{_BEFORE_THE_WORDS}(?:{_CALLED_WRONG.pattern}|{_CALLED_WRONG_ASIDE})", re.IGNORECASE
)
_CALLED_WRONG_WORDS = re.compile(rf"{_CALLED_WRONG.pattern}|{_CALLED_WRONG_ASIDE}", re.IGNORECASE)
# what ends an answer just before the words, where the answer's own text runs on into them (a
# labelled line, a sentence): its last digit or bracket
_ANSWER_ENDS_BEFORE = re.compile(rf"[\d)\]}}]{_BEFORE_THE_WORDS}$")
CALLED_WRONG_CHARS = 40  # how far before the words an answer may end (closing markup, `= 24`)
_SENTENCE_END = re.compile(r"[.!?。\n]")


def called_wrong(text: str, end: int) -> bool:
    """Do the words right after the answer that ends at `end` call it wrong, in its own sentence?
    Such an answer is none (rule 7, docs/answers.md)."""
    return _CALLED_WRONG_AFTER.match(text, end, end + 2 * CALLED_WRONG_CHARS) is not None


def rejected_in_its_sentence(answer: str) -> bool:
    """Does this answer's own text (a labelled line, a sentence: `(6-4)*(4+8) is not right.`) call it
    wrong in its first sentence, right after an expression's last digit or bracket? Linear: the
    words are searched for, then what ends just before them is read."""
    stop = _SENTENCE_END.search(answer)
    sentence = answer if stop is None else answer[: stop.start()]
    for words in _CALLED_WRONG_WORDS.finditer(sentence):
        at = words.start()
        if _ANSWER_ENDS_BEFORE.search(sentence, max(0, at - CALLED_WRONG_CHARS), at):
            return True
    return False


_LEADING_NO = re.compile(r"^[^\w\n]*(?:no|nope)\b[,.!]?", re.IGNORECASE)
# a question whether the answer itself is right (`Is this correct?`, `Does it work?`): a "No" after it
# takes the answer back
_DOUBTS_THE_ANSWER = re.compile(
    r"\b(?:this|that|it|the answer|my answer)\b[^?\n]*\b(?:right|correct|work|works|valid|true|ok|okay)\b[^?\n]*\?\s*$",
    re.IGNORECASE,
)
_AFTER_A_QUESTION = re.compile(r"\n|(?<=\?)[ \t]+")  # `Is it right? No.` on one line is two lines


def lines_deny(after: str, names_another: NamesAnother | None = None) -> bool:
    """Does a line of `after` (the text after an answer) say it is wrong or that no answer exists
    (`denies`)? A "No" that answers another question on the line before (`Is there another way?`
    then `No, this is the only one.`, on one line too) is that question's answer: the rest of its
    line is read alone; after a question whether the answer is right (`Is this correct? No.`) it
    takes the answer back. A line that denies an attempt of its own is no denial of the answer
    (`names_another`: `_denies_the_answer`)."""
    return denial_at(after, names_another) is not None


def denial_at(after: str, names_another: NamesAnother | None = None) -> int | None:
    """Where in `after` the first line that denies the answer before it starts (`lines_deny`'s
    rule), or None. What the text writes from there on may replace the answer it denied (`Move: A1`
    / `Wait, that is wrong. I play I5 instead.`: rule 5, docs/answers.md)."""
    previous, start, same_line = "", 0, False
    for gap in [*_AFTER_A_QUESTION.finditer(after), None]:  # lines, and a line's sentences after a question mark
        line = after[start : gap.start() if gap else len(after)]
        answers_a_question = previous.rstrip().endswith("?") and not _DOUBTS_THE_ANSWER.search(previous)
        read = _LEADING_NO.sub("", line, count=1) if answers_a_question else line
        if _denies_the_answer(read, previous + " " if same_line else "", names_another):
            return start
        previous = line if line.strip() else previous
        same_line = gap is not None and gap.group() != "\n"
        start = gap.end() if gap else len(after)
    return None


# the words that deny, wherever on their line (`… so that does not work.`): a replacement is read after them
_DENYING_WORDS = re.compile(f"{DENIALS.pattern}|{REJECTS.pattern}", re.IGNORECASE | re.MULTILINE)


def after_a_denial(text: str, end: int, names_another: NamesAnother | None = None) -> str | None:
    """What the text writes from the first line after the answer ending at `end` that denies it
    (`denial_at`), where a move game reads the answer that replaces it (rule 5); None where no line
    denies it, or where that text speaks of the other side (`That's wrong. The opponent plays I5.`:
    their move never stands in for ours)."""
    denial = denial_at(text[end:], names_another)
    if denial is not None:  # from the end of the words that deny (`X wins at A1, so that fails.`: no move of ours)
        words = _DENYING_WORDS.search(text, end + denial)
        denial = words.end() - end if words else denial
    rest = text[end + denial :] if denial is not None else ""
    return rest if rest and not OTHER_SIDE.search(rest) else None


def taken_back(text: str, end: int, names_another: NamesAnother | None = None) -> bool:
    """Does the text take back its last answer, which ends at `end`: words right after it that call
    it wrong (`called_wrong`), or a line after it that says it is wrong or that no answer exists
    (`lines_deny`: `That's wrong.`, `There is no solution.`; never one that denies an attempt of its
    own, `names_another`)?"""
    return called_wrong(text, end) or lines_deny(text[end:], names_another)


def sentences(text: str) -> list[Span]:
    """In the conclusion's line (`conclusion`), each stretch from a character that can open an
    expression to the end of the line, longest first (`1. (6 - 4) * (4 + 8) = 24`, `24 can be made
    as (8 + 4) × (6 − 4).`)."""
    start, end = conclusion(text)
    corrected = last_match(_A_CORRECTION.finditer(text, start, end))  # `A = 22. Actually, B = 24 works.`: B only
    if corrected and _EXPRESSION_START.search(text, corrected.end(), end):
        start = corrected.start()
    turned = last_match(TURNED_IN_A_CLAUSE.finditer(text, start, end))  # `A, no wait, …. B = 24`: B only
    if turned and _EXPRESSION_START.search(text, turned.end(), end):
        start = turned.end()
    concluded = last_match(_CONCLUDED_IN_A_CLAUSE.finditer(text, start, end))  # `A would be mine, but …, so B.`
    if concluded:
        start = concluded.end()
    found = []
    for m in _EXPRESSION_START.finditer(text, start, end):
        if (
            m.start() > start
            and _NOT_A_START_AFTER.search(text, max(start, m.start() - _BEFORE_A_START), m.start())
            and not _LIST_MARKER.fullmatch(text, start, m.start())  # `- (6 - 4) * …`: a list's dash, no minus
        ):
            continue
        if _LABEL_NUMBER.match(text, m.start(), end) and _WORD_BEFORE_A_NUMBER.search(
            text, max(start, m.start() - _BEFORE_A_START), m.start()
        ):
            continue  # `Attempt 2: …`: the label's number
        opening = _EMPHASIS_BEFORE.search(text, max(start, m.start() - 3), m.start())  # `*14 + 17*`: its pair
        at = opening.start() if opening else m.start()
        beside = _AFTER_AN_OPERAND.search(text, max(start, at - SIDE_BY_SIDE), at)
        if beside and offers(beside.group("between")):  # `<solution>A</solution> or <solution>B`: one of two
            continue
        if denied_before(text, at, start):  # `Not A = 13; or rather, B`
            continue
        if UNDER_A_MISTAKE_LABEL.search(text, max(start, at - MISTAKE_LABEL_CHARS), at):  # `Bad answer: …`
            continue
        stretch = text[at:end].strip()
        if not rejected_in_its_sentence(stretch):
            found.append(Span(stretch, "sentence", at))
            asked = stretch.find("?")  # `How about (8 + 4) × (6 − 4)? That's 12 × 2 = 24.`: posed, then confirmed
            if asked > 0 and not TAKES_BACK.search(stretch, asked + 1):
                found.append(Span(stretch[:asked].strip(), "sentence", at))
        if len(found) == MOST_SENTENCE_STARTS:
            break
    return found


def denied_before(text: str, at: int, start: int = 0) -> bool:
    """Do the words just before the expression at `at` (not before `start`) deny it (`not`, `rather
    than`, `instead of`)?"""
    return _DENIED_BEFORE.search(text, max(start, at - _BEFORE_A_START - 4), at) is not None


# a sentence in the conclusion's line that opens by replacing what came before it (`locate.OPENS_A_CORRECTION`)
_A_CORRECTION = re.compile(
    rf"(?:(?<=[.!?。！？])[ \t]+|^)(?={OPENS_A_CORRECTION.pattern[1:]})", re.IGNORECASE | re.MULTILINE
)


# a clause of the conclusion's line that concludes with an expression (`…, so (8 - 4) * 6.`): its expression only
_CONCLUDED_IN_A_CLAUSE = re.compile(
    r"(?<=[,;:—–])[ \t]*(?:so|therefore|thus|hence)\b[,:]?[ \t]+(?=[*_$\\]*[(\[0-9])", re.IGNORECASE
)
# a clause that corrects what came before it or prefers another (`A, no wait, that skips a 4. B`, `Move: A —
# sorry, I mean B`, `A works, but I prefer B`): where what follows it names an answer, that one is the answer
TURNED_IN_A_CLAUSE = re.compile(rf"(?:(?<=[,;:—–(])|\bbut\b)[ \t]*(?:but[ \t]+)?{_TURNING_WORDS}", re.IGNORECASE)
_ARROW = r"(?:->|→|=>|⇒)"
_AN_ARROW = re.compile(rf"{_ARROW}[ \t*_`]*")  # and the emphasis it opens
_TURNED_BY_AN_ARROW = re.compile(rf"[ \t]*{_ARROW}")  # right after a parenthesis


def turned_to(line: str) -> int | None:
    """Where the last clause of `line` that turns from what came before (`TURNED_IN_A_CLAUSE`) puts
    what it turns to: just after its words, or after an arrow later on the line (`A (oops, wrong
    one) -> B`); None where no clause turns."""
    turned = last_match(TURNED_IN_A_CLAUSE.finditer(line))
    if turned is None:
        return None
    arrow = last_match(_AN_ARROW.finditer(line, turned.end()))
    return arrow.end() if arrow else turned.end()


def last_match(matches: Iterable[re.Match[str]]) -> re.Match[str] | None:
    """The last of `matches`, or None (a regex has no search from the end)."""
    found = None
    for found in matches:  # noqa: B007 (the loop keeps the last)
        pass
    return found


JSON_TRIES = 8  # opening braces tried back from the end for the last JSON object


def json_fields(text: str) -> list[Span]:
    """The fields of the last JSON object in the text whose values are strings or numbers (`{"answer":
    "…", "explanation": "…"}`, where the object's keys share a line), each labelled by its key."""
    decoder = json.JSONDecoder()
    at = len(text)
    for _ in range(JSON_TRIES):
        at = text.rfind("{", 0, at)
        if at < 0:
            return []
        try:
            data, _end = decoder.raw_decode(text, at)
        except ValueError:
            continue
        if isinstance(data, dict):
            return [  # a later field starts later: the object's order is the text's
                Span(str(value), "labelled", at + index, str(key))
                for index, (key, value) in enumerate(data.items())
                if isinstance(value, (str, int, float)) and not isinstance(value, bool) and _short_label(str(key))
            ]
    return []


# what stands in the answer's place where the model has none (`Final answer: none`, `Answer: N/A`,
# `Move: I couldn't find one.`, `<answer></answer>`): its final answer is none
_NO_ANSWER = re.compile(
    r"^[\W_]*(?:(?:none|n/?a|null|nil|unknown|no idea|nothing|not sure|unsure|tbd)(?:[\W_]*$|\s*[(,;:—])"  # alone
    r"|(?:(?:unfortunately|in(?:valid|correct)(?: input)?)[\W_]+)?"  # `Invalid input, cannot …`, `Invalid (cannot …)`
    r"(?:(?:i|we|it|this|these|the (?:given )?numbers?|this (?:combination|set|input)(?: of numbers)?)\s+)?"
    r"(?:(?:could(?:n't| not)|can(?:'t|not)|(?:do|did)(?:n't| not)|(?:am|was|were|is|are) (?:not |un)able to)"
    r"\s+(?:be (?:used|combined) to\s+)?(?:find|solve|know|determine|get|make|obtain|reach|form|achieve|yield|produce)\b"
    r"|unable to\b|(?:there is )?no (?:solution|answer|valid|possible|move|play|way|combination)\b"
    r"|(?:it(?:'s| is) |(?:is|are) )?(?:not |im)possible\b|unsolvable\b|cannot be (?:done|solved|made|found)\b|$))",
    re.IGNORECASE,
)
# the value the task asks for, named as what cannot be reached (`Not possible to obtain 24`): no answer's digit
_TARGET_NAMED = re.compile(
    r"\b(?:obtain(?:ing)?|make|get|reach|form|equals?|produce|achieve|yield|result in)\s+(?:the\s+)?\d+\b",
    re.IGNORECASE,
)
_ANSWER_TAG = re.compile(r"<(answer|move)>(?P<value>[^<]{0,200})</\1>", re.IGNORECASE)


NO_ANSWER_CHARS = 300  # a place that says there is none says it briefly: longer text is read as an answer


def says_no_answer(value: str) -> bool:
    """Does an answer's place hold no answer but say there is none (`none`, `N/A`, `?`, `I couldn't
    find one.`, `Not possible to obtain 24`, or nothing at all)? A value with a digit may hold an answer
    after all (`No solution but 4 * 6`, `no move but I5`): never, unless the number is the one it says
    cannot be reached."""
    if len(value) > NO_ANSWER_CHARS or _NO_ANSWER.match(value.strip()) is None:
        return False
    return not any(c.isdigit() for c in _TARGET_NAMED.sub("", value))


def none_stated_at(text: str) -> int:
    """Where the text's last answer place (a label that is an answer's, `locate.rank`, or an
    `<answer>`/`<move>` tag) says there is none (`says_no_answer`: `Final answer: none`), or -1. After
    an answer, it makes the model's final answer none: no earlier one stands in (rule 4)."""
    places = [(span.start, span.text) for span in labelled(text) if rank(span) == 2]
    places += [(m.start(), m.group("value")) for m in _ANSWER_TAG.finditer(text)]
    if not places:
        return -1
    start, value = max(places)
    return start if says_no_answer(value) else -1


def candidates(text: str) -> list[Span]:
    """Every candidate, last first: labelled lines, cells and JSON fields, then sentences, the last
    line and the whole text."""
    fields = json_fields(text) if "{" in text else []
    marked = sorted(labelled(text) + cells(text) + fields, key=lambda s: s.start, reverse=True)
    marked = [span for span in marked if not rejected_in_its_sentence(span.text)]  # `Answer: … is wrong.`
    lines = [line for line in text.split("\n") if line.strip()]
    tail = [Span(lines[-1].strip(), "line", len(text))] if lines else []
    if tail and rejected_in_its_sentence(tail[0].text):
        tail = []  # `(6-4)*(4+8) is not right.`
    whole = [Span(text.strip(), "whole", 0)] if text.strip() and "\n" in text.strip() else []
    if whole and (any(TAKES_BACK.search(line) for line in lines[1:]) or rejected_in_its_sentence(whole[0].text)):
        whole = []  # the text is not its answer in full: a later line takes back or doubts the first
    return marked + sentences(text) + tail + whole


__all__ = [
    "ASIDE",
    "CONCLUDES",
    "CROSS_MARKS",
    "HEDGE_WORDS",
    "MISTAKE_LABEL_WORDS",
    "NamesAnother",
    "OPENS_A_CORRECTION",
    "OPENS_A_PLAN",
    "OTHER_SIDE",
    "REJECTS_UNSPACED",
    "REPLY_WORDS",
    "Span",
    "TURNED_IN_A_CLAUSE",
    "TURNS_TO_ANOTHER",
    "UNDER_A_MISTAKE_LABEL",
    "after_a_denial",
    "called_wrong",
    "candidates",
    "cells",
    "concluded_answer",
    "counter_example",
    "denial_at",
    "denied_before",
    "introduced_as_mistake",
    "introduced_as_the_form",
    "json_fields",
    "label_cut_off",
    "labelled",
    "labels_after_a_sentence",
    "last_line",
    "last_match",
    "line_at",
    "list_at",
    "lines_deny",
    "none_stated_at",
    "not_shown_as_mistakes",
    "not_theirs",
    "offered_after",
    "offers",
    "rank",
    "replies_at",
    "rejected_in_its_sentence",
    "says_no_answer",
    "sentences",
    "tag_cut_off",
    "taken_back",
    "tells_a_later_turn",
    "tells_an_earlier_try",
    "their_move",
    "talk_takes_back",
    "turned_to",
    "with_choices_resolved",
    "without_asides",
    "without_later_turns",
]

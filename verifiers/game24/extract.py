"""Find the final answer in free text: every place a model puts it, the last one winning.

Where an answer sits (each found wherever it is, the last in the text wins, since models restate or
correct themselves):
- `<answer>…</answer>` (any case) and `\\boxed{…}`; an `<answer>` never closed is read as an
  `Answer:` line (engines leave out the stop string `</answer>` that ended generation);
- a line that opens with an answer marker, after any heading, list, quote or bold markers:
  `Answer:`, `Answer =`, `Final answer -`, `Answer (expression):`, `The answer is`, `So my final
  answer is:`, `Therefore, the answer is`, `Solution:`, `One solution:`, `Expression:`, and the
  marker in Chinese, French, Spanish, German and Russian (`答案：`, `Réponse :`); the expression
  follows on the same line (after a restated `The final answer is`, as in Minerva's format), or,
  where the marker is a heading of its own (`## Answer`, `**Final Answer**`), on the lines after it:
  a `$$ … $$` or `\\[ … \\]` block, a code fence (its language name dropped), a quote, a list item
  or a plain line;
- a marked line without a digit is talk, not an answer (`The answer is correct.` after the answer);
- an expression that ends in an operator or an open parenthesis goes on to the next line, as does
  one without its `=` yet when the next line opens with an operator other than a list's `- `
  (an expression split over two lines).

`final_answers` returns them all, in order, so that the verifier can let the bare target stated
after a right expression (`… = 24` then `\\boxed{24}`) defer to that expression. Every scan is linear
in the text length: a megabyte of adversarial text costs milliseconds.
"""

from __future__ import annotations

import re
from typing import Callable, Iterable

from ..locate import (
    OPENS_A_CORRECTION,
    TURNS_TO_ANOTHER,
    called_wrong,
    labels_after_a_sentence,
    last_match,
    lines_deny,
    not_shown_as_mistakes,
    offered_after,
    offers,
    rejected_in_its_sentence,
)
from .answer import with_word_operators_as_symbols
from .expression import strip_emphasis

_MARKER = re.compile(
    r"^[ \t>#*_+\-\d.)•◦▪‣]*"  # heading, quote, list and bold markers before it
    r"(?:(?:so|therefore|thus|hence|in conclusion)[ \t,]+)?"
    r"(?:(?:(?:my|the|our|one|a|possible)[ \t]+)?(?:final[ \t]+)?(?:answer|solution|expression(?=[ \t*_]*[:：]))"
    r"|(?:最终|最終|最后|最後)?答案|réponse(?:[ \t]+finale)?|respuesta(?:[ \t]+final)?|antwort|ответ)"
    r"(?:[ \t]*\([^()\n]{0,40}\))?[ \t*_]*"  # `Answer (expression):`
    r"(?:(?:[:：]|=>|->|→|⇒|=(?!=)|(?:is\b|是|为|為)[ \t]*[:：]?|[-–—](?=[ \t]))[ \t]*(?P<expr>[^\n]*)|(?P<heading>[ \t*_#:：]*)$)",
    re.IGNORECASE | re.MULTILINE,
)
_OPENERS = (("$$", "$$"), ("\\[", "\\]"), ("```", "```"))
_OPENER_PREFIXES = tuple(opener for opener, _ in _OPENERS)
_LIST_ITEM = re.compile(r"^\s*(?:>\s*)*(?:(?:[-+•◦▪‣]|\*(?=\s)|\d{1,2}[.)])\s+)?")  # quote and list markers
_CONTINUES = re.compile(r"[-+*/×÷−(]\s*$")
_CONTINUED = re.compile(r"\s*(?:[-+*/×÷−·=]|\\times|\\cdot|\\div)\s*[\d(\\]")  # a line that opens with an operator
_LIST_DASH = re.compile(r"\s*[-+*]\s")  # `- 8/8 = 1`: a list item, not a continued expression
_FENCE_LANGUAGE = re.compile(r"[A-Za-z][\w+-]*(?=\s)")  # ```python
# the answer restated inside its own line (`Final Answer: The final answer is $24$. I hope it is correct.`)
_RESTATED = re.compile(r"(?:the[ \t]+)?(?:final[ \t]+)?answer[ \t]+is[ \t]*:?[ \t]*", re.IGNORECASE)
MAX_LINES = 6  # lines one answer may span
MARKERS_READ = 16  # marked lines read back from the end for two answers (the rest without a digit are talk)
_DIGIT = re.compile(r"\d")


# what may end a sentence before an answer's label on its line (a full-width end needs no space)
_SENTENCE_ENDS = (". ", "? ", "! ", "؟ ", "। ", "。", "！", "？")


def _answer_lines(text: str) -> list[tuple[int, str]]:
    """The last two answers marked by a line (see the module docstring), with where they start:
    the last, and the one a bare target after it may defer to. A marked line without a digit is
    talk, not an answer (`The answer is correct.` after the answer line)."""
    found: list[tuple[int, str]] = []
    for m in reversed(list(_MARKER.finditer(text))[-MARKERS_READ:]):
        answer = _with_following(m.group("expr") if m.group("heading") is None else "", text, m.end())
        if _DIGIT.search(answer):
            found.insert(0, (m.start(), answer))
            if len(found) == 2:
                break
    if any(end in text for end in _SENTENCE_ENDS):  # `… let me redo. Answer: 8 * 4 - 6 - 4 = 22`
        after_a_sentence = [
            (span.start, span.text) for span in labels_after_a_sentence(text) if _DIGIT.search(span.text)
        ]
        found = sorted(found + after_a_sentence[-2:])[-2:]
    return found


def _with_following(first: str, text: str, after: int) -> str:
    """The answer that starts with `first` on the marker's line: with the lines after it when it
    is empty or opens a block, and with the next line when it ends mid-expression."""
    taken = first.strip()
    if taken[:1] in ("T", "t", "F", "f") and (restated := _RESTATED.match(taken)):
        taken = taken[restated.end() :]
    heading = not taken.strip("*_ ")
    if not heading and not taken.startswith(_OPENER_PREFIXES) and not _goes_on(taken, text, after):
        return taken  # the usual answer: complete on its own line
    lines = text[after : after + 8192].split("\n", MAX_LINES + 1)[1 : MAX_LINES + 1]
    if heading:  # the answer is on the next non-empty line, perhaps a list item, never a rule under the heading
        lines = [line for line in lines if line.strip() and not _RULE.fullmatch(line)]
        taken = _LIST_ITEM.sub("", lines.pop(0)).strip() if lines else ""
    for opener, closer in _OPENERS:  # a block: up to its closing line
        if taken.startswith(opener):
            body = taken[len(opener) :]
            while closer not in body and lines:
                body += " " + lines.pop(0).strip()
            if opener == "```" and (language := _FENCE_LANGUAGE.match(body)):
                body = body[language.end() :]
            return opener + body
    while lines and lines[0].strip() and (_ends_open(taken) or _opens_with_operator(taken, lines[0])):
        taken += " " + lines.pop(0).strip()
    return taken


# a Markdown rule, or a heading's underline (`Solution` / `--------`): no answer, nor part of one
_RULE = re.compile(r"[ \t]*([-=*_])(?:[ \t]*\1){2,}[ \t]*")


def _goes_on(taken: str, text: str, after: int) -> bool:
    """Does the expression go on to the next line: it ends mid-way, or the next line opens with an
    operator (`(7 - 8/8)` then `× 4 = 24`)?"""
    if _ends_open(taken):
        return True
    if "=" in taken or text[after : after + 1] != "\n":
        return False
    return _opens_with_operator(taken, text[after + 1 : after + 1 + 200].split("\n", 1)[0])


# an emphasis opened inside the line and closed at its end (`We get *14 + 17*`): its closing `*` is no
# operator (`(6-4)*(4+8)*`, its `*` after no space, is an unfinished product)
_EMPHASIS_CLOSED_AT_END = re.compile(r"(?:^|\s)(?P<mark>\*{1,3}|_{1,2})(?=\S)[^\n]*?\S(?P=mark)$")
EMPHASIS_READ_CHARS = 1000


def _ends_open(taken: str) -> bool:
    """Does the expression end mid-way (an operator or an open parenthesis last)?"""
    body = strip_emphasis(taken)
    closing = body[-1:] in ("*", "_") and len(body) <= EMPHASIS_READ_CHARS  # an answer's length: bounded work
    if closing and (closed := _EMPHASIS_CLOSED_AT_END.search(body)):
        body = body[: len(body) - len(closed.group("mark"))]
    ends_open = not body[-1:].isdigit() and bool(_CONTINUES.search(body))  # a digit: never
    return ends_open or taken.count("(") > taken.count(")")


def _opens_with_operator(taken: str, line: str) -> bool:
    """Does `line` carry on `taken`, an expression without its value yet, from an operator? (A list
    item `- 8/8 = 1` under a complete `… = 24` never does: `taken` has its `=` already.)"""
    return "=" not in taken and bool(_CONTINUED.match(line)) and not _LIST_DASH.match(line)


def _last_tag(text: str) -> list[tuple[int, str]]:
    """The last `<answer>…</answer>`, tags in any case (positions come from the text itself, never
    from a case-folded copy, whose length may differ: `İ` folds to two characters)."""
    if "<" not in text and "[" not in text and "＜" not in text:
        return []
    opening = last_match(_OPEN_TAG.finditer(text))
    if opening is None:
        return []
    close = _CLOSE_TAG.search(text, opening.end())
    if close is not None:  # the usual answer
        return [(opening.start(), text[opening.end() : close.start()])]
    if not opening.group().startswith("<"):
        return []  # `[answer]` never closed: a link's text, perhaps
    # never closed: engines leave out the stop string `</answer>` that ended generation
    line_end = text.find("\n", opening.end())
    line_end = len(text) if line_end < 0 else line_end
    unclosed = _with_following(text[opening.end() : line_end], text, line_end)
    if unclosed.strip():
        return [(opening.start(), unclosed)]
    # an empty tag at the end (cut off by the token limit): the last closed one still counts
    close = last_match(_CLOSE_TAG.finditer(text))
    opening = None if close is None else last_match(_OPEN_TAG.finditer(text, 0, close.start()))
    if close is None or opening is None:
        return []
    return [(opening.start(), text[opening.end() : close.start()])]


_TEXT_WRAPPER = re.compile(r"\\(?:text|textbf|mathrm|mathbf)\{([^{}]*)\}")
# the tag in angle brackets, full-width ones or square ones (`[ANSWER] … [/ANSWER]`)
_OPEN_TAG = re.compile(r"<answer\s*>|＜answer＞|\[answer\]", re.IGNORECASE)
_CLOSE_TAG = re.compile(r"</answer\s*>|＜/answer＞|\[/answer\]", re.IGNORECASE)


def _last_boxed(text: str) -> list[tuple[int, str]]:
    start = text.rfind("\\boxed{")
    if start < 0:
        return []
    depth, i = 0, start + len("\\boxed")
    for j in range(i, len(text)):
        if text[j] == "{":
            depth += 1
        elif text[j] == "}":
            depth -= 1
            if depth == 0:
                inner = text[i + 1 : j]
                wrapped = _TEXT_WRAPPER.fullmatch(inner.strip())  # `\\boxed{\\text{…}}`
                return [(start, wrapped.group(1) if wrapped else inner)]
    return []


EXTRACTORS: dict[str, Callable[[str], list[tuple[int, str]]]] = {
    "answer_line": _answer_lines,
    "answer_tag": _last_tag,
    "boxed": _last_boxed,
}


def final_answers(text: str, formats: Iterable[str] = ("answer_line", "answer_tag", "boxed")) -> list[str]:
    """Every final answer in `text` in any of `formats`, in the order they appear, stripped; empty ones dropped."""
    found: list[tuple[int, str]] = []
    for name in formats:
        found += EXTRACTORS[name](text)
    found = [(at, answer) for at, answer in found if not _called_wrong(text, at, answer)]
    if len(found) > 1:
        found.sort()  # and an answer shown as a mistake (`A common mistake is:`) is none where another is
        found = not_shown_as_mistakes(found, text, lambda answer: answer[0])
    answers = (_unquoted(answer.strip().strip("`").strip()) for _, answer in found)
    return [a for a in answers if a]


def _called_wrong(text: str, at: int, answer: str) -> bool:
    """Does the answer's own sentence call it wrong (`Answer: (6-4)*(4+8) is wrong.`, `<answer>…</answer>
    doesn't work`)? Such an answer is none (docs/answers.md, rule 7)."""
    if rejected_in_its_sentence(answer):
        return True
    start = text.find(answer, at)  # the answer itself, after its marker (absent where lines were joined)
    return start >= 0 and called_wrong(text, start + len(answer))


def _unquoted(answer: str) -> str:
    """An answer without the quotes around it: a YAML or JSON string's (`answer: "(6 - 4) * 8"`),
    or typographic ones of any language (`«…»`, `「…」`, `“…”`), a sentence's full stop after them too
    (`The answer is "(6-4)*(4+8)".`)."""
    quoted = answer.rstrip(".。!！ \t") if answer[-1:] in ".。!！" else answer
    if len(quoted) > 1 and _QUOTES.get(quoted[0]) == quoted[-1]:
        return quoted[1:-1].strip()
    return answer


_QUOTES = {'"': '"', "'": "'", "«": "»", "»": "«", "「": "」", "『": "』", "“": "”", "„": "“", "‘": "’", "‹": "›"}


def final_answer(text: str, formats: Iterable[str] = ("answer_line", "answer_tag", "boxed")) -> str | None:
    """The last final answer in `text` in any of `formats`; None if there is none."""
    answers = final_answers(text, formats)
    return answers[-1] if answers else None


def offers_another(
    text: str,
    answer: str,
    formats: Iterable[str] = ("answer_line", "answer_tag", "boxed"),
    same: Callable[[str, str], bool] = lambda answer, other: False,
    attempts: Callable[[str], bool] = lambda expression: False,
) -> bool:
    """Is a second answer offered beside `answer`: on a line after it (another expression, or the
    claim that none exists), or as an earlier, different final answer that the words between offer
    it beside (`Answer: A` / `Alternatively:` / `Answer: B`)? One answer too many, whichever is
    right (docs/answers.md); or does a sentence after it open by replacing it with another attempt
    (`Actually, 8 * 4 - 6 - 4 is better.`)? `same(answer, other)`: is an expression offered the same
    answer (`4*6*(3-2) works too` beside `6*4*(3-2)`: the same numbers and value), which offers none;
    `attempts(expression)`: is it an attempt at the puzzle (a step, `2 * 12 = 24`, replaces nothing); a
    line that calls "that" wrong after such an attempt of its own speaks of it, not of the answer."""

    def offers_other(words: str) -> bool:
        found = arithmetic_in(words)
        return offers(words) and bool(_DIGIT.search(words)) and not (found and all(same(answer, e) for e in found))

    def names_another(words: str) -> bool:  # `Note that 8 * 4 - 6 - 4 = 22, so that does not work.`: its own try
        return any(attempts(e) and not same(answer, e) for e in arithmetic_in(words))

    at = text.rfind(answer)
    if at < 0:
        return False
    line_after = text.find("\n", at)  # an answer of many lines (the whole text) has its own later lines
    rest = text[at + len(answer) : len(text) if line_after < 0 else line_after]
    if '"' in rest and any(_DIGIT.search(piece) for piece in offered_after(text, at + len(answer))):
        return True  # `{"answer": "…", "alternatives": ["…"]}`: a field after it offers another
    tail = _words_after(text, at)
    if lines_deny(tail, names_another):
        return True  # `… = 24, but it is invalid here.`, `… = 24 — wait. I can't find one.` on its own line
    if offers_other(tail):
        return True  # `<answer>…</answer> (or (8 - 4) * 6)`, `… — (8 - 4) * 6 also works` on its own line
    if turned_to_another(text, answer, names_another) is not None:
        return True  # `…, or rather B.`, `… = 24. Actually, 8 * 4 - 6 - 4 is better.`: the verifier reads B
    if line_after >= 0:
        if lines_deny(text[line_after:], names_another):
            return True  # `There is no solution.`, `No, that's wrong.` after it (never of a try of its own)
        if any(offers_other(line) for line in text[line_after:].split("\n")):
            return True  # `Alternatively: …`, `Another solution: …` after it
    # most texts hold no answer marker before this answer's own (its `Answer:` label or `<answer>`
    # tag): three string counts, not a scan for two answers
    if text.count("nswer", 0, at) + text.count("NSWER", 0, at) + text.count("boxed", 0, at) < 2:
        return False
    mine = _bare(answer)
    for earlier in reversed(final_answers(text[:at], formats)):
        if _bare(earlier) != mine:
            end = text.rfind(earlier, 0, at) + len(earlier)
            return offers(text[end:at])
    return False


def _words_after(text: str, at: int) -> str:
    """The words after the arithmetic of the answer at `at`, on its own line."""
    line_after = text.find("\n", at)
    own_line = text[at : len(text) if line_after < 0 else line_after]
    arithmetic = _ARITHMETIC_STRETCH.search(own_line)
    return own_line[len(arithmetic.group().rstrip(_NOT_ITS_END)) + arithmetic.start() :] if arithmetic else ""


def turned_to_another(text: str, answer: str, names_another: Callable[[str], bool]) -> int | None:
    """Where the text turns from `answer` to another attempt (`names_another`, the verifier's), the
    position in `text` just after the turning words, where what the text ends on follows: a clause
    after it on its own line (`locate.TURNS_TO_ANOTHER`: `Answer: A, or rather B.`, `A — sorry, I
    mean B`, `A would be my choice, but I prefer B`), else a later sentence that opens a correction
    and names another (`… = 24. Actually, 8 * 4 - 6 - 4 is better.`). None where it turns to none."""
    at = text.rfind(answer)
    if at < 0:
        return None
    line_after = text.find("\n", at)
    line_end = len(text) if line_after < 0 else line_after
    tail = _words_after(text, at)
    turn = TURNS_TO_ANOTHER.search(tail)
    if turn is not None and names_another(tail[turn.end() :]):
        return line_end - len(tail) + turn.end()
    at = line_end - len(tail)
    for sentence in _SENTENCE_BREAK.split(text[at:]):
        at = text.find(sentence, at)
        if OPENS_A_CORRECTION.match(sentence) and names_another(sentence):
            return at
        at += len(sentence)
    return None


def arithmetic_in(words: str) -> list[str]:
    """The stretches of arithmetic in `words` that hold an operator (`2 × 12 = 24` in `Step 3: 2 × 12 = 24`)."""
    return [m.group().strip() for m in _ARITHMETIC_STRETCH.finditer(words) if _OPERATOR.search(m.group())]


# the answer's arithmetic in its line: what follows it there is words about it
_ARITHMETIC_STRETCH = re.compile(r"[\d(\[][\d\s+\-*/×÷·⋅−–=()\[\]xX]*+")  # possessive: linear
_NOT_ITS_END = " \t+-*/×÷·⋅−–=(["  # it ends at its last digit or closing bracket
_SENTENCE_BREAK = re.compile(r"(?<=[.!?。！？])[ \t]+|\n")
_OPERATOR = re.compile(r"\d[\s()\[\]]*[-+*/×÷·⋅−–xX][\s()\[\]]*\d")


def _bare(answer: str) -> str:
    """An answer without spaces or a stated result (`(6 - 4) * (4 + 8) = 24` is `(6-4)*(4+8)`)."""
    return re.sub(r"\s+", "", answer).partition("=")[0]


CUT_OFF_ENDS = tuple("(:：[+-/×÷=")  # a last line ending so stopped mid-answer (`Answer: (`, `= 6 +`)


def cut_off(text: str) -> bool:
    """Does the text end mid-answer: its last non-empty line, without trailing emphasis, ends in an
    opening parenthesis, an operator or a label's colon? (The token limit cut the final answer: no
    answer, and no earlier one stands in for it.)"""
    end = text.rstrip()
    last = end[end.rfind("\n") + 1 :].rstrip("*_ \t")
    return last.endswith(CUT_OFF_ENDS)


_VALUE_ONLY = re.compile(r"[\s$*=]*\d+(?:\.\d+)?[\s$*.]*")


_OPERAND = r"(\d+(?:\.\d+)?|\([^()\n]{1,60}\))"
# an operation written as a verb and its two operands (`Multiply (6-4) by (4+8)`, `subtract 4 from 8`)
_VERB_OPERATION = re.compile(
    rf"\b(multiply|add|subtract|divide)\s+{_OPERAND}\s+(by|and|to|from)\s+{_OPERAND}"
    r"(?:[ \t]*[:：][ \t]*(\d+(?:\.\d+)?)\b)?",  # its result after a colon: `Subtract 4 from 6: 2`
    re.IGNORECASE,
)
_VERB_FORMS = {  # (verb, preposition) -> the expression, from the operands as written
    ("multiply", "by"): "{a} * {b}",
    ("multiply", "and"): "{a} * {b}",
    ("add", "and"): "{a} + {b}",
    ("add", "to"): "{a} + {b}",
    ("subtract", "from"): "{b} - {a}",
    ("divide", "by"): "{a} / {b}",
}


# a step in words: an operation, then words that state its result (`6 - 4 to get 2`, `2 * 12 is 24`)
_STEP_IN_WORDS = re.compile(
    rf"(?P<operation>{_OPERAND}\s*[-+*/×÷·−]\s*{_OPERAND}|\([^()\n]{{1,60}}[-+*/×÷·−][^()\n]{{1,60}}\))"  # `(6-4) gives 2`
    r"(?:\s+(?:to get|gives|giving|is|equals|makes|yields|results in)\s+|[ \t]*(?:→|⇒|⟶|->|=>)[ \t]*)"  # `6 - 4 → 2` too
    r"(?P<result>\d+(?:\.\d+)?)\b",
    re.IGNORECASE,
)


# a step in words with its result first (`2 from 6 - 4`, `12 from (4+8)`): the same step
_RESULT_FIRST = re.compile(
    rf"\b(?P<result>\d+(?:\.\d+)?)\s+(?:from|out of)\s+"
    rf"(?P<operation>{_OPERAND}\s*[-+*/]\s*{_OPERAND}|\([^()\n]{{1,60}}[-+*/][^()\n]{{1,60}}\))",
    re.IGNORECASE,
)


# a line of Python that prints or evaluates an expression, a comment after it
_PRINTED = re.compile(r"^(?P<indent>[ \t>]*)(?:print|eval)\((?P<expression>[^\n]*)\)[ \t]*(?:#[^\n]*)?$", re.MULTILINE)


def with_verbs_written_out(text: str) -> str:
    """`text` with arithmetic written in words as symbols: an operation written as a verb and its
    operands as the expression it names (`Multiply (6-4) by (4+8) to get 24.` reads `(6-4) * (4+8) to
    get 24.`; forms that name no operation, `divide 8 and 2`, stay as written), an operator word
    between operands as its symbol (`6 minus 4`), words that state an operation's result as `=`
    (`6 - 4 to get 2`; `2 from 6 - 4`), and a table's numbered step rows as step lines (`| 1 | 6 - 4 | 2 |` reads `6 -
    4 = 2`), so that steps in words or in a table are steps; and an expression a line of Python
    prints or evaluates as the expression (`print((6-4)*(4+8))  # 24` reads `(6-4)*(4+8)`)."""

    def written_out(m: re.Match[str]) -> str:
        form = _VERB_FORMS.get((m.group(1).lower(), m.group(3).lower()))
        if form is None:
            return m.group()
        return form.format(a=m.group(2), b=m.group(4)) + (f" = {m.group(5)}" if m.group(5) else "")

    if "print(" in text or "eval(" in text:
        text = _PRINTED.sub(r"\g<indent>\g<expression>", text)
    text = with_word_operators_as_symbols(_VERB_OPERATION.sub(written_out, text))
    if "|" in text:
        text = _TABLE_STEP.sub(_table_step, text)
    if "from" in text or "out of" in text:
        text = _RESULT_FIRST.sub(r"\g<operation> = \g<result>", text)
    text = _STEP_IN_WORDS.sub(r"\g<operation> = \g<result>", text)
    return with_running_steps_written_out(text) if _RUNNING_STEP.search(text) else text


# a step in words on the running result, its first operand left out (`Multiply by 3: 318.`, `then
# subtract 50 to get 23800`, `, times 4 is 4`), and where the running result starts (`Start with 8.`)
_RESULT_WORDS = (
    r"(?:[ \t]*[:：,][ \t]*|[ \t]+(?:to get|gives|giving|is|equals|makes|yields|=)[ \t]+|[ \t]*(?:→|⇒|->|=)[ \t]*)"
)
_RUNNING_STEP = re.compile(
    r"\b(?P<verb>multiply|add|subtract|divide|times|plus|minus|divided)(?:[ \t]+(?:it|that|this|the result))?"
    r"(?:[ \t]+by)?[ \t]+(?P<operand>\d+(?:\.\d+)?)(?:[ \t]+(?:to it|from it|to that|from that))?"
    rf"{_RESULT_WORDS}(?P<result>\d+(?:\.\d+)?)\b(?![ \t]*[-+*/×÷·−])",
    re.IGNORECASE,
)
_RUNNING_START = re.compile(
    r"\b(?:start|begin|starting|beginning)[ \t]+with[ \t]+(?P<start>\d+(?:\.\d+)?)\b(?![ \t]*[-+*/×÷·−])"
    r"|=[ \t]*(?P<result>\d+(?:\.\d+)?)\b(?![ \t]*[-+*/×÷·−])",
    re.IGNORECASE,
)
_OPERAND_BEFORE = re.compile(
    r"(?:[\d)]|\\)[ \t$]*$"
)  # what ends just before a step's verb where it is an infix operator
_RUNNING_SYMBOL = {"multiply": "*", "times": "*", "add": "+", "plus": "+", "subtract": "-", "minus": "-", "divide": "/"}


def with_running_steps_written_out(text: str) -> str:
    """`text` with each step on the running result written as a step: the result stated last before
    it (`= 106`, or `Start with 8`) is its first operand (`100 + 6 = 106. Multiply by 3: 318.` reads
    `… 106 * 3 = 318.`). One that has no result before it stays as written; the steps are checked
    as any others are (each number once, the arithmetic true)."""
    pieces, at, running = [], 0, None
    marks = sorted([*_RUNNING_START.finditer(text), *_RUNNING_STEP.finditer(text)], key=lambda m: m.start())
    for m in marks:
        if m.start() < at:
            continue
        if "verb" not in m.re.groupindex:
            running = m.group("start") or m.group("result")
            continue
        if _OPERAND_BEFORE.search(text, max(0, m.start() - 8), m.start()):  # `2 \\times 12 = 24`, `8 minus 6 is 2`:
            running = m.group("result")  # an operator between operands, a whole step: its result runs on
            continue
        verb = m.group("verb").lower()
        if running is not None:
            symbol = _RUNNING_SYMBOL.get(verb, "/")
            pieces += [text[at : m.start()], f"{running} {symbol} {m.group('operand')} = {m.group('result')}"]
            at = m.end()
        running = m.group("result")
    return "".join(pieces) + text[at:]


# a table row of a numbered step (`| 1 | 6 - 4 | 2 |`, `| Step 2 | 4 + 8 = 12 |`): the step as a line
_TABLE_STEP = re.compile(
    r"^[ \t]*\|[ \t]*(?:step[ \t]*)?\d{1,2}[.)]?[ \t]*\|(?P<cells>[^\n]*)\|[ \t]*$", re.IGNORECASE | re.MULTILINE
)
_NUMBER_CELL = re.compile(r"[\s$*=]*-?\d+(?:\.\d+)?[\s$*]*")


def _table_step(m: re.Match[str]) -> str:
    """A numbered step's row as its step: `operation | result` as `operation = result`, one cell as it is;
    any other row as it is."""
    cells = [cell.strip() for cell in m.group("cells").split("|")]
    if len(cells) == 2 and _NUMBER_CELL.fullmatch(cells[1]):
        return f"{cells[0]} = {cells[1].strip(' $*=')}"
    return cells[0] if len(cells) == 1 else m.group()


def located_answer(
    text: str,
    parses: Callable[[str], bool],
    answers_this: Callable[[str], bool],
    attempts: Callable[[str], bool] = lambda answer: False,
) -> str | None:
    """Where the marked readers above find nothing: the structural candidates of `verifiers.locate`
    (a label of any language by its shape, a JSON or YAML key, a table cell; then a sentence's
    expression in the last line, the last line, the whole text). The last candidate whose label is
    an answer's (`locate.rank`: `Lösung:`, `答え：`, `정답:`) is the answer or there is none: an earlier
    one never stands in for it, nor for a final line cut off mid-answer (`Answer: (`). Any other
    candidate (a label such as `Now:` or one in an unknown word, a sentence, the last line), the
    latest line first, must also read as an answer to this puzzle (`answers_this`: an expression
    over exactly its numbers), so that a step or a number in passing is never taken for one; a label
    that introduces a question or a step never holds an answer. In the conclusion's line an attempt
    at the puzzle that misses (`attempts`: `So (6 - 4) * (8 + 6) = 24.`) is the answer too: an
    earlier line never stands in for it."""
    from ..locate import candidates, rank

    if cut_off(text):
        return None
    spans = candidates(text)
    marked = [s for s in spans if s.kind in ("labelled", "cell") and _DIGIT.search(s.text) and rank(s) == 2]
    while len(marked) > 1 and _VALUE_ONLY.fullmatch(marked[0].text):
        marked.pop(0)  # a value stated after the answer (`"result": 24`) defers to the answer before it
    if marked:  # the last answer's label (`Lösung:`, `答え：`): it is the answer or there is none
        return marked[0].text if parses(marked[0].text) else None
    others = [s for s in spans if rank(s) == 1 or s.kind not in ("labelled", "cell")]
    others.sort(key=lambda s: text.rfind("\n", 0, s.start), reverse=True)  # the latest line first (stable)
    for span in others:  # any other label (`xyzzy:`, `Now:`), a sentence, the last line: only an answer to this puzzle
        if parses(span.text) and answers_this(span.text) or span.kind in ("sentence", "line") and attempts(span.text):
            return span.text
    return None

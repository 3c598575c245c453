"""Hypothesis strategies that present one answer the ways model outputs do, over independent axes,
each draw labelled by construction: `pays` is whether the presented answer must be paid as the bare
answer is (docs/answers.md states the rules; `verifiers.turn` and each verifier's reader follow them).

Axes: container (fences of every kind, raw, a line, tags) x label (a multilingual lexicon, and random
words in random scripts: a label is recognised by its shape, a short phrase ending in a colon) x
position (alone, after reasoning, after a think block, after a draft the text rejects) x decoration
(CRLF, no-break spaces, full-width colons) x noise (a chat token and junk after the turn, trailing
talk, a usage or test block, a driver `main()` that reads stdin called after the program) x traps
(a hedge with a second answer, the answer only after the turn ended, a reasoning block never closed,
a final answer cut off after a draft, a final version that does not compile, the answer rejected for another, the answer called wrong or
followed by `Final answer: none`, the answer only in a quoted format example): a trap never pays.

    from pytest_plugin.presentations import code_presentations

    @given(code_presentations(RIGHT, other=WRONG, usage="print(f(3))"))
    def test_every_presentation(p):
        paid = verifier.score(p.text, TASK).verdict.value == "correct"
        assert paid == p.pays, p.axes
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hypothesis import strategies as st

# labels as people write them, in many languages and typographies (a lexicon only to draw from:
# readers recognise a label by its shape)
LABELS = (
    "Answer:",
    "Final answer:",
    "**Solution:**",
    "Solution:",
    "Lösung:",
    "答え：",
    "答案：",
    "정답:",
    "Resposta:",
    "الجواب:",
    "Réponse\u00a0:",
    "Respuesta:",
    "Ответ:",
    "Risposta:",
    "Odpowiedź:",
    "Cevap:",
    "उत्तर:",
    "Jibu:",
)
LEAD_WORDS = ("", "So ", "Donc la ", "所以", "Putting it together, the ")
SCRIPTS = (
    st.characters(min_codepoint=0x41, max_codepoint=0x5A),
    st.characters(min_codepoint=0x430, max_codepoint=0x44F),
    st.characters(min_codepoint=0x4E00, max_codepoint=0x4FFF),
    st.characters(min_codepoint=0x3B1, max_codepoint=0x3C9),
)
TURN_ROLES = frozenset({"USER", "HUMAN"})  # random label words that would open a next turn instead
COLONS = (":", "：", " :", "\u00a0:")
CHAT_ENDS = (
    "<|im_end|>",
    "<|eot_id|>",
    "<|eom_id|>",
    "</s>",
    "<|endoftext|>",
    "<end_of_turn>",
    "[INST]",
)  # [INST]: a next user turn
# the model's own turn header, decoded with the completion by some trainers: not text of the turn
OWN_HEADERS = (  # and Llama 3.1's opening of a turn of code for its interpreter, alone or after its header
    "<|im_start|>assistant\n",
    "<|start_header_id|>assistant<|end_header_id|>\n\n",
    "<|python_tag|>",
    "<|start_header_id|>assistant<|end_header_id|>\n\n<|python_tag|>",
)
TALK = ("", "\nThis runs in linear time.", "\nHope this helps!", "\n\nThe idea is to handle each case once.")
TALK += (
    "\nI couldn't find a simpler one.",
    "\nAnything else would otherwise cost time.",
)  # neither gives up nor offers
REASONING = ("Let me think about the edge cases first.\nThe empty input needs care.\n\n",)
HEDGES = (
    "\nAlternatively:\n",
    "\nAlternatively, ",
    "\nor\n",
    "\nOr maybe: ",
)  # what puts a second answer beside the first
INLINE_HEDGES = (" (or {})", " — {} also works", " / or maybe {}")  # the same, on the answer's own line
# the same on a later line, the second answer without its label (`{}`): offered all the same
LATER_HEDGES = ("\nAlternatively, {}.", "\n{} is equally good.", "\n{} would work as well.", "\n\n{} also works.")

REJECTIONS = (
    "\nWait, that is wrong. Corrected:\n",
    "\nNo, that fails. Let me redo it.\n\n",
    " Actually, the better one is:\n",
)  # a later answer stands
# words on the answer's line that turn from it to the answer after them (`A, or rather B.`): B is the answer
CORRECTIONS = (", or rather {}.", " — sorry, I mean {}.", ", no wait, {}.", " (oops) -> {}", ", correction: {}")
# words after the final answer that take it back, in its own sentence or on a line of their own: no answer
CALLED_WRONG = (" is wrong.", " would be a mistake.", " doesn't work.", "\nThat's wrong.", "\nNo, this is incorrect.")
CALLED_WRONG += ("\nOops, that breaks a rule.", "\nI made a mistake.", "\nHmm, that's off. Let me fix it.")  # a blunder
# a final answer's place after the answer that says there is none: no answer, the earlier never stands in
NONE_STATED = ("\nFinal answer: none", "\n**Answer:** N/A", "\nFinal answer: I couldn't find one.")
# a last line that concludes with an answer (`{}`: the answer without its label): with the answer, it
# restates it; with another, the text ends on a second final answer, one too many (docs/answers.md, rule 5)
CONCLUSIONS = (
    "\n\nSo the answer is {}.",
    "\n\nTherefore, {}.",
    "\n\nThus my final answer is {}.",
    "\n\nSo I go with {}.",
)
# another answer shown after the answer as what not to do or for comparison: the answer still stands
_LABELLED = re.compile(
    r"[A-Za-z][\w ]{0,20}:"
)  # an answer under its label (`Move: A1`): `Bad move: A1` shows a mistake
SHOWN_AS_MISTAKES = ("\nA common mistake is:\n", "\nFor comparison, a weaker one would be:\n", "\nDon't write this:\n")
EXAMPLES = (
    'The reply should look like "{}".\n\n',
    "For example:\n> {}\n\nNow my own answer.\n",
)  # quoted, not answered


@dataclass(frozen=True)
class Presentation:
    """One presented answer: the text, whether it must be paid as the bare answer is, and the axis
    values that made it (for a failure message)."""

    text: str
    pays: bool
    axes: tuple[str, ...]


@st.composite
def labels(draw: st.DrawFn) -> str:
    """A label: from the lexicon, or random words in one random script, with a colon of any width."""
    if draw(st.booleans()):
        return draw(st.sampled_from(LEAD_WORDS)) + draw(st.sampled_from(LABELS))
    script = draw(st.sampled_from(SCRIPTS))
    words = draw(st.lists(st.text(script, min_size=2, max_size=7), min_size=1, max_size=2))
    if words[0] in TURN_ROLES:  # `HUMAN:` opens a next turn (docs/answers.md, rule 1): no label
        words[0] += "X"
    return " ".join(words) + draw(st.sampled_from(COLONS))


def _fenced(code: str, fence: str, language: str, indent: str = "") -> str:
    body = "".join(indent + line + "\n" for line in code.rstrip("\n").split("\n"))
    return f"{indent}{fence}{language}\n{body}{indent}{fence}"


CONTAINERS = (
    "```python",
    "```py",
    "```",
    "~~~python",
    "````python",
    "list item",
    "fence closed on the last line",
    "raw",
    "raw after prose",
    "indented after prose",
)
UNFENCED = ("raw", "raw after prose", "indented after prose")


def _contain(code: str, container: str) -> str:
    if container == "raw":
        return code.rstrip("\n") + "\n"
    if container == "raw after prose":
        return "Here is the function:\n" + code.rstrip("\n") + "\n"
    if container == "indented after prose":  # Markdown's indented code block
        return "Here is the function:\n\n" + "".join(f"    {line}\n" for line in code.rstrip("\n").split("\n"))
    if container == "list item":
        return "1. The code:\n" + _fenced(code, "```", "python", "   ")
    if container == "fence closed on the last line":  # `    return x```
        return f"```python\n{code.rstrip()}```"
    fence = container.rstrip("abcdefghijklmnopqrstuvwxyz")
    return _fenced(code, fence, container[len(fence) :])


@st.composite
def code_presentations(draw: st.DrawFn, program: str, other: str, usage: str = "") -> Presentation:
    """`program` (a right program) presented over every axis; `other` a different program (a trap's
    second answer), `usage` a few statements that call it (a usage block, never the program)."""
    container = draw(st.sampled_from(CONTAINERS))
    fenced = container not in UNFENCED
    axes = [f"container={container}"]
    if usage and draw(st.integers(0, 3)) == 0:  # a driver called at the end: a demo, never the program
        driver = "".join(f"    {line}\n" for line in [*usage.splitlines(), "input()"])
        program = program.rstrip("\n") + "\n\n\ndef main():\n" + driver + "\n\nmain()\n"
        axes.append("driver=main() reading stdin")
    answer = _contain(program, container)
    if fenced and draw(st.booleans()):
        label = draw(labels())
        answer = label + "\n" + answer
        axes.append(f"label={label!r}")
    before = ""
    position = draw(st.sampled_from(("alone", "after reasoning", "after a think block", "after a rejected draft")))
    if position == "after reasoning" and fenced:
        before = REASONING[0]
    elif position == "after a think block":
        before = "<think>\n" + REASONING[0] + _contain(other, "```python") + "\n</think>\n"
    elif position == "after a rejected draft" and fenced:
        before = _contain(other, "```python") + "\nThis version is wrong: it misses a case. Fixed:\n"
    axes.append(f"position={position}")
    trap = draw(
        st.sampled_from(
            ("none",) * 4
            + ("hedge", "after the turn ended", "reasoning never closed", "cut off", "another program unfenced after")
            + ("a final version that does not compile",)
        )
    )
    after = ""  # a trap's text first: noise after it (a chat end) must not hide it
    if trap == "hedge":
        after = "\nAlternatively, a simpler one:\n" + _contain(other, "```python")
    elif trap == "another program unfenced after":  # the final answer, with no fence: the answer before is a draft
        after = "\nActually, simpler:\n\n" + other.rstrip("\n") + "\n"
    elif trap == "after the turn ended":
        before = _contain(other, "```python") + draw(st.sampled_from(CHAT_ENDS)) + "\n"
    elif trap == "reasoning never closed":
        before = "<think>\n" + REASONING[0]
    elif trap == "cut off":
        cut = _contain(other, "```python")
        after = "\nA better version:\n" + cut[: max(12, len(cut) * 2 // 3)].rstrip("`") + " (["
    elif trap == "a final version that does not compile":  # its first line's colon lost: the answer is a draft
        after = "\nFinal version:\n" + _contain(other.replace(":\n", "\n", 1), "```python")
    axes.append(f"trap={trap}")
    noise = draw(st.sampled_from(("none", "talk", "usage block", "chat end then junk")))
    if trap == "cut off" or trap == "reasoning never closed":
        noise = "none"  # the text ends where it was cut off
    if noise == "talk":
        after += draw(st.sampled_from(TALK[1:]))
    elif noise == "usage block" and fenced and usage:
        after += "\nExample usage:\n" + _contain(usage, "```python")
    elif noise == "chat end then junk":
        after += draw(st.sampled_from(CHAT_ENDS)) + "\nUser: thanks!\n" + _contain(other, "```python")
    axes.append(f"noise={noise}")
    pays = trap == "none"
    text = before + answer + after
    if draw(st.booleans()):
        text, _ = text.replace("\n", "\r\n"), axes.append("CRLF")
    return Presentation(text, pays, tuple(axes))


def _unlabelled(answer: str) -> str:
    """The answer without its label (`Move: A1` is `A1`): what an option's own label holds."""
    label = _LABELLED.match(answer)
    return answer[label.end() :].strip() if label else answer


def _options(draw: st.DrawFn, answer: str, other: str) -> tuple[str, str]:
    """The two answers listed under option labels, in either order, then a choice by name: (the text
    choosing `answer`, the same text choosing `other`)."""
    first, second = draw(st.sampled_from((("A", "B"), ("1", "2"))))
    swap = draw(st.booleans())
    listed = (answer, other)[::-1] if swap else (answer, other)
    text = f"Option {first}: {listed[0]}\nOption {second}: {listed[1]}\n"
    chosen, passed_over = (second, first) if swap else (first, second)
    choose = draw(st.sampled_from(("I choose option {}.", "Best: option {}", "**Final answer:** Option {}")))
    return text + choose.format(chosen), text + choose.format(passed_over)


@st.composite
def turn_presentations(draw: st.DrawFn, answer: str, other: str, next_task: str = "") -> Presentation:
    """A whole answer as its verifier's own format writes it (`answer`, e.g. `Answer: (6-4)*(4+8)`
    or `<move>H8</move>`), presented over the axes every verifier shares (`verifiers.turn`,
    docs/answers.md): the turn's own header before it, chat tokens and junk after the turn, a think
    block or a draft the text rejects before it, CRLF and no-break spaces; traps (a hedge offering
    `other` too, on the answer's line or a later one, with or without its label, `other` begun after the answer and cut off, the answer only after the turn ended,
    inside a reasoning block never closed, the answer rejected for `other`, the answer called wrong
    with no answer after it or followed by a final answer's place that says there is none, the
    answer struck out or only under a mistake's label, the answer only inside a quoted format
    example, the answer listed as one of two options and the other chosen by name, a last line that
    concludes with `other`: `So the answer is A1.`, words on its line that turn to `other`: `A, or
    rather B.`, `A — sorry, I mean B.`) never pay; `other` turned from to the answer on its line pays; the answer restated there pays; `other`
    shown after the answer as a mistake or for comparison, or struck out (`A1 ❌`) or under a mistake's
    label on the answer's line (`Worst move: A1`), or the two listed as options and the answer chosen
    by name (`Option A: …` … `I choose option A.`), leaves it the answer. `other`: a different answer
    in the same format. `next_task`: how the verifier's prompt opens another task (`Now solve: 1 2 3
    4`), where it has one: `other` after it leaves the answer the answer, and the answer only after
    it never pays (a base model that goes on past its answer invents the next task)."""
    axes = []
    before = draw(
        st.sampled_from(
            (
                "",
                REASONING[0],
                "<think>\n" + REASONING[0] + other + "\n</think>\n",
                other + "\nWait, that is wrong. Corrected:\n",
            )
        )
    )
    axes.append(f"before={before[:12]!r}")
    after = draw(st.sampled_from(("", *TALK[1:])))
    if draw(st.booleans()):
        after += draw(st.sampled_from(CHAT_ENDS)) + "\nUser: and now?\n" + other
        axes.append("text after the turn end")
    traps = ("hedge", "cut off", "after the turn ended", "reasoning never closed", "rejected", "quoted example")
    traps += ("called wrong", "none stated", "struck out", "another option chosen", "concluded with another")
    traps += ("corrected to another",) + (("under a mistake's label",) if _LABELLED.match(answer) else ())
    traps += ("after a next task",) if next_task else ()
    if next_task and draw(st.booleans()):  # the model goes on with a next task it invents, and answers that
        after, _ = after + "\n\n" + next_task + "\n" + other, axes.append("a next task after it")
    trap = draw(st.sampled_from(("none",) * 4 + traps))
    axes.append(f"trap={trap}")
    text = before + answer + after
    if trap == "none" and draw(st.booleans()):  # `other` shown as a mistake after it: the answer stands
        mistakes = SHOWN_AS_MISTAKES + (("\nBad ",) if _LABELLED.match(other) else ())  # `Bad move: A1`
        shown = draw(st.sampled_from(mistakes))
        shown_other = other[0].lower() + other[1:] if shown.endswith("Bad ") else other
        text, _ = before + answer + shown + shown_other + after, axes.append(f"shown as a mistake: {shown.strip()!r}")
    elif trap == "none" and draw(st.booleans()):  # `other` struck out before or after it, or under a
        struck = (other + " ❌\n" + answer, answer + "\n" + other + " ❌")  # mistake's label on its line
        struck += ((answer + ". Worst " + other[0].lower() + other[1:]),) if _LABELLED.match(other) else ()
        shown = draw(st.sampled_from(struck))
        text, _ = before + shown + after, axes.append(f"other rejected beside it: {shown!r}")
    elif trap == "none" and draw(st.booleans()):  # listed as one of two options, and chosen by name
        options = _options(draw, _unlabelled(answer), _unlabelled(other))
        text, _ = before + options[0] + after, axes.append(f"chosen among options: {options[0]!r}")
    elif trap == "none" and draw(st.booleans()):  # `other`, then words on its line that turn to the answer
        corrected = other + draw(st.sampled_from(CORRECTIONS)).format(
            draw(st.sampled_from((answer, _unlabelled(answer))))
        )
        text, _ = before + corrected + after, axes.append(f"corrected to it: {corrected!r}")
    elif trap == "none" and draw(st.booleans()):  # restated in a concluding line
        conclusion = draw(st.sampled_from(CONCLUSIONS)).format(_unlabelled(answer))
        text, _ = before + answer + conclusion + after, axes.append(f"concluded again: {conclusion.strip()!r}")
    if trap == "another option chosen":  # listed as one of two options; the other one is chosen
        text = before + _options(draw, _unlabelled(answer), _unlabelled(other))[1] + after
    elif trap == "hedge" and draw(st.booleans()):
        text = before + answer + draw(st.sampled_from(INLINE_HEDGES)).format(other) + after
    elif trap == "hedge" and draw(st.booleans()):
        text = before + answer + draw(st.sampled_from(LATER_HEDGES)).format(_unlabelled(other)) + after
    elif trap == "hedge":
        text = before + answer + draw(st.sampled_from(HEDGES)) + other + after
    elif trap == "cut off":  # a better answer begun and cut by the token limit: the earlier never stands in
        begun = other.find(": ") + 2 if ": " in other else 0  # a labelled answer is begun once its label is written
        cut = draw(st.integers(max(len(other) // 3, begun), len(other) - 1))
        text, _ = before + answer + "\nA better one:\n" + other[:cut], axes.append(f"cut at {cut}")
    elif trap == "after the turn ended":
        text = before + other + draw(st.sampled_from(CHAT_ENDS)) + "\n" + answer
    elif trap == "reasoning never closed":
        text = "<think>\n" + REASONING[0] + answer
    elif trap == "rejected":  # the answer, then the text rejects it for another
        text = before + answer + draw(st.sampled_from(REJECTIONS)) + other + after
    elif trap == "called wrong":  # the answer, then words that take it back
        text = before + answer + draw(st.sampled_from(CALLED_WRONG)) + after
    elif trap == "concluded with another":  # the answer, then a concluding line that names another
        text = before + answer + draw(st.sampled_from(CONCLUSIONS)).format(_unlabelled(other)) + after
    elif trap == "corrected to another":  # the answer, then words on its line that turn to another
        corrected = draw(st.sampled_from(CORRECTIONS)).format(draw(st.sampled_from((other, _unlabelled(other)))))
        text = before + answer + corrected + after
    elif trap == "struck out":  # the answer struck out, no answer after it
        text = before + answer + " ❌" + after
    elif trap == "under a mistake's label":  # the answer only under a mistake's label (`Bad move: I5`)
        text = before + "Bad " + answer[0].lower() + answer[1:] + after
    elif trap == "none stated":  # the answer, then a final answer's place that says there is none
        text = before + answer + draw(st.sampled_from(NONE_STATED)) + after
    elif trap == "after a next task":  # the answer only to a next task the model invented
        text = before + other + "\n\n" + next_task + "\n" + answer
    elif trap == "quoted example":  # the answer only inside a quoted format example; the answer is `other`
        text = before + draw(st.sampled_from(EXAMPLES)).format(answer) + other + after
    if draw(st.integers(0, 3)) == 0:  # the turn's own header, decoded with it: not text of the turn
        header = draw(st.sampled_from(OWN_HEADERS))
        text, _ = header + text, axes.append(f"own header {header.strip()!r}")
    if draw(st.booleans()):
        text, _ = text.replace("\n", "\r\n"), axes.append("CRLF")
    return Presentation(text, trap == "none", tuple(axes))


__all__ = [
    "CALLED_WRONG",
    "CONCLUSIONS",
    "LATER_HEDGES",
    "CONTAINERS",
    "EXAMPLES",
    "HEDGES",
    "INLINE_HEDGES",
    "LABELS",
    "NONE_STATED",
    "REJECTIONS",
    "SHOWN_AS_MISTAKES",
    "Presentation",
    "code_presentations",
    "labels",
    "turn_presentations",
]

"""Hypothesis strategies that write one arithmetic answer the ways language models print it: where
the answer sits (an `Answer:` line, a heading and the lines under it, a sentence, a tag, a box, a
block) x markup (Markdown, HTML, LaTeX wrappers and sizing, invisible characters) x operator
spellings x the value stated after it x words after it. For any verifier that reads expressions:
every rendering of a right answer must score as the plain answer does, and no rendering of a wrong
one may pass (`tests/game24/test_game24_renderings.py`).

An expression comes in as plain text with spaced binary operators (`(6 - 4) * (4 + 8)`), as the
game24 solver writes it; the renderings only change how it is written, never its arithmetic.
"""

from __future__ import annotations

import re

from hypothesis import strategies as st

TIMES = ("*", "×", "x", "∙", "•", "⋅", "✕", "⨯", "✖️", "·", "\\times", "\\cdot", "\\ast", "\\*")
DIVIDE = ("/", "÷", "➗", "∶", ":", "\\div")
MINUS = ("-", "−", "–", "➖")
LATEX_ONLY = ("\\times", "\\cdot", "\\ast", "\\div")
TIMES_IN_WORDS = ("times", "multiplied by")  # every operator in words: `(6 minus 4) times (4 plus 8)`

# (name, template of the whole answer around the expression {e}; {t} is the target)
MARKUP = (
    ("plain", "{e}"),
    ("bold", "**{e}**"),
    ("italic", "*{e}*"),
    ("bold italic", "***{e}***"),
    ("underscores", "_{e}_"),
    ("backticks", "`{e}`"),
    ("html bold", "<b>{e}</b>"),
    ("inline math", "${e}$"),
    ("paren math", "\\({e}\\)"),
    ("displaystyle", "\\(\\displaystyle {e}\\)"),
    ("mathbf", "\\(\\mathbf{{{e}}}\\)"),
)
STATED = (
    "",
    " = {t}",
    " = {t}.0",
    " → {t}",
    " ⇒ {t}",
    " == {t}",
    " ≈ {t}",
    " ≡ {t}",
    " \\approx {t}",
    ", which is exactly {t}",
    " evaluates to {t}",
    ", which yields {t}",
    " = {t} \\quad \\checkmark",
    " = {t}!",
)
# what denies the value instead of stating it: a right expression written so is not an answer
DENIALS = (" ≠ {t}", " =\u0338 {t}", " ≤ {t}", " \\neq {t}", ", which is not {t}", " is not {t}", " does not equal {t}")
AFTER = (
    "",
    " ✔️",
    " ☑️",
    " 🎉",
    " (correct)",
    " exactly",
    ", since each number is used once",
    " (each number used once)",
    " (left: {t})",
    " — that uses every number once",
    "; done",
    " \\text{{ (each number once)}}",
    ". This uses each number once.",
    " // correct",
    " # check",
    " :)",
)
# where the answer sits: {a} is the rendered answer
LOCATIONS = (
    "Answer: {a}",
    "**Answer:** {a}",
    "Final answer: {a}",
    "Answer - {a}",
    "Answer (expression): {a}",
    "Solution: {a}",
    "The answer is {a}",
    "Therefore, the answer is: {a}",
    "So my final answer is {a}",
    "## Answer\n{a}",
    "### Final Answer\n\n{a}",
    "**Final Answer**\n{a}",
    "1. Answer: {a}",
    "> Answer: {a}",
    "<answer>{a}</answer>",
    "<ANSWER> {a} </ANSWER>",
    "Answer:\n- {a}",
    "• Answer: {a}",
    "- **Final Answer:** {a}",
    "Answer = {a}",
    "Answer: We get {a}",
    "One solution: {a}",
    "Final Answer: The final answer is {a}. I hope it is correct.",
    "Answer:\n> {a}",
    "<answer>{a}",  # never closed: the engine left out the stop string `</answer>`
    "答案：{a}",
    "最终答案是 {a}",
    "Réponse : {a}",
    "We can compute {a}",  # unmarked: a sentence in the conclusion's line (a restated target defers to it)
    "Putting it together, {a}",
    "Attempt 2: {a}",  # a numbered label: its number is the label's, never the answer's
    "Try #3: {a}",
    "解法2：{a}",
)
# locations that hold a block: only a plain expression goes there (no inline markup)
BLOCKS = (
    "Answer:\n$$\n{e}\n$$",
    "Answer:\n\\[ {e} \\]",
    "Answer:\n```\n{e}\n```",
    "Answer:\n```python\n{e}\n```",
    "**Final answer:**\n\n$${e}$$",
    "Answer:\n$$\\begin{{aligned}}\n{e} \\\\\n\\end{{aligned}}$$",
)
PREFACES = ("", "Let me try the numbers.\n\n", "İ think step by step.\n")
# the target restated after the answer (a bare target defers to the expression before it), or talk about it
RESTATED = ("", "\n\\boxed{{{t}}}", "\nFinal answer: {t}", "\nThe answer is correct.", "\n答案是正确的。")


def _spell(expression: str, times: str, divide: str, minus: str) -> str:
    """The binary operators (spaced, as the solver writes them) spelt another way; nothing else."""
    return re.sub(r" ([-*/]) ", lambda m: f" {dict(zip('*/-', (times, divide, minus)))[m.group(1)]} ", expression)


@st.composite
def _written(draw: st.DrawFn, expression: str, latex: bool) -> str:
    """The expression with operators spelt one way (symbols, or all in words outside LaTeX), and
    perhaps sized LaTeX parentheses or an invisible character inside."""
    if not latex and draw(st.integers(0, 7)) == 0:
        words = {"*": draw(st.sampled_from(TIMES_IN_WORDS)), "/": "divided by", "-": "minus", "+": "plus"}
        return re.sub(r" ([-+*/]) ", lambda m: f" {words[m.group(1)]} ", expression)
    times = draw(st.sampled_from(TIMES if latex else [t for t in TIMES if t not in LATEX_ONLY]))
    divide = draw(st.sampled_from(DIVIDE if latex else [d for d in DIVIDE if d not in LATEX_ONLY]))
    text = _spell(expression, times, divide, draw(st.sampled_from(MINUS)))
    if latex and draw(st.booleans()):
        size = draw(st.sampled_from(("\\Big", "\\big", "\\left/\\right", "\\bigl/\\bigr")))
        opening, closing = (size.split("/") + [size])[:2] if "/" in size else (size, size)
        text = text.replace("(", opening + "(").replace(")", closing + ")")
    digits = [i + 1 for i, ch in enumerate(text) if ch.isdigit()]
    if draw(st.booleans()):  # an invisible character after a digit (inside a number too)
        spot = draw(st.sampled_from(digits))
        text = text[:spot] + draw(st.sampled_from(("\u200b", "\u2060", "\ufeff"))) + text[spot:]
    return text


@st.composite
def renderings(draw: st.DrawFn, expression: str, target: int, value: int | None = None, denied: bool = False) -> str:
    """One completion whose final answer is `expression` for a puzzle with `target`, as models print
    it. `value`: the value the answer states after the expression (default: the target, or none);
    given, it is always stated (a false final link when it is not the expression's value).
    `denied`: the answer denies the value instead (`≠ 24`, `, which is not 24`)."""
    stating = [s for s in STATED if s] if value is not None else STATED
    stating = list(DENIALS) if denied else stating
    value = target if value is None else value
    preface = draw(st.sampled_from(PREFACES))
    restated = draw(st.sampled_from(RESTATED)).format(t=target)
    if draw(st.integers(0, 5)) == 0:  # a block holds the plain expression, perhaps stating the value
        written = _written(expression, latex=False)
        endings = [s for s in (" = {t}", "") if s or "" in stating]
        body = draw(written) + draw(st.sampled_from([d for d in DENIALS if "\\" not in d] if denied else endings))
        return preface + draw(st.sampled_from(BLOCKS)).format(e=body.format(t=value)) + restated
    _name, markup = draw(st.sampled_from(MARKUP))
    latex = "\\" in markup or "$" in markup
    answer = markup.format(e=draw(_written(expression, latex)))
    stated = draw(st.sampled_from([s for s in stating if latex or "\\" not in s])).format(t=value)
    after = draw(st.sampled_from([a for a in AFTER if latex or "\\" not in a])).format(t=target)
    location = draw(st.sampled_from(LOCATIONS))
    return preface + location.format(a=answer + stated + after) + restated


def split_over_lines(expression: str, before_operator: bool = False) -> str | None:
    """`expression` broken at its first operator, after it or before it, as models wrap a long line.
    Before a `-` or `+` the next line would open like a list item (`- 8`): the break goes before `×`
    and `÷` only there."""
    operators = r"[*/]" if before_operator else r"[-+*/]"
    match = re.search(rf"\s{operators}\s", expression)
    if match is None:
        return None
    if not before_operator:
        return expression[: match.end()].rstrip() + "\n" + expression[match.end() :]
    spelt = {"*": "×", "/": "÷"}[match.group().strip()]
    return expression[: match.start()] + "\n" + spelt + " " + expression[match.end() :]

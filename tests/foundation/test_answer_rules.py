"""The rules every verifier shares for where the answer is (docs/answers.md, verifiers/turn.py,
verifiers/locate.py), proven on generated presentations for game24, gomoku and doudizhu, and the
forms issue 53 names for game24's reader (labels in any language by shape, containers, unmarked
answers, sentences, hedges)."""

from __future__ import annotations

import itertools
import re
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import verifiers
from pytest_plugin.presentations import turn_presentations
from verifiers import locate
from verifiers.turn import model_turn

GAME24 = ({"numbers": [4, 4, 6, 8]}, "Answer: (6 - 4) * (4 + 8) = 24", "Answer: (6 - 4) * (4 + 4)")
GOMOKU = (None, "<move>I5</move>", "<move>A1</move>")
DOUDIZHU = (None, "<move>3</move>", "<move>PASS</move>")
HEXAGON = (  # svg's first test task is a regular hexagon (checked by its programmatic check alone)
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><polygon points="95,50 72.5,89 27.5,89 5,50 '
    '27.5,11 72.5,11" fill="#4a90d9"/></svg>'
)
SVG = (None, HEXAGON, '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><circle r="40"/></svg>')

# a next task in the prompt's own opening words (a base model going on past its answer), for another position
INVENTED = {
    "gomoku": "You are playing free-style gomoku on a 9x9 board: five or more stones in a row wins.\n"
    "  A B C D E F G H I\n9 . . . . . . . . .\nO (white) to move.\n",
    "doudizhu": "Two-player Dou Dizhu endgame, both hands visible.\nYour hand (you move now): 4 4 9\n",
}
# how each verifier's prompt opens another task (a base model that goes on past its answer writes one)
NEXT_TASK = {**INVENTED, "game24": "Now solve: 1 2 3 4", "svg": "Draw a red square as an SVG image."}

_BUILT: dict[str, verifiers.Verifier] = {}


@pytest.fixture(scope="module", autouse=True)
def _close_verifiers():
    yield
    for v in _BUILT.values():
        v.close()


def _task(name: str):
    """The verifier (one per module: svg keeps its render workers warm) and its first test task."""
    if name not in _BUILT:
        _BUILT[name] = verifiers.get(name, **({"preset": "checks_only"} if name == "svg" else {}))
    v = _BUILT[name]
    return v, (GAME24[0] if name == "game24" else v.tasks("test")[0])


def _reading_only(name: str):
    """The verifier for tests of which move a text answers with: gomoku without its proofs and with
    few rollouts (a verdict compared with the same move's, tagged alone, needs no precise win rate;
    seeded, equal moves get equal verdicts, and the best move still scores apart from a losing one)."""
    key = f"{name}-reading"
    if key not in _BUILT:
        fast = {"rollouts": 20, "prepass": False, "threat_search": False}  # flat rollouts: a few ms a move
        _BUILT[key] = verifiers.get(name, **fast) if name == "gomoku" else _task(name)[0]
    return _BUILT[key]


def _gomoku_sides(task) -> tuple[str, str]:
    """The symbols of the side to move (ours) and of the side waiting (theirs) in a gomoku task."""
    from verifiers.gomoku.position import SYMBOLS, from_task

    ours = SYMBOLS[from_task(task).to_move]
    return ours, "O" if ours == "X" else "X"


@pytest.mark.parametrize(
    "name, answer, other",
    [
        ("game24", *GAME24[1:]),
        ("gomoku", *GOMOKU[1:]),
        ("gomoku", "Move: I5", "Move: A1"),  # the same rules where a label holds the answer
        ("doudizhu", *DOUDIZHU[1:]),
        ("doudizhu", "Play: 3", "Play: PASS"),
        ("svg", *SVG[1:]),
    ],
)
@settings(max_examples=60, deadline=None)
@given(data=__import__("hypothesis").strategies.data())
def test_the_turn_rules_hold_for_every_verifier(name, answer, other, data):
    v, task = _task(name)
    plain = v.score(answer, task)
    assert plain.verdict.value == "correct", plain.reason
    p = data.draw(turn_presentations(answer, other, NEXT_TASK[name]))
    paid = v.score(p.text, task).verdict.value == "correct"
    assert paid == p.pays, (p.axes, p.text)


@pytest.mark.parametrize(
    "text, turn_text, unfinished",
    [
        ("A<|im_end|>B", "A", False),
        ("A\nUser: now B\nB", "A\n", False),
        ("<think>x</think>A", "A", False),
        ("x</think>A", "A", False),  # the template opened the block in the prompt
        ("<think>x", "", True),
        ("a</think>b<think>c", "", True),  # a second block never closed
        ("A\r\nB", "A\nB", False),
        ("Réponse\u00a0: 5", "Réponse : 5", False),
        ("<|im_start|>assistant\nA<|im_end|>", "A", False),  # the turn's own header opens it
        ("<|start_header_id|>assistant<|end_header_id|>\n\nA<|eot_id|>B", "\nA", False),
        ("A<|im_start|>assistant\nB", "A", False),  # a header after text opens a next turn
        ("A\n[INST] again [/INST]\nB", "A\n", False),  # Llama 2's and Mistral's user turn
        ("<|python_tag|>A<|eom_id|>B", "A", False),  # Llama 3.1's turn of code for its interpreter
        ("<|start_header_id|>assistant<|end_header_id|>\n\n<|python_tag|>A<|eom_id|>", "A", False),
        ("A<|python_tag|>B", "A<|python_tag|>B", False),  # only a turn's opening is read past
    ],
)
def test_the_model_turn(text, turn_text, unfinished):
    turn = model_turn(text)
    assert turn.text == turn_text and bool(turn.unfinished) is unfinished


RIGHT = "(6 - 4) * (4 + 8)"
GAME24_FORMS = {
    # a heading's underline or a rule between a label and its answer is neither the answer nor part of it
    "Solution\n--------\n\n    {r}\n": "correct",
    "Answer:\n\n* * *\n\n{r}": "correct",
    "Answer\n======\n(8 - 4) * 6 = 24": "incorrect",
    # a LaTeX operator between two operands is no step on the result before it (`= 2 \\times 12`)
    "Answer: $(6 - 4) \\times (4 + 8) = 2 \\times 12 = 24$": "correct",
    "So $(6-4) \\times (4+8) = 2 \\times 12 = 24$.": "correct",
    "$$ (6-4)\\times(4+8) = 2\\times 12 = 24 $$": "correct",
    "So $(6-4) \\times (4+4) = 2 \\times 8 = 16$.": "incorrect",
    # steps in words with their results first, or named before them
    "We get 2 from 6-4 and 12 from 4+8, then 2*12=24.": "correct",
    "Make 2 out of 6 - 4 and 12 out of 4 + 8. Multiply: 2 × 12 = 24.": "correct",
    "The trick is to make 2 and 12. (6-4) gives 2 and (4+8) gives 12, and 2 times 12 is 24.": "correct",
    "The trick is to make 2 and 8. (6-4) gives 2 and (4+4) gives 8, and 2 times 8 is 16.": "invalid",
    # a line that calls "that" wrong after a try of its own speaks of the try, not of the answer
    "Answer: {r}\nNote that 8 * 4 - 6 - 4 = 22, so that does not work.": "correct",
    "Answer: {r}\nWhy not 8 * 4 - 6 - 4? It gives 22, so it doesn't work.": "correct",
    "Answer: {r}\nCheck: {r} = 24... hmm, that is wrong.": "invalid",  # a check of the answer itself
    "Answer: 8 * 4 - 6 - 4\nNote that {r} = 24, so that does not work.": "invalid",
    # steps that combine every number, with no combined expression (read by substitution)
    "6 - 4 = 2\n4 + 8 = 12\n2 * 12 = 24": "correct",
    # a step over more numbers: a value an earlier step made, or some of the puzzle's
    "6 - 4 = 2, so 2 × (4 + 8) = 24.": "correct",
    "First, 6 - 4 = 2. Then 2 * (4 + 8) = 24.": "correct",
    "6 - 4 = 2\n2 × (4 + 6) = 20": "invalid",  # a step over a 6 already used: no derivation
    # talk after the answer: a plain "no" or "not" does not doubt it; an objection or a doubt does
    "{r} = 24\nNo number is left over.": "correct",
    "{r} = 24\nThis uses all four numbers, not any twice.": "correct",
    "{r} = 24\nIs that right? Yes!": "correct",
    "{r} = 24\nIs that right?": "invalid",
    "{r} = 24\nBut that uses 4 twice.": "invalid",
    "6 - 4 = 2\n4 + 8 = 12\n2 * 12 = 24\nHmm, let me reconsider.": "invalid",
    # the conclusion's attempt is the answer, right or wrong; other candidates latest line first
    "6 - 4 = 2\n4 + 8 = 12\n2 * 12 = 24\n\nSo (6 − 4) × (8 + 6) = 24.": "incorrect",
    "6 - 4 = 2\n4 + 8 = 12\n2 * 12 = 24\n\nSo the expression is (8 − 4) × 6.": "incorrect",
    "Idea: {r} = 24\nSo 8 * 4 - 6 - 4 = 24.": "incorrect",
    "6 - 4 = 2\n4 + 8 = 12\n2 * 12 = 24\n\nSo 8 / (4 - 4) * 6 = 24.": "invalid",  # an attempt dividing by zero
    "How about {r}? That's 2 × 12 = 24.": "correct",  # posed, then confirmed on its line
    "How about {r}? Hmm, no.": "invalid",
    "Tries:\n- 4 * 6 = 24, but 4 and 8 are left. ✗\n- 8 * 4 = 32, 32 - 6 - 4 = 22 ✗\n- {r} = 24 ✓\n\nFound it.": "correct",
    "A solution: 4 * 6 = 24... that leaves 4 and 8 though. Better: {r} = 24": "correct",
    # two expressions side by side with an "or" between: one answer too many, in any wrapper
    "<solution>8 * 4 - 6 - 4</solution> or <solution>{r}</solution>": "invalid",
    "Either 8 or 4 goes first: {r} = 24": "correct",
    # an answer's label after a full-width sentence end on its line (no space after `。`)
    "答案：{r}\n等等，这不对。答案：8 * 4 - 6 - 4": "incorrect",
    "答案：8 * 4 - 6 - 4\n不对，重新算。答案：{r}": "correct",
    # a search's tries on one line: a try called wrong by its verdict (`, no.`) is none; a question's
    # value stated after its sentence ends (`… = 24? No, it's 16.`) belongs to no later expression
    "Trying (6-4)*(4+4) = 16, no. Trying {r} = 24, yes!": "correct",
    "Trying 8 * 4 - 6 - 4 = 22, no. Trying (6-4)*(4+4) = 16, no.": "invalid",
    "Is (6-4)*(4+4) = 24? No, it's 16. Is {r} = 24? Yes.": "correct",
    "Not 8 * 4 - 6 - 4 = 22; or rather, {r} = 24.": "correct",  # an expression the words before deny
    "Bad answer: {r} = 24": "invalid",  # only under a mistake's label: no answer
    # two expressions listed after one label, with a comma, a semicolon or "and also": one too many
    "Answer: {r}, (6 - 4) * (4 + 4)": "invalid",
    "Answers: {r}; (6 - 4) * (4 + 4)": "invalid",
    "Answer: {r} and also (6 - 4) * (4 + 4)": "invalid",
    "Answer: {r} = 24; 2 × 12 = 24": "correct",  # a step restated after it is no second answer
    # a list of tries, each with its true value: the one item that reaches the target is the answer
    "- {r} = 24\n- (6 - 4) * (4 + 4) = 16": "correct",
    "- 8 * 4 - 6 - 4 = 22\n- (6 - 4) * (4 + 4) = 16": "incorrect",
    "- {r} = 24\n- (6 - 4) * (4 + 4) = 24": "incorrect",  # a miss claimed as the target is the answer
    "Idea: {r} = 24\nSo (6 - 4) * (4 + 4) = 16.": "incorrect",  # a conclusion outside a list stays
    # tags in square or full-width brackets, typographic quotes, an arrow after the label
    "[ANSWER] {r} [/ANSWER]": "correct",
    "＜answer＞{r}＜/answer＞": "correct",
    "Answer: «{r}»": "correct",
    "Answer: 「{r}」": "correct",
    "Answer => {r}": "correct",
    # a later sentence that opens a correction replaces the answer before it
    "{r} = 24. Actually, 8 * 4 - 6 - 4 is better.": "incorrect",
    "Answer: {r}\nActually, 8 * 4 - 6 - 4 is better.": "incorrect",  # after a label too: read, it makes 22
    "Answer: {r}\nActually, 4 * 6 * 8 / 4 is better.": "incorrect",
    "Answer: 8 * 4 - 6 - 4\nActually, {r} is better.": "correct",
    # a clause on the answer's line that corrects it (`…, or rather B`, `… — sorry, I mean B`): B is the answer
    "Answer: 8 * 4 - 6 - 4, or rather {r}.": "correct",
    "Answer: {r}, or rather 8 * 4 - 6 - 4.": "incorrect",
    "Answer: 8 * 4 - 6 - 4 — sorry, I mean {r} = 24": "correct",
    "Answer: {r} — sorry, I mean 4 * 6 * 8 / 4 = 48": "incorrect",
    "8 * 4 - 6 - 4, no wait, that's 22. {r} = 24.": "correct",
    "{r}, no wait, 8 * 4 - 6 - 4 = 22.": "incorrect",
    "Answer: 8*4-6-4 (oops, that is 22) -> {r} = 24": "correct",
    "Answer: {r}, correction: 8 * 4 - 6 - 4": "incorrect",
    "Answer: {r}, or rather (8 - 4) * 6.": "invalid",  # another attempt, not at this puzzle: none read
    "8 * 4 - 6 - 4 = 22. Actually, {r} = 24 works.": "correct",
    "Answer: 8 * 4 - 6 - 4. Wait, that's 22. Actually: {r}": "correct",
    "Answer: {r}\nWait, let me check: 6 - 4 = 2, 4 + 8 = 12, 2 * 12 = 24. Yes.": "correct",
    # the target stated alone, then the expression that explains it
    "\\(\\boxed{{24}}\\)\n\nUsing \\((6-4)\\times(4+8)\\).": "correct",
    "\\boxed{{24}}\n\nUsing (6 - 4) * (4 + 4).": "incorrect",
    # a second answer offered on the answer's line, in a parenthesis or after a dash: one too many;
    # the same answer restated (the same numbers and value) offers none
    "<answer>{r}</answer> (or 8 * 4 - 6 - 4)": "invalid",
    "Answer: {r} (or 8 * 4 - 6 - 4)": "invalid",
    "<answer>{r}</answer> — (8 - 4) * 6 * 4 / 4 also works": "invalid",
    "Answer: {r} = 24\nNote: (4 + 8) * (6 - 4) works too.": "correct",
    "Answer: {r} = 24\nNote: (8 - 4) * 6 * 4 / 4 works too.": "invalid",
    # "also" with the approval a few words on, or a line keyed "Another": an offer too
    "<answer>{r}</answer>\nAlso 8 * 4 - 6 - 4 works.": "invalid",
    "Answer: {r}\nAnother: 8 * 4 - 6 - 4": "invalid",
    "Answer: {r}, or maybe 8 * 4 - 6 - 4... I'll go with {r}.": "correct",
    "Answer: {r} or 8 * 4 - 6 - 4\nI'll go with 8 * 4 - 6 - 4.": "incorrect",
    "Réponse : {r} ou 8 * 4 - 6 - 4. Je choisis {r}.": "correct",  # a decision in other languages
    "答案：{r} 或者 8 * 4 - 6 - 4。我选 {r}。": "correct",
    "Lösung: {r} oder 8 * 4 - 6 - 4\nIch nehme 8 * 4 - 6 - 4.": "incorrect",
    "Answer: {r}\nAlso, 6 - 4 = 2 and 4 + 8 = 12, so this works.": "correct",  # its own check offers nothing
    "Answer: {r} = 24. Worst answer: 8 * 4 - 6 - 4": "correct",
    "Answer: 8 * 4 - 6 - 4 ❌\nAnswer: {r} ✅": "correct",
    "{r} = 24\n\n(6 - 4) * (4 + 4) = 16 (too small)": "correct",  # a later try called wrong: no conclusion
    "8 * 4 - 6 - 4 = 22 (too small)": "invalid",
    "{r} = 2.0 × 12 = 24": "correct",  # working in decimals between the answer and its value: skipped
    # the numbers listed with "and" before the answer: the last of them opens no expression
    "Using 4, 4, 6 and 8: {r} = 24": "correct",
    # a line that strikes the answer takes it back
    "Answer: {r}\nActually, scratch that.": "invalid",
    "Answer: 8 * 4 - 6 - 4\nScratch that. Answer: {r}": "correct",
    # a labelled answer denied by a later line: what the text writes from there replaces it, in any form
    "Answer: 8 * 4 - 6 - 4\nWait, that is wrong. Corrected:\n{r} = 24": "correct",
    "Answer: 8 * 4 - 6 - 4\nNo, that fails. I choose {r} = 24.": "correct",
    "Answer: {r}\nWait, that is wrong. Corrected:\n8 * 4 - 6 - 4 = 22": "incorrect",
    "Answer: {r}\nWait, that is wrong.\nHope this helps!": "invalid",
    # a blunder admitted after the answer, with nothing to mend it: taken back
    "Answer: {r}\nOops, that uses a number twice.": "invalid",
    "Answer: {r}\nI made a mistake.": "invalid",
    # a line of Python that prints the expression, or assigns it with its value in a comment
    "```python\nprint({r})  # 24\n```": "correct",
    "answer = {r}  # = 24": "correct",
    "answer = (6-4)*(4+4)  # = 24": "incorrect",
    "```python\nprint(8 * 4 - 6 - 4)\n```": "incorrect",
    # an expression over made values, then the steps that make them: its value is the last step's
    "Answer: 2 × 12, where 2 = 6 − 4 and 12 = 4 + 8": "correct",
    "Answer: 2*12 where 2=6-4, 12=4+4": "incorrect",  # an "or" between numbers before the answer offers none
    "Step 1: 6 − 4 = 2\nStep 2: 4 + 8 = 12\nStep 3: 2 × 12 = 24": "correct",
    "6-4=2, 4+8=12, 2*12=24": "correct",
    "Answer: 8 + 4 = 12, 6 - 4 = 2, 12 * 2 = 24": "correct",  # a labelled answer written as steps
    "Answer: 8 + 4 = 12, 6 - 4 = 3, 12 * 3 = 36": "invalid",
    "6 - 4 = 2\n2 * 12 = 24": "invalid",  # a number never used: no derivation
    "6 - 4 = 3\n4 + 8 = 12\n3 * 12 = 36": "invalid",  # a step that states a false result derives nothing
    "8 / 4 = 2\n2 * 6 = 12\n12 * 4 = 48": "incorrect",
    "6-4=2\n4+8=12\n2*12=24\n\nAlternatively:\n4*6=24\n8-4=4\n24*4=96": "invalid",  # two derivations offered
    "6 - 4 = 2. Then 4 + 8 = 12, so 2 × 12 = 24.\nHmm, actually I think there is no solution.": "invalid",  # taken back
    # steps in sentences: every number on the line is in a step (or numbers a list item)
    "First 6 - 4 = 2. Then 4 + 8 = 12. Finally 2 × 12 = 24.": "correct",
    "We get 6-4=2 and 4+8=12, so 2*12=24.": "correct",
    "Steps: 1. 6-4=2; 2. 4+8=12; 3. 2*12=24": "correct",
    "6-4=2 (left: 2 4 8), then 4+8=12 (left: 2 12), then 2*12=24": "correct",
    "We compute 6 - 4 = 2, then 8 + 4 = 12, then 12 * 2 = 25.": "invalid",  # a false result
    "Try 6*4=24, but then 4 and 8 are left.": "invalid",  # reasoning about other numbers
    "(6 - 4) = 2\n(4 + 8) = 12\n2 × 12 = 24": "correct",  # a step's operation in parentheses
    "The 24 can be made as follows: 8 + 4 = 12, 6 - 4 = 2, 12 * 2 = 24.": "correct",  # a lead-in with a number
    "Using 4, 4, 6, 8: 8 + 4 = 12, 6 - 4 = 3, 12 * 3 = 36": "invalid",
    # a list of numbers before the answer: its last number opens no expression
    "Using 4, 4, 6, 8: (6-4)*(4+8) = 2*12 = 24": "correct",
    # the target boxed after its expression on one line: the expression is what it states
    "(6 - 4) * (4 + 8) = \\boxed{{24}}": "correct",
    "(6 - 4) * (4 + 8) = <answer>24</answer>": "correct",
    "(6 - 4) * (4 + 9) = \\boxed{{24}}": "incorrect",
    # a product written as algebra writes it
    "Therefore, $(6-4)(4+8) = 24$.": "correct",
    "\\left(6-4\\right)\\left(4+8\\right)=24": "correct",
    "Answer: 2(6 - 4)(4 + 8)": "incorrect",
    "Answer: 48 / 2(6 - 4) * (4 + 8) / 12": "invalid",  # a division of a product without '*': by convention
    # the target alone after steps that combine every number: the steps are the answer it states
    "Step 1: 6 - 4 = 2\nStep 2: 4 + 8 = 12\nStep 3: 2 * 12 = 24\n\nAnswer: 24": "correct",
    "6 - 4 = 2\n4 + 8 = 12\n2 * 12 = 24\n\nTherefore, the solution is 24.": "correct",
    "Step 1: 6 - 4 = 2\nStep 2: 4 + 8 = 12\nStep 3: 2 * 12 = 25\n\nAnswer: 24": "incorrect",
    "6 * 4 = 24\nAnswer: 24": "incorrect",  # steps that leave numbers unused derive nothing
    # labels recognised by their shape, in any language and typography
    "Lösung: {r}": "correct",
    "答え：{r}": "correct",
    "정답: {r}": "correct",
    "Resposta: {r}": "correct",
    "الجواب: {r}": "correct",
    "Réponse\u00a0: {r}": "correct",
    "Donc la réponse est {r}": "correct",
    "所以答案是 {r}": "correct",
    "Ψλκ： {r}": "correct",  # a label in words no list holds
    # containers and unmarked answers
    '{{"answer": "{r}"}}': "correct",
    '```yaml\nanswer: "{r}"\n```': "correct",  # a YAML string's quotes are not the answer's
    '{{"answer": "{r}", "explanation": "2 times 12"}}': "correct",  # a JSON object's fields share a line
    '```json\n{{"expression": "{r}", "result": 24}}\n```': "correct",  # a value after the answer defers to it
    '{{"expression": "(6 - 4) * (4 + 4)", "result": 24}}': "incorrect",
    '{{"answer": "{r}", "alternatives": ["(8 + 4) * (6 - 4)"]}}': "invalid",  # a field that offers another
    '{{"answer": "{r}", "alternatives": []}}': "correct",
    "| answer | {r} |": "correct",
    "\\boxed{{\\text{{{r}}}}}": "correct",
    "{r}": "correct",
    "Putting it together, {r} gives 24.": "correct",
    "24 can be made as {r}.": "correct",  # the expression starts after another number
    "1. {r} = 24": "correct",  # a list item's number is no operand
    "| Expression | Value |\n|---|---|\n| {r} | 24 |": "correct",  # the column under an answer's label
    "| Expression | Value |\n|---|---|\n| (6 + 4) * (4 + 8) | 120 |": "incorrect",
    "answer: {r}\r\n": "correct",
    # hedges: one answer too many, whichever is right
    "Answer: {r} or (8 - 4) * 6": "invalid",
    "Answer: {r}, or alternatively 4 * 6": "invalid",
    "Answer: {r}\nAlternatively: (4 + 4) * 6 / 2": "invalid",
    "Answer: {r}\n\nAnother solution: 8 * 4 - 6 - 4": "invalid",
    "Answer: {r}\n\nAnother solution: (8 + 4) * (6 - 4)": "correct",  # the same answer restated offers none
    # hedges in other languages (read past, the first was paid)
    "Lösung: {r}\nAlternativ: (4 + 4) * 6 / 2": "invalid",
    "Lösung: {r} oder (8 - 4) * 6": "invalid",
    "Réponse : {r} ou (8 - 4) * 6": "invalid",
    "Respuesta: {r}, o también (8 - 4) * 6": "invalid",
    "Ответ: {r} или (8 - 4) * 6": "invalid",
    "答え：{r}\nまたは (8 - 4) * 6": "invalid",
    "On peut additionner ou multiplier.\nRéponse : {r}": "correct",  # an "or" in the reasoning offers nothing
    # an operation written as a verb and its operands
    "Multiply (6-4) by (4+8) to get 24.": "correct",
    "Answer: subtract (4+8) from (6-4)": "incorrect",  # 2 - 12: the order the verb says
    "Take 6 minus 4 to get 2, 4 plus 8 to get 12, then 2 times 12 is 24.": "correct",  # steps in words
    "6 - 4 = 2 and 4 + 8 = 12; 2 * 12 = 24.": "correct",  # two steps joined by a word
    "First, 8 minus 4 gives 4. Then 4 times 6 is 24.": "invalid",  # a 4 never used: no derivation
    # steps on the running result, its first operand left out: the result stated before it
    "Start with 8. Subtract 6: 2. Add 4: 6. Multiply by 4: 24.": "correct",
    "8 minus 6 is 2, plus 4 is 6, times 4 is 24.": "correct",
    "Start with 8. Subtract 6: 2. Add 4: 6. Multiply by 4: 25.": "invalid",  # a false step: no derivation
    "Start with 8. Add 6: 14. Add 4: 18. Add 4: 22.": "incorrect",  # every number, but 22
    # a few lines of talk after the answer's line leave it the conclusion; anything else does not
    "The numbers are 4, 4, 6 and 8.\n{r} = 24\nHope this helps!": "correct",
    "Try {r} = 2 * 12 = 24. That works!\n\nLet me know if you want another.": "correct",
    "{r} = 24\nNo, that's wrong.": "invalid",  # taken back
    "The combination {r} gives 2 × 12 = 24.\n\nAll four numbers (4, 4, 6, 8) are used once.": "correct",
    "Answer: {r} gives 2 × 12 = 25": "incorrect",  # a computation after the answer: every link is checked
    "{r} = 24\nHmm, let me reconsider.": "invalid",  # doubted
    "{r} = 24\nI do not know.": "invalid",
    "{r} = 24?\nSo the answer is 8 * 3 = 24.": "incorrect",  # the last answer is the answer
    # a next puzzle the model invents in the prompt's own words is not the model's turn for this one
    "Answer: {r} = 24\nNow solve: 1 2 3 4\n1 + 2 = 3 (left: 3 3 4)\nAnswer: (1 + 2 + 3) * 4 = 24": "correct",
    "Answer: {r} = 24\n\nExample for 1 2 7 14:\nAnswer: (14 + 7) + (2 + 1) = 24": "correct",
    "Answer: 8 * 4 - 6 + 4 = 24\nNow solve: 1 2 3 4\nAnswer: {r} = 24": "incorrect",
    "Example for 1 2 7 14:\nAnswer: (14 + 7) + (2 + 1) = 24\nNow solve: 4 4 6 8\nAnswer: {r} = 24": "correct",
    "Now solve: 4 4 6 8\nAnswer: 8 * 4 - 6 + 4 = 24": "incorrect",  # this puzzle restated: its answer is read
    # a numbered label's number is the label's (`Attempt 2:`), never the answer's first number
    "Attempt 1: 8 * 4 - 6 - 4 = 22\nAttempt 2: {r} = 24 ✓": "correct",
    "Try #2: {r} = 24": "correct",
    "解法2：{r} = 24": "correct",
    "Attempt 2: 8 * 4 - 6 + 4 = 24": "incorrect",  # 30: the attempt's own value
    "Trying: {r} = 24\nYes.": "correct",  # a try the text confirms is its conclusion
    # talk that gives up leaves no answer (a try before it is no answer: no credit for a wrong one)
    "8 * 4 - 6 - 4 = 22\nI give up.": "invalid",
    "Attempt 3: 8 * 4 - 6 - 4 = 22\nI cannot find a way to make 24.": "invalid",
    "{r} = 24\nI couldn't find a simpler one.": "correct",
    "{r}\nThat's the only way; other combinations are impossible.": "correct",
    # the text takes its answer back: the claim that none exists is a second, different final answer
    "Answer: {r}\nThere is no solution.": "invalid",
    "Answer: {r}\nNo, that's wrong.": "invalid",  # called wrong, and nothing replaces it
    "Answer: {r}\nNo number is used twice.": "correct",
    "Answer: {r}\nA plain sum does not work here, so we multiply.": "correct",
    "{r} = 24\n\nWait... Actually, no valid solution exists.": "invalid",
    "Answer: {r}\n(There is no solution without parentheses.)": "correct",  # a narrower claim
    # later words on the answer's own line take it back as a later line does
    "{r} = 24 — wait, that uses 4 only once. I can't find one.": "invalid",
    "{r} = 24 is what someone might try, but it is invalid here.": "invalid",
    "{r} = 24. Is there another way? No, this is the only one.": "correct",
    # an answer's label after a sentence on its line is a later answer
    "Answer: {r} = 24\n\nWait, I used 4 twice? No. Let me redo. Answer: 8 * 4 - 6 - 4 = 22": "incorrect",
    "Let me check. Answer: {r} = 24": "correct",
    "Answer: {r}\nI couldn't find anything simpler.": "correct",  # a narrower claim
    "Answer: {r}\nI could not find a solution.": "invalid",
    "At first it seemed there is no solution, but:\nAnswer: {r}": "correct",  # before the answer
    # the target alone (`\\boxed{{24}}`) restates the expression computed before it
    "We can compute {r} = 2*12 = 24.\n\nThe answer is $\\boxed{{24}}$.": "correct",
    "So {r} = 24, and the answer is $\\boxed{{24}}$": "correct",
    "(6 + 4) * (4 + 8) = 120.\n\\boxed{{24}}": "incorrect",
    "{r} = 24 is wrong.\n\\boxed{{24}}": "incorrect",  # called wrong in its own sentence: nothing restated
    # an answer called wrong in its own sentence is none
    "{r} is not right.": "invalid",
    "{r} doesn't work.": "invalid",
    "{r} is not right. Answer: 6*4*(8-4)/4 ... hmm I'm unsure": "incorrect",  # its labelled answer, wrong
    "I think {r} = 24 is the answer, not (6+4)*(4+8).": "correct",
    # in any container: words right after it (closing markup between) call it wrong
    "<answer>{r}</answer> is wrong.": "invalid",
    "Answer: {r} would be wrong.": "invalid",
    "\\boxed{{{r}}} is not correct.": "invalid",
    "**{r}** doesn't work.": "invalid",
    "Answer: {r} = 24 is not a valid solution.": "invalid",
    "Answer: {r}\nAnswer: (6+4)*(4+8) is wrong.": "correct",  # a rejected answer is none: the earlier stands
    "Answer: {r} is not only right but also short.": "correct",
    # a "No" that answers another question after the answer is no take-back; after "Is this right?" it is
    "Answer: {r}\nIs there another way?\nNo, this is the only one.": "correct",
    "Answer: {r}\nIs it right?\nNo.": "invalid",
    "Answer: {r}\nIs it right? No.": "invalid",  # the question and its answer on one line
    "Answer: {r}\nIs there another way? No, this is the only one.": "correct",
    # the last answer's place says there is none: an earlier answer never stands in
    "Answer: {r}\nFinal answer: none": "invalid",
    "Answer: {r}\nFinal answer: I couldn't find one.": "invalid",
    "<answer>{r}</answer>\n<answer></answer>": "invalid",
    "Answer: {r}\nFinal answer: see above": "correct",
    # steps as a table's numbered rows: the rows are the steps
    "| Step | Operation | Result |\n|---|---|---|\n| 1 | 6 - 4 | 2 |\n| 2 | 4 + 8 | 12 |\n| 3 | 2 × 12 | 24 |": "correct",
    "| Step | Calculation |\n|---|---|\n| 1 | 6 - 4 = 2 |\n| 2 | 4 + 8 = 12 |\n| 3 | 2 × 12 = 24 |": "correct",
    "| Step | Operation | Result |\n|---|---|---|\n| 1 | 6 - 4 | 2 |\n| 2 | 4 + 8 | 12 |\n| 3 | 2 × 12 | 25 |": "invalid",
    # an emphasis closed at the end of the answer's line is no operator joining the next line
    "Answer: We get *(6 minus 4) times (4 plus 8)*\n\\boxed{{24}}": "correct",
    # lead words before an answer's label: still its label, whatever follows it
    "Putting it together, the answer: {r}\n\nVerification: 2 × 12 = 24 ✓": "correct",
    "Donc, en fin de compte, la réponse finale : {r}\nTous les nombres sont utilisés.": "correct",
    "- Subtract 4 from 6: 2\n- Add 4 and 8: 12\n- Multiply: 2 × 12 = 24": "correct",  # a verb's result after a colon
    # steps in any order, or written result first: a step waits for the steps that make its operands
    "2 × 12 = 24\n6 − 4 = 2\n4 + 8 = 12": "correct",
    "24 = 2 × 12\n2 = 6 - 4\n12 = 4 + 8": "correct",
    "Answer: 2 × 12 = 24, where 2 = 6 − 4 and 12 = 4 + 8": "correct",
    "Answer: 2 × 12 = 24, where 2 = 6 − 4 and 12 = 4 + 9": "incorrect",  # a false step derives nothing
    "Answer: 2 * 12 = 24 (since 6 - 4 = 2 and 4 + 8 = 12)": "correct",  # steps in an aside are steps
    "Answer:\n6 - 4 = 2\n4 + 8 = 12\n2 * 12 = 24": "correct",  # a label over its steps
    "Answer:\n6 - 4 = 2\n4 + 8 = 12\n2 * 12 = 25": "incorrect",
    "Answer: 4 * 6 = 24\nCheck: 6 - 4 = 2, 4 + 8 = 12, 2 * 12 = 24": "incorrect",  # a check of another derives nothing
    "Answer: {r} = 24 (2 × 12)": "correct",  # an aside that restates the value is a link, checked
    "Answer: {r} = 24 (2 × 13)": "incorrect",
    "The answer is 24: {r}.": "correct",  # the value stated first, before a colon
    "Yes! {r} = 24.": "correct",
    # a final answer cut off: an earlier one never stands in
    "Solution: {r}\nSo the answer is: (": "invalid",
    # the text concludes with another attempt after its answer: two final answers; restated, one
    "Answer: {r}\n\nTherefore 8 * 4 - 6 + 4 = 24.": "invalid",
    "Answer: 8 * 4 - 6 + 4\n\nTherefore {r} = 24.": "invalid",
    "Answer: {r}\n\nTherefore (4 + 8) * (6 - 4) = 24.": "correct",
    "Answer: {r}\n\nTherefore 8 * 4 - 6 - 4 = 22 does not work.": "correct",  # a try called wrong offers none
    "Answer: {r}\n\n8 * 4 - 6 + 4 = 24": "invalid",  # another stating the target
    "Answer: {r}\n\nSo: 8 * 4 - 6 + 4": "invalid",
    # a try told of in passing, presented as no answer: none offered
    "Answer: {r}\n\n(My first idea, 8 * 4 - 6 - 4, only gives 22.)": "correct",
    "Answer: {r}\n\nAn earlier attempt, 8 * 4 - 6 - 4, missed.": "correct",
    "Answer: {r}\n\nUnlike 8 * 4 - 6 - 4, this reaches 24.": "correct",
    "Solution:\n1. 6 - 4 = 2\n2. 4 + 8 = 12\n3. 2 × 12 = 24\n\nSo: **8 * 4 - 6 + 4 = 24**": "invalid",
    "Solution:\n1. 6 - 4 = 2\n2. 4 + 8 = 12\n3. 2 × 12 = 24\n\nSo: **{r} = 24**": "correct",
    # an answer's label alone over steps in words: the expression they build
    "Solution:\n- First, 6 - 4 = 2\n- Then 4 + 8 = 12\n- Finally 2 × 12 = 24": "correct",
    "Solution:\n- First, 6 - 4 = 2\n- Then 4 + 8 = 12\n- Finally 2 × 12 = 24\n\nSo: **{r} = 24**": "correct",
    "Answer: {r}\nI give up.": "invalid",  # it was no answer after all
    # an answer that is the last of the steps before it, or restates it: the expression they build
    "6 - 4 = 2\n4 + 8 = 12\nAnswer: 2 * 12 = 24": "correct",
    "Step 1: 6 - 4 = 2\nStep 2: 4 + 8 = 12\nStep 3: 2 * 12 = 24\n\nAnswer: 2 × 12 = 24": "correct",
    "6 - 4 = 2\n4 + 8 = 12\n2 * 12 = 24\n\n<answer>2 * 12</answer>": "correct",
    "Step 1: 6 - 4 = 2\nStep 2: 4 + 8 = 12\nStep 3: 2 * 12 = 24\n\nAnswer: 3 * 8 = 24": "incorrect",
    "6 - 4 = 2\n4 + 4 = 8\n2 * 8 = 16\n\nAnswer: 2 * 8 = 24": "incorrect",
    'The answer is "{r}".': "correct",  # quoted, the sentence's full stop after the quotes
    'The expression "{r}" equals 24.': "correct",  # quoted in a sentence that states its value
    'The expression "(6 - 4) * (4 + 4)" equals 24.': "incorrect",
    "Answer: {r} (= 24)": "correct",  # the value in an aside at the end
    "Answer: {r} [= 24]": "correct",
    "Answer: {r} (= 25)": "incorrect",
    # a list's item chosen by its place after the list
    "Attempts:\n1. 8 * 4 - 6 - 4\n2. {r}\n\nThe second one works.": "correct",
    "Attempts:\n1. 8 * 4 - 6 - 4\n2. {r}\n\nThe first one works.": "incorrect",
    "Attempts:\n1. {r}\n2. 8 * 4 - 6 - 4\n\nThe first one works.": "correct",
    # a try that misses, its true value stated, before the answer on its line; `instead of` rejects
    "8 * 4 - 6 - 4 gives 22, but {r} gives 24.": "correct",
    "8 * 4 - 6 - 4 = 22 and {r} = 24.": "correct",
    "8 * 4 - 6 - 4 = 22 is my answer, not {r}": "incorrect",
    "Use {r} instead of 8 * 4 - 6 - 4.": "correct",
    "Use 8 * 4 - 6 - 4 instead of {r}.": "incorrect",
    # a line after the answer that tells of an earlier try that failed is no conclusion
    "# {r} = 24\n\nI first tried 8 * 4 - 6 - 4, but it gives 22.": "correct",
    "# 8 * 4 - 6 - 4 = 24\n\nI first tried {r}, but it gives 22.": "incorrect",
    "So {r} = 24.\nI first tried 6 + 4, but it does not work.": "correct",  # a try of two numbers is a try too
    "Answer: {r}\nI tried this, but it does not work.": "invalid",  # "this" is the answer, taken back
    "Here's my solution:\n```\n{r} = 24\n```\nVerification: 2 × 12 = 24 ✓": "correct",  # a label over a fence
    "Here's my solution:\n```\n8 * 4 - 6 + 4 = 24\n```\nVerification: 2 × 12 = 24 ✓": "incorrect",
    "Trying (8 + 4) * (6 - 4): 12 * 2 = 24.": "correct",  # a colon and a space: what it works out to
    "Trying (8 + 4) * (6 - 4): 12 * 3 = 24.": "incorrect",
    "Answer: (8+4):(6-4)": "incorrect",  # a colon between operands divides
    # a label that introduces something else is no answer's
    "Question: {r}\nI do not know.": "invalid",
}


# an expression in a sentence starts where nothing it follows would change it: never after a root,
# a power, an operator or a number it would drop (`2 (14 + 17)`, an implicit product, is refused)
SENTENCE_STARTS = {
    "So √14 + 17 = 31.": "invalid",
    "So 2^14 + 17 = 31.": "invalid",
    "So 2 (14 + 17) = 31": "invalid",
    "So 2\u200b(14 + 17) = 31": "incorrect",  # an attempt over more numbers: judged, and it misses
    "We get 2 * (14 + 17) = 31": "incorrect",
    "x14 + 17 = 31": "invalid",
    "So **(14 + 17)** = 31": "correct",
    "所以(14+17)=31": "correct",
    "The 31 can be obtained by (14 + 17).": "correct",
}


@pytest.mark.parametrize("form", sorted(SENTENCE_STARTS))
def test_an_expression_in_a_sentence_starts_where_nothing_would_change_it(form):
    score = verifiers.get("game24").score(form, {"numbers": [14, 17], "target": 31})
    assert score.verdict.value == SENTENCE_STARTS[form], score.reason


def _steps_of_solution(expression: str) -> list[tuple[int, str, int, int]] | None:
    """The steps (a, op, b, value) that build `expression` bottom-up, or None where a value along the
    way is not a whole number of at least 0 (a step such as `3 - 8/3` would need a fraction)."""
    import ast
    import operator

    ops = {
        ast.Add: ("+", operator.add),
        ast.Sub: ("-", operator.sub),
        ast.Mult: ("*", operator.mul),
        ast.Div: ("/", None),
    }
    steps: list[tuple[int, str, int, int]] = []

    def value(node: ast.expr) -> int | None:
        if isinstance(node, ast.Constant):
            return node.value
        a, b = value(node.left), value(node.right)
        if a is None or b is None:
            return None
        symbol, apply = ops[type(node.op)]
        if apply is None and (b == 0 or a % b):
            return None
        result = a // b if apply is None else apply(a, b)
        if result < 0:
            return None
        steps.append((a, symbol, b, result))
        return result

    return steps if value(ast.parse(expression, mode="eval").body) is not None else None


@settings(max_examples=150, deadline=None)
@given(data=__import__("hypothesis").strategies.data())
def test_steps_in_any_order_and_either_direction_derive_the_answer(data):
    """Any test puzzle's solution written as steps, shuffled, each `a op b = c` or `c = a op b`, on
    lines or in one sentence, is read as the expression they build; one false result, never."""
    from hypothesis import strategies as st

    from verifiers.game24.solver import solutions

    v = verifiers.get("game24")
    task = data.draw(st.sampled_from(v.tasks("test")))
    steps = next((s for e in solutions(task["numbers"], task.get("target", 24)) if (s := _steps_of_solution(e))), None)
    if steps is None:
        return
    order = data.draw(st.permutations(range(len(steps))))
    written = []
    for i in order:
        a, op, b, c = steps[i]
        written.append(f"{c} = {a} {op} {b}" if data.draw(st.booleans()) else f"{a} {op} {b} = {c}")
    joiner = data.draw(st.sampled_from(["\n", ", ", "; "]))
    assert v.score(joiner.join(written), task).verdict.value == "correct", written
    wrong = data.draw(st.integers(0, len(written) - 1))
    a, op, b, c = steps[order[wrong]]
    written[wrong] = f"{a} {op} {b} = {c + 1}"
    assert v.score(joiner.join(written), task).verdict.value != "correct", written


def _solution_with_whole_steps(task: dict) -> str | None:
    from verifiers.game24.solver import solutions

    return next((e for e in solutions(task["numbers"], task.get("target", 24)) if _steps_of_solution(e)), None)


@settings(max_examples=150, deadline=None)
@given(data=__import__("hypothesis").strategies.data())
def test_a_step_over_more_numbers_derives_the_answer(data):
    """Any part of a test puzzle's solution worked out first (`6 - 4 = 2`) and the rest written as
    one step over its value (`2 * (4 + 8) = 24`), on lines or in sentences, is read as the solution;
    the same with the part's value misstated in the last step, never."""
    import ast

    from hypothesis import strategies as st

    v = verifiers.get("game24")
    task = data.draw(st.sampled_from(v.tasks("test")))
    expression = _solution_with_whole_steps(task)
    if expression is None:
        return
    root = ast.parse(expression, mode="eval").body
    parts = [n for n in ast.walk(root) if isinstance(n, ast.BinOp) and n is not root]
    if not parts:
        return
    part = data.draw(st.sampled_from(parts))
    value = int(eval(ast.unparse(part)))  # a whole value: `_steps_of_solution` holds every step whole

    def last_step(shown: int) -> str:  # the solution with the part replaced by the value shown
        inlined = expression[: part.col_offset] + str(shown) + expression[part.end_col_offset :]
        return f"{inlined} = {task.get('target', 24)}"

    first = f"{ast.get_source_segment(expression, part)} = {value}"
    joiner = data.draw(st.sampled_from(["\n", ", so ", ". Then ", "\n\nFinally, "]))
    text = first + joiner + last_step(value)
    assert v.score(text, task).verdict.value == "correct", text
    wrong = first + joiner + last_step(value + 1)
    assert v.score(wrong, task).verdict.value != "correct", wrong


@settings(max_examples=150, deadline=None)
@given(data=__import__("hypothesis").strategies.data())
def test_a_missed_attempt_after_right_steps_is_the_answer(data):
    """Right steps and then a combined expression that misses (one number of the solution replaced
    by another of the puzzle's: used twice, another left out), as the text's conclusion with or
    without its value: the attempt is the answer, never paid; the steps never stand in for it."""
    import re as regex

    from hypothesis import strategies as st

    v = verifiers.get("game24")
    task = data.draw(st.sampled_from(v.tasks("test")))
    expression = _solution_with_whole_steps(task)
    if expression is None or len(set(task["numbers"])) < 2:
        return
    literals = list(regex.finditer(r"\d+", expression))
    replaced = data.draw(st.sampled_from(literals))
    other = data.draw(st.sampled_from(sorted({n for n in task["numbers"] if n != int(replaced.group())})))
    missed = expression[: replaced.start()] + str(other) + expression[replaced.end() :]
    steps = "\n".join(f"{a} {op} {b} = {c}" for a, op, b, c in _steps_of_solution(expression))
    conclusion = data.draw(
        st.sampled_from(["So {e} = {t}.", "So the expression is {e}.", "That gives {e} = {t}.", "{e} = {t}"])
    )
    text = steps + "\n\n" + conclusion.format(e=missed, t=task.get("target", 24))
    assert v.score(text, task).verdict.value != "correct", text


def _a_puzzle_with_misses(data: st.DataObject) -> tuple[verifiers.Verifier, dict, int, str, dict[str, int]]:
    """game24, a test puzzle drawn from `data`, its target, a solution and its misses."""
    v = verifiers.get("game24")
    task = data.draw(st.sampled_from(v.tasks("test")))
    return v, task, task.get("target", 24), *_solution_and_misses(task)


def _solution_and_misses(task: dict) -> tuple[str, dict[str, int]]:
    """A solution of the puzzle, and its misses (the solution with one number replaced by another of
    the puzzle's) with their true values; no misses where the puzzle has none to make."""
    from fractions import Fraction

    from verifiers.game24.solver import solutions

    target = task.get("target", 24)
    expression = next(iter(solutions(task["numbers"], target)), None)
    if expression is None or len(set(task["numbers"])) < 2:
        return "", {}
    misses = {}
    for literal in re.finditer(r"\d+", expression):
        for other in sorted(set(task["numbers"]) - {int(literal.group())}):
            missed = expression[: literal.start()] + str(other) + expression[literal.end() :]
            try:  # exact arithmetic: its true value
                value = eval(re.sub(r"(\d+)", r"Fraction(\1)", missed), {"Fraction": Fraction})
            except ZeroDivisionError:
                continue
            if value.denominator == 1 and value != target:
                misses[missed] = int(value)
    return expression, misses


@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_a_try_that_misses_before_the_answer_on_its_line_leaves_the_answer(data):
    """On any test puzzle, a try that misses with its true value stated (`B = 22, but A = 24.`)
    before the answer on its line is a try: the answer after it is read (correct where it is the
    solution, never paid where it is another miss claimed to reach the target), and one the line
    denies (`B = 22, not A`) is none."""
    v, task, target, expression, misses = _a_puzzle_with_misses(data)
    if len(misses) < 2:
        return
    tried, claimed = data.draw(st.lists(st.sampled_from(sorted(misses)), min_size=2, max_size=2, unique=True))
    joint = data.draw(st.sampled_from((", but ", " and ", "; ", ", while ", " whereas ")))
    verb = data.draw(st.sampled_from((" = ", " gives ", " equals ")))
    line = f"{tried}{verb}{misses[tried]}{joint}{{}}{verb}{target}."
    assert v.score(line.format(expression), task).verdict.value == "correct", line.format(expression)
    assert v.score(line.format(claimed), task).verdict.value != "correct", line.format(claimed)
    denied = f"{tried}{verb}{misses[tried]}, not {expression}."
    assert v.score(denied, task).verdict.value != "correct", denied


GAME24_ANSWER_LINES = ("Answer: {o}", "{o} = {t}", "**{o} = {t}**", "The answer is {o}.", "So {o} = {t}.", "{o}")
GAME24_ANSWER_LINES += ("<answer>{o}</answer>", "\\boxed{{{o}}}", "Final answer: {o}", "Therefore {o} = {t}.")
SETS_A_TRY_ASIDE = (  # lines after the answer about another attempt that reject it or tell it as a try
    "Not {b}.", "I first tried {b}, but it does not work.", "My first idea was {b}.", "{b} does not work.",
    "Unlike {b}, this reaches {t}.", "(Avoid {b}.)", "Wrong: {b}", "{b}? No.", "Earlier I tried {b}; no.",
    "Check: the numbers are all used once.", "Hope this helps!",
)  # fmt: skip
TELLS_A_MISS = (
    "{b} = {v} ❌",
    "{b} = {v} (too small)",
    "I first tried {b}, but it gives {v}.",
    "{b}? No, that gives {v}.",
)
TELLS_A_MISS += ("Note that {b} = {v}, so that does not work.", "Earlier I tried {b} = {v}; no.")


@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_lines_that_set_another_attempt_aside_after_the_answer_leave_it_the_answer(data):
    """On any test puzzle, the answer and then any lines that set another attempt aside (rejected,
    answered "No", told as an earlier try, its true miss stated): the solution as the answer stays
    correct, and a miss as the answer is never paid where the lines set the solution aside. Read
    before, such lines refused 97 of 419 right answers and paid 30 of 381 wrong ones."""
    v, task, target, solution, misses = _a_puzzle_with_misses(data)
    if not misses:
        return
    miss = data.draw(st.sampled_from(sorted(misses)))
    answer = data.draw(st.sampled_from(GAME24_ANSWER_LINES))
    aside = data.draw(st.lists(st.sampled_from(SETS_A_TRY_ASIDE + TELLS_A_MISS), min_size=1, max_size=3))
    right = "\n".join([answer, *aside]).format(o=solution, b=miss, v=misses[miss], t=target)
    assert v.score(right, task).verdict.value == "correct", right
    aside = data.draw(st.lists(st.sampled_from(SETS_A_TRY_ASIDE), min_size=1, max_size=3))
    wrong = "\n".join([answer, *aside]).format(o=miss, b=solution, t=target)
    assert v.score(wrong, task).verdict.value != "correct", wrong


@settings(max_examples=150, deadline=None)
@given(data=__import__("hypothesis").strategies.data())
def test_in_a_list_of_tries_the_one_that_reaches_the_target_is_the_answer(data):
    """A list of tries over any test puzzle, each with its true value (misses: the solution with one
    number replaced by another of the puzzle's), the solution among them and a miss last: the
    solution is the answer, in any list marker; with no item that reaches the target, never paid;
    with a miss written as reaching it (`= 24`, false), that miss is the answer, never paid."""
    v, task, target, expression, misses = _a_puzzle_with_misses(data)
    if not misses:
        return
    tried = data.draw(st.lists(st.sampled_from(sorted(misses)), min_size=1, max_size=3, unique=True))
    at = data.draw(st.integers(0, len(tried) - 1))  # the solution anywhere but last
    marker = data.draw(st.sampled_from(["- ", "* ", "• ", "{}. ", "{}) "]))

    def listed(items: list[str]) -> str:
        return "\n".join(marker.format(i + 1) + item for i, item in enumerate(items))

    items = [f"{e} = {misses[e]}" for e in tried]
    right = items[:at] + [f"{expression} = {target}"] + items[at:]
    assert v.score(listed(right), task).verdict.value == "correct", listed(right)
    assert v.score(listed(items), task).verdict.value != "correct", listed(items)
    claimed = right[:-1] + [f"{tried[-1]} = {target}"]  # the last miss written as reaching the target
    assert v.score(listed(claimed), task).verdict.value != "correct", listed(claimed)


@pytest.mark.parametrize("form", sorted(GAME24_FORMS))
def test_game24_reads_the_forms_issue_53_names(form):
    v = verifiers.get("game24")
    score = v.score(form.format(r=RIGHT), GAME24[0])
    assert score.verdict.value == GAME24_FORMS[form], score.reason


GOMOKU_FORMS = {
    # a conclusion just before a move (`…, so`) is no mistake's introduction, whatever words came before it
    "<move>{b}</move> would be my choice, but it is not needed, so <move>A1</move>.": "incorrect",
    "<move>A1</move> would be my choice, but the four must be blocked, so I play <move>{b}</move>.": "correct",
    "<move>{b}</move>": "correct",
    "The best move is {b}.": "correct",
    "The best move is {b}, not A1.": "correct",  # a rejected move is not the answer
    "The best move is A1, not {b}.": "incorrect",
    "Candidates: {b} or A1": "invalid",  # two moves offered: one too many
    "<move>{b} or A1</move>": "invalid",
    "<move>(4, 8)</move>": "invalid",  # a pair in a convention the prompt never states: ambiguous
    "{b} (row 5, col 9)": "correct",  # a pair beside the named move restates it
    "I looked at A1 and B2.\nMy move: {b}": "correct",  # the last line that names a move
    # "otherwise" after a modal is a condition, never a second move offered
    "The best move for O is to block at **{b}**, since X would otherwise complete E5, F5, G5, H5.": "correct",
    "Block at {b}; otherwise, A1.": "invalid",
    # a line that gives the other side's move, by name or as X and Black, is theirs; one that only
    # mentions them (`A1 blocks their four`) is ours
    "O: A1\nX: {b}": "incorrect",
    "I play <move>A1</move>, and X replies <move>{b}</move>.": "incorrect",  # a tag that holds their move
    "<move>A1</move>\nOpponent's reply: <move>{b}</move>": "incorrect",
    # a list of moves is one answer too many, unless one item is marked as the answer; under an
    # answer's label standing alone, every item is the label's
    "Candidate moves:\n- A1\n- {b}": "invalid",
    "1. A1\n2. {b}": "invalid",
    "Top moves:\n1. {b} (best)\n2. A1": "correct",
    "Top moves:\n1. A1 (best)\n2. {b}": "incorrect",
    "1. A1 (loses)\n2. {b}": "correct",
    "1. X has four on row 5.\n2. {b} blocks it.": "correct",  # reasoning, no list of moves
    "Answer:\n- {b}\n- A1": "invalid",
    "Answer:\n- A1 (loses)\n- {b}": "correct",
    "Move:\n- {b}\n- blocks the four": "correct",
    # a move ranked below the answer is none, and a line that rejects its only move is no answer's
    "Best: {b}\nSecond best: A1": "correct",
    "Best: A1\nSecond best: {b}": "incorrect",
    "Best: {b}\nWorst: A1": "correct",
    "Move: {b}\nThen F8.\nFinally, play A1.": "correct",  # "Finally" after a plan's line is its last step
    "Move: A1\nThen F8.\nFinally, play {b}.": "incorrect",
    # a clause that concludes (`, so …`) is the words a tag after it belongs to
    "The winning move for X would be {b}, so O must take it: <move>{b}</move>": "correct",
    "The winning move for X would be {b}, so O must take it: <move>A1</move>": "incorrect",
    "X would win at A1, so they play <move>A1</move>.": "invalid",
    "The opponent plays <move>{b}</move>.": "invalid",  # their move alone: no answer of ours
    "I block their four at <move>{b}</move>.": "correct",
    "My move: A1\nX's move: {b}": "incorrect",
    "Move: A1\nBlack's move: {b}": "incorrect",
    "X: H5\nO: {b}": "correct",
    "{b} is the key square.\nSo I block their four at A1.": "incorrect",
    "{b} looks natural.\nBut I will play A1 to stop their attack.": "incorrect",
    "Move: {b}\n\nSo I block their four at A1.": "invalid",  # a conclusion naming another: two answers
    "X has four on row 5 (E5-H5).\nO blocks at {b}.": "correct",
    "<move>{b}</move>\n\n(F8 would be a strong attacking move otherwise, but defense comes first.)": "correct",
    "Move: {b}\nAlternatively, A1.": "invalid",  # a later line offers another, without its label
    "Move: {b}\nA1 is equally good.": "invalid",
    "<move>{b}</move>\nA1 would also win.": "invalid",
    "<move>{b}</move>\nAlso A1 works.": "invalid",
    "<move>{b}</move>\nAnother: A1": "invalid",
    "<move>{b}</move>\nAlso, playing A1 instead would lose.": "correct",
    "<move>{b}</move>\nFinal answer: A1": "invalid",
    "<move>{b}</move>\nBlack's move: A1": "correct",  # a side's label: maybe the other's, never a conclusion
    "Move: {b} or A1.\nI'll go with {b}.": "correct",
    "{b} or A1? Let me check. A1 does nothing. I'll go with {b}.": "correct",
    "Move: {b} or A1.\nI'll go with {b}. It blocks the four.": "correct",
    "Move: {b} or A1.\nI'll go with {b}.\nHope this helps!": "invalid",  # only the last line decides
    "A1 is suboptimal; {b}.": "correct",
    "不要下A1，下{b}。": "correct",
    "下A1会输，应该下{b}。": "correct",
    "下{b}不好，下A1。": "incorrect",
    "Playing A1 would waste a tempo, so {b}.": "correct",
    "Move: {b} (A1 is also worth considering)": "invalid",
    "Block at {b}; otherwise X wins with E5-F5-G5-H5-{b}.": "correct",  # what the other player then does
    "Block at A1; otherwise X wins with E5-F5-G5-H5-{b}.": "incorrect",
    "Block at {b}; otherwise we could play A1.": "invalid",  # what we could do instead: an offer
    "I play {b} now, and next turn F8 to build my own line.": "correct",  # a plan of later turns
    "I play A1 now, and next turn {b}.": "incorrect",
    "<move>I 5</move>": "correct",  # spaced inside a tag: still one move
    "Move: {b}\nThis completes the line from E5 to {b}.": "correct",  # lines after an answer's label explain it
    "**Answer: {b}**\n\nAlternatives like A1 lose at once.": "correct",
    "{b} (blocking the four E5-H5)": "correct",  # a parenthesis explains the move before it
    "{b} wins. (A1 also works, but {b} is cleaner.)": "invalid",  # a parenthesis that offers a second move
    "Looking at row 5, Black has E5, F5, G5, H5. Playing {b} wins.": "correct",  # the answering sentence
    "The answer is I-5.": "correct",  # hyphenated, never a range (E5-H5)
    "Answer: column I, row 5": "correct",
    "Answer: row 5, column I": "correct",
    "Place at column 9, row 5.": "invalid",  # a numbered column: ambiguous where the prompt asks for its letter
    "I play (I, 5).": "correct",  # a letter and a number in a pair: column and row, as the prompt says
    "<move>(I, 5)</move>": "correct",
    "<move>column I, row 5</move>": "correct",
    # a JSON object: its answer's field, whatever the other fields say; a field that offers another, refused
    '{{"reasoning": "X has four on row 5 (E5-H5); A1 is irrelevant.", "move": "{b}"}}': "correct",
    '{{"move": "{b}", "alternatives": ["A1"]}}': "invalid",
    '```json\n{{\n  "move": "{b}",\n  "alternatives": ["A1", "B2"]\n}}\n```': "invalid",
    '{{"move": "{b}", "alternatives": []}}': "correct",
    "Move: {b}\n- **Other options**: A1, B2": "invalid",
    "Move: A1\nAlternatively, Move: {b}": "invalid",  # a hedge in the label: two moves offered
    "<move>A1</move> or <move>{b}</move>": "invalid",
    "Play <move>{b}</move>. A common mistake is <move>A1</move>.": "correct",  # a move shown as a mistake
    "<move>{b}</move>\nAvoid <move>A1</move>, which loses.": "correct",
    "<move>A1</move>\nWait, that loses. <move>{b}</move>": "correct",  # a later move replaces a rejected one
    "<move>{b}</move>\nA better one:\n<move>A": "invalid",  # the final tag cut off: the earlier never stands in
    "My move: I 5": "correct",  # spaced after an answer's label: still one move
    "{b}\n\nThis completes five in a row (E5, F5, G5, H5, {b}).": "correct",  # moves in a parenthesis explain
    "The answer is {b}. After that, White might try A1.": "correct",  # the sentence that says what it answers
    "The answer is {b}. Another option is A1.": "invalid",  # a second move offered
    "I play {b}; the best move is A1.": "invalid",  # two answering sentences, two moves
    "O blocks at {b}: X has E5, F5, G5 and H5.": "correct",  # stones on the board describe the position
    "Play {b} or E5.": "invalid",  # offered beside it, even where the other is taken
    "Both A1 and {b} look possible, so I choose {b}.": "correct",  # the concluding clause's choice
    "Both A1 and {b} look possible, so I choose A1.": "incorrect",
    "[4, 8]": "invalid",  # a pair in brackets: as ambiguous as in parentheses
    # a move the text calls wrong is none; a line that takes the last one back leaves no answer
    "<move>{b}</move> is wrong.": "invalid",
    "<move>{b}</move> would lose.": "invalid",
    "Move: {b} is a mistake.": "invalid",
    "**{b}** doesn't work.": "invalid",
    "<move>{b}</move>\nThat's wrong.": "invalid",
    "<move>{b}</move>\nOops, I made a mistake.": "invalid",
    "Move: A1\nWait, that is wrong. I will play {b} instead.": "correct",  # the denied move replaced
    "Move: A1\nNo, that's wrong. Corrected:\n{b}": "correct",
    "Move: {b}\nThat's wrong.\nThe opponent then plays A1.": "invalid",  # their move never stands in for ours
    "Move: A1\nThat's wrong.\nThe opponent then plays {b}.": "invalid",
    "Move: A1\nThat is wrong. X wins at {b}.": "invalid",  # a player named by its stone: their move
    "Move: A1\nX then wins at {b}, so that does not work.": "invalid",
    "Move: {b}\nA1 would be pointless: that does not work.": "correct",  # "that" is the line's own move
    "Move: {b}\nWhat about A1? That doesn't work, X wins at {b}.": "correct",
    "Move: {b}\nX then wins at A1, so that does not work.": "invalid",  # "that" is our move: taken back
    "<move>{b}</move> wins. <move>A1</move> loses.": "correct",  # the move called losing is none
    "<move>{b}</move> is not blocked, so it wins.": "correct",
    "{b} can't be blocked.": "correct",
    "<move>{b}</move>\nCan O block both threats?\nNo, so X wins.": "correct",
    "<move>{b}</move>\nFinal move: none": "invalid",  # the last answer's place says there is none
    "A1 loses to {b}.": "invalid",  # the other side's reply to a move called losing is no answer
    # a last line that concludes with another move: two final answers; restated, or the other side's, one
    "Move: {b}\n\nSo the best move is A1.": "invalid",
    "<move>{b}</move>\n\nTherefore, A1.": "invalid",
    "Move: A1\n\nSo I play {b}.": "invalid",
    "Move: {b}\n\nSo I play {b} to block the four.": "correct",
    "Move: {b}\n\nSo X is forced to answer at A1.": "correct",
    "Move: {b}\n\nSo if they reply A1, I win.": "correct",
    "Move: {b}\n\nSo I block at A1.": "invalid",
    "Move: {b}\n\nSo I block at {b}, not A1.": "correct",
    "Move: {b}\n\nSo my move blocks the four and prepares a three toward G6.": "correct",  # it explains
    "Move: {b}\n\nOverall, my position is solid around E6.": "correct",
    "Move: {b}\n\nFinally, H6 is covered.": "correct",  # a clause, not the answer alone
    "Move: {b}\n\nSo, A1 wins.": "invalid",
    "{b}, since A1 loses to H6.": "correct",
    "<move>{b}</move>\nResult: nothing else blocks the four.": "correct",
    # a line that opens with its move explains it with the cells after it; comparing or doubting, refused
    "{b}, blocking the four and threatening H6.": "correct",
    "{b} creates a double threat at H6 and G7.": "correct",
    "{b} blocks; A1 and B2 are irrelevant.": "correct",
    "Play {b} to block E5-H5; then X can't win at A1.": "correct",
    "I choose {b} over A1.": "correct",
    "A1 is worse than {b}.": "invalid",
    "A1 and B2 are too slow. {b} wins on the spot.": "correct",  # moves called wrong together
    "Move: {b}\nAlternatives considered: A1 (loses), B2 (too passive)": "correct",  # each one rejected
    "Move: {b}\nAlternatives: A1 (too slow), B2": "invalid",  # B2 offered beside it
    "Move: {b}\nBad move: A1": "correct",
    "答案：{b}\n等等，{b}有子了。答案：A1": "incorrect",  # a label that introduces a mistake holds no answer
    "Move: A1\nWorst move: {b}": "incorrect",
    "Move: {b}\nMove: A1 ❌": "correct",  # a labelled move struck out is none
    "Move: {b} ❌": "invalid",
    "<move>{b}</move> (or G4)": "invalid",  # a second move offered on the answer's line
    "<move>{b}</move> — G4 would also work": "invalid",
    "Best: {b}. Worst: A1.": "correct",  # a mistake's label on the answer's line rejects its move
    "Bad move: {b}": "invalid",  # a mistake's label over the only move: no answer
    "A1 ❌  {b} ✅": "correct",  # a move struck out
    "I play I 5.": "correct",  # a move spaced after the verb that places it
    "A1? No, {b}.": "correct",  # a try answered "No" is called wrong
    "{b}? No, A1.": "incorrect",
    "Play {b}. Actually, A1 is better.": "incorrect",  # a later sentence that opens a correction replaces it
    "Play A1. Actually, {b} is better.": "correct",
    "{b}, H6 and G7 are all candidates.": "invalid",
    "{b} or H6, both block.": "invalid",
    "<move>{b}</move>\nDoes this work?\nNo, that's wrong.": "invalid",
    # a plan of later moves or a reason beside the move now names no second answer
    "O must block at {b} immediately; if X then plays G6, O answers at H6.": "correct",
    "O blocks at {b}, and if X plays G6, O answers at H6.": "correct",
    "The key square is {b}, since H6 is covered.": "correct",
    "If X plays G6, O answers at H6. A1 is fine now.": "incorrect",
    # an answer's label after a sentence on its line
    "Answer: {b}\nWait, actually {b} is occupied. Answer: A1": "incorrect",
    "I looked at it. Answer: {b}": "correct",
    # a final label cut off, or holding a fragment that names no move: no answer; words after one explain
    "Move: {b}\nA better one:\nMove:": "invalid",
    "Move: {b}\nA better one:\nMove: A": "invalid",
    "Move: {b}\nResult: it blocks the four.": "correct",
    "Move: {b}\nFor comparison, a weaker one would be:\nMove: A1": "correct",
    # full-width letters and digits are the move; a pair written as x and y is as ambiguous as (9, 5)
    "Move: Ｉ５": "correct",
    "Move: x=9, y=5": "invalid",
    "The answer is {b} (x = 9, y = 5).": "correct",
}


@pytest.mark.parametrize("form", sorted(GOMOKU_FORMS))
def test_gomoku_reads_its_answer_by_the_shared_rules(form):
    v, task = _task("gomoku")
    best = task["best_moves"][0]
    assert best == "I5", best  # the forms are written for this task's board
    score = v.score(form.format(b=best), task)
    assert score.verdict.value == GOMOKU_FORMS[form], score.reason


@settings(max_examples=200, deadline=None)
@given(data=__import__("hypothesis").strategies.data())
def test_stones_on_the_board_named_beside_the_move_describe_the_position(data):
    """On any test position, a task's best move named with stones already on the board (the line
    it completes, the four it blocks, in any order) is the move read; offered beside one of them,
    refused. (The verifier hands the reader its board: `GOMOKU_FORMS` scores such a line whole.)"""
    from hypothesis import strategies as st

    from verifiers.gomoku.extract import MOVE_FORMATS, answer_move
    from verifiers.gomoku.position import from_task

    v, _ = _task("gomoku")
    task = data.draw(st.sampled_from(v.tasks("test")))
    position = from_task(task)
    occupied = {cell for cell, stone in enumerate(position.stones) if stone}
    best = data.draw(st.sampled_from(list(task["best_moves"])))
    listed = data.draw(st.lists(st.sampled_from([position.name(c) for c in sorted(occupied)]), min_size=2, max_size=5))
    at = data.draw(st.integers(0, len(listed)))
    cells = ", ".join([*listed[:at], best, *listed[at:]])
    frame = data.draw(
        st.sampled_from(["I play {b}: {cells}.", "{b}, with {cells} on the board.", "Move {b} ({cells})"])
    )
    read = answer_move(frame.format(b=best, cells=cells), position.size, MOVE_FORMATS, occupied)
    assert read[0] is not None and position.name(read[0]) == best, read
    assert answer_move(f"Play {best} or {listed[0]}.", position.size, MOVE_FORMATS, occupied)[0] is None


# the move now, then a line that tells of a later turn (a plan, a condition, a later turn's number)
MOVE_NOW = ("Play {}.", "Play {} now.", "First, play {}.", "Move: {}", "Turn 1: {}", "1. Play {}.", "I play {}.")
LATER_TURN = (
    "Then play {}.",
    "Then {}.",
    "Next turn: {}",
    "After that, play {}.",
    "Afterwards, {}.",
    "Later, {}.",
    "2. Then {}.",
    "Turn 2: {}",
    "Step 2: after they respond, play {}.",
    "If they answer, play {}.",
)
PLAN_GOES_ON = ("", "Finish with {}.", "3. {}.", "Then {}.")  # a line more of the plan, or none


@pytest.mark.parametrize("name", ["gomoku", "doudizhu"])
@settings(max_examples=60, deadline=None)
@given(data=__import__("hypothesis").strategies.data())
def test_a_later_turns_move_after_the_move_now_is_never_the_answer(name, data):
    """On any test task, the move now followed by a line that tells of a later turn (`Play A.` /
    `Then play B.`, `Turn 1: A` / `Turn 2: B`), and perhaps a line that goes on with the plan, answers
    A: its verdict is A's alone, whether A or B is the best move (rule 5, docs/answers.md: the last
    move named is not always the answer)."""
    from hypothesis import strategies as st

    from verifiers.doudizhu.verifier import _two_plays
    from verifiers.gomoku.verifier import _two_moves

    v = _reading_only(name)
    task = data.draw(st.sampled_from(v.tasks("test")))
    best, other = (_two_moves if name == "gomoku" else _two_plays)(v, task)
    now, later = data.draw(st.sampled_from(MOVE_NOW)), data.draw(st.sampled_from(LATER_TURN))
    best_now = data.draw(st.booleans())
    first, second = (best, other) if best_now else (other, best)
    text = now.format(first) + data.draw(st.sampled_from(("\n", "\n\n", "\r\n"))) + later.format(second)
    if goes_on := data.draw(st.sampled_from(PLAN_GOES_ON)):
        text += "\n" + goes_on.format(data.draw(st.sampled_from((best, other))))
    assert v.score(text, task).verdict == v.score(f"<move>{first}</move>", task).verdict, text


@pytest.mark.parametrize("name", ["gomoku", "doudizhu"])
@settings(max_examples=60, deadline=None)
@given(data=__import__("hypothesis").strategies.data())
def test_a_denial_speaks_of_the_try_its_own_line_names(name, data):
    """On any test task, a line after the answer that names another move and then calls "that" wrong
    speaks of that move: the answer stands, its verdict its own alone; where the line
    names a player (`X then wins at …`, `the opponent answers …`), "that" is the answer, taken back."""
    from hypothesis import strategies as st

    from verifiers.doudizhu.verifier import _two_plays
    from verifiers.gomoku.verifier import _two_moves

    v = _reading_only(name)
    task = data.draw(st.sampled_from(v.tasks("test")))
    best, other = (_two_moves if name == "gomoku" else _two_plays)(v, task)
    best_first = data.draw(st.booleans())
    answer, tried = (best, other) if best_first else (other, best)
    label = data.draw(st.sampled_from(("Move: {}", "<move>{}</move>", "Final answer: {}")))
    own = data.draw(
        st.sampled_from(("I also looked at {}, but that is wrong.", "{} would be pointless: that does not work."))
    )
    text = label.format(answer) + "\n" + own.format(tried)
    assert v.score(text, task).verdict == v.score(f"<move>{answer}</move>", task).verdict, text
    player = (
        "X then wins at {}, so that does not work."
        if name == "gomoku"
        else "The opponent then plays {}, so that does not work."
    )
    text = label.format(answer) + "\n" + player.format(tried)
    assert v.score(text, task).verdict.value != "correct", text


OUR_MOVE_LINES = ("<move>{o}</move>", "Move: {o}", "I play {o}.", "Best: {o}", "Play {o} now.", "**{o}**", "{o}")
OUR_MOVE_LINES += ("I'll go with {o}.", "My move is {o}.", "The best move is {o}.", "Final answer: **{o}**")
NOT_OUR_MOVE = (  # lines about another move that neither answer nor offer it: theirs, rejected, later, tried
    "Opponent's reply: {b}", "The opponent then plays {b}.", "They will probably answer with {b}.",
    "Their best reply is {b}.", "The opponent's best move: {b}", "If they answer, play {b}.", "Then {b}.",
    "Next turn: {b}", "Turn 2: {b}", "After that, {b}.", "Later I can play {b}.", "{b} would lose.", "Not {b}.",
    "Avoid {b}.", "Don't play {b}.", "{b}? No.", "{b} ❌", "Playing {b} would be a mistake.", "({b} is a trap.)",
    "Second best: {b}", "Runner-up: {b}", "Worst: {b}", "Bad move: {b}", "Candidates I rejected: {b}",
    "I first considered {b}, but it does not work.", "My first idea was {b}.", "{b} loses to {o}.",
    "Hope this helps!", "This keeps the initiative.",
)  # fmt: skip
KEPT_FOR_LATER = ("This keeps {b} for later.", "Keep {b} for the end.", "{b} stays in my hand.")  # doudizhu: cards kept


@pytest.mark.parametrize("name", ["gomoku", "doudizhu"])
@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_lines_about_another_move_after_the_answer_leave_it_the_answer(name, data):
    """On any test task, our move stated, then any of lines about another move that are not ours to
    play now, in any order and number (the other side's, rejected, a later turn's, ranked below,
    an earlier try, talk; for doudizhu, cards kept for later): the verdict is our move's alone,
    whichever is the best move. Read line by line before, combinations of such lines paid the other
    move on 141 of 600 gomoku texts."""
    from verifiers.doudizhu.verifier import _two_plays
    from verifiers.gomoku.verifier import _two_moves

    v = _reading_only(name)
    task = data.draw(st.sampled_from(v.tasks("test")))
    best, other = (_two_moves if name == "gomoku" else _two_plays)(v, task)
    ours, theirs = data.draw(st.permutations([best, other]))
    lines = [data.draw(st.sampled_from(OUR_MOVE_LINES))]
    not_ours = NOT_OUR_MOVE + (KEPT_FOR_LATER if name == "doudizhu" else ())
    lines += data.draw(st.lists(st.sampled_from(not_ours), min_size=1, max_size=4))
    text = "\n".join(lines).format(o=ours, b=theirs)
    assert v.score(text, task).verdict == v.score(f"<move>{ours}</move>", task).verdict, text


LIST_HEADS = ("Candidates:", "Options:\n", "Moves I considered:", "")
LIST_MARKS = ("1. ", "2. "), ("- ", "- "), ("1) ", "2) ")
PLACE_CHOICES = ("The {} one is best.", "I go with the {} option.", "So the {} move it is.", "The {} one wins.")


@pytest.mark.parametrize("name", ["gomoku", "doudizhu"])
@settings(max_examples=60, deadline=None)
@given(data=__import__("hypothesis").strategies.data())
def test_a_list_item_chosen_by_its_place_is_the_answer(name, data):
    """On any test task, two moves listed and then one chosen by its place (`1. A` / `2. B` / `The
    first one is best.`) answer the one chosen: its verdict alone, whichever is the best move (the
    last item listed is not the answer)."""
    from hypothesis import strategies as st

    from verifiers.doudizhu.verifier import _two_plays
    from verifiers.gomoku.verifier import _two_moves

    v = _reading_only(name)
    task = data.draw(st.sampled_from(v.tasks("test")))
    best, other = (_two_moves if name == "gomoku" else _two_plays)(v, task)
    items = data.draw(st.permutations([best, other]))
    first, second = data.draw(st.sampled_from(LIST_MARKS))
    place = data.draw(st.sampled_from(("first", "second", "last", "1st", "2nd")))
    chosen = items[0] if place in ("first", "1st") else items[1]
    text = f"{data.draw(st.sampled_from(LIST_HEADS))}\n{first}{items[0]}\n{second}{items[1]}\n\n"
    text += data.draw(st.sampled_from(PLACE_CHOICES)).format(place)
    assert v.score(text, task).verdict == v.score(f"<move>{chosen}</move>", task).verdict, text


@settings(max_examples=60, deadline=None)
@given(data=__import__("hypothesis").strategies.data())
def test_the_other_sides_move_is_never_ours_and_a_mention_of_them_leaves_it_ours(data):
    """On any test position, a line that gives the waiting side's move under its name (`X: B`, `Black's
    move: B`, `X plays B.`) after ours never makes B the answer; a line of ours that only mentions
    them (`So I block their four at A.`) is ours, whatever line names a move before it: the verdict
    is the one of our move alone."""
    from hypothesis import strategies as st

    from verifiers.gomoku.verifier import _two_moves

    v = _reading_only("gomoku")
    task = data.draw(st.sampled_from(v.tasks("test")))
    ours, theirs = _gomoku_sides(task)
    colour = "Black" if theirs == "X" else "White"
    best, other = _two_moves(v, task)
    mine, named = (best, other) if data.draw(st.booleans()) else (other, best)
    alone = v.score(f"<move>{mine}</move>", task).verdict
    their_line = data.draw(st.sampled_from((f"{theirs}: {{}}", f"{colour}'s move: {{}}", f"{theirs} plays {{}}.")))
    our_line = data.draw(st.sampled_from((f"{ours}: {{}}", "My move: {}", f"{ours} plays {{}}.")))
    text = our_line.format(mine) + "\n" + their_line.format(named)
    assert v.score(text, task).verdict == alone, text
    mention = data.draw(st.sampled_from(("So I block their four at {}.", "But I will play {} to stop their attack.")))
    text = f"{named} is the key square.\n" + mention.format(mine)
    assert v.score(text, task).verdict == alone, text


THEIR_CELL = (
    "{t} threatens to play {m}.",
    "If {t} gets {m}, {t} wins.",
    "{c} would win at {m}.",
    "The opponent's threat is at {m}.",
)
OWN_UNREAD = ("", " I'd rather take the corner.", "\nStill, I choose the corner.", " {o} should play at (1, 1).")
TAKE_IT = (", so block it.", ", which must be blocked.", " I block it.", " Take it first.")


@settings(max_examples=60, deadline=None)
@given(data=__import__("hypothesis").strategies.data())
def test_a_move_named_only_as_the_other_sides_is_never_ours_unless_we_take_it(data):
    """On any test position, a text whose only move is named where the other side would play it
    (`X threatens to play B.`), beside our own move in words that name no cell or none at all, has
    no answer (never B: the winning cell named as their threat paid a text that played elsewhere);
    where it has us take that cell (`…, so block it.`), the answer is B."""
    from hypothesis import strategies as st

    from verifiers.gomoku.verifier import _two_moves

    v = _reading_only("gomoku")
    task = data.draw(st.sampled_from(v.tasks("test")))
    ours, theirs = _gomoku_sides(task)
    colour = "Black" if theirs == "X" else "White"
    best, _other = _two_moves(v, task)
    said = data.draw(st.sampled_from(THEIR_CELL)).format(t=theirs, c=colour, m=best)
    own = data.draw(st.sampled_from(OWN_UNREAD)).format(o=ours)
    assert v.score(said + own, task).verdict.value == "invalid", said + own
    taken = said.rstrip(".") + data.draw(st.sampled_from(TAKE_IT))
    assert v.score(taken, task).verdict == v.score(f"<move>{best}</move>", task).verdict, taken


DISCUSSES = (  # sentences about another cell that neither play it nor offer it: theirs, set aside, weighed
    "{t} threatens to play {c}.", "If {t} gets {c}, {t} wins.", "The opponent's key point is {c}.",
    "I considered {c}, but it loses.", "{c} would lose to a four.", "Playing {c} is a mistake.", "{c}? No, too slow.",
    "At first glance {c} looks good, but it fails.", "The tempting {c} does nothing.", "{c} is a trap.",
    "Let me check {c}: it loses to {t}'s four.", "Not {c} — that lets {t} connect.", "Their best reply would be {c}.",
)  # fmt: skip
STATES = (
    "So I play {o}.",
    "My move: {o}",
    "I'll go with {o}.",
    "**{o}**",
    "The best move is {o}.",
    "{s} should play {o}.",
)


@settings(max_examples=40, deadline=None)
@given(data=__import__("hypothesis").strategies.data())
def test_sentences_that_discuss_another_move_leave_the_stated_move_the_answer(data):
    """On any test position, a move stated as ours (`So I play A.`, `**A**`, `O should play A.`) with
    sentences about another cell B that neither play nor offer it (the other side's, rejected, weighed
    and found wanting: `The tempting B does nothing.`, `Let me check B: it loses to X's four.`), before
    it or after it, on its line or on lines of their own: the verdict is A's alone, whichever is the
    best move. Read as the last line or sentence naming a move, such texts paid B on 41 of 200 (lines
    after) and 19 of 200 (one paragraph)."""
    from hypothesis import strategies as st

    from verifiers.gomoku.verifier import _two_moves

    v = _reading_only("gomoku")
    task = data.draw(st.sampled_from(v.tasks("test")))
    ours, theirs = _gomoku_sides(task)
    played, discussed = data.draw(st.permutations(_two_moves(v, task)))
    talk = data.draw(st.lists(st.sampled_from(DISCUSSES), min_size=1, max_size=3))
    talk = [line.format(t=theirs, c=discussed) for line in talk]
    stated = data.draw(st.sampled_from(STATES)).format(o=played, s=ours)
    joint = data.draw(st.sampled_from(("\n", " ")))
    text = joint.join(talk + [stated] if data.draw(st.booleans()) else [stated] + talk)
    assert v.score(text, task).verdict == v.score(f"<move>{played}</move>", task).verdict, text


ANSWERED = ("<move>{a}</move>", "Move: {a}", "**Move:** {a}", "So I play {a}.", "**{a}**", "I'll go with {a}.")
DISCUSSED_AFTER = (  # lines about another move, after ours, that neither play nor offer nor prefer it
    "I considered {b}, but it loses.", "Playing {b} is a mistake.", "{b}? No, too slow.",
    "The tempting {b} does nothing.", "{b} is a trap.", "Let me check {b}: it loses.", "Not {b}.",
    "It is better than {b}.", "Wait, {b} would lose.", "Wait, is {b} better? No.",
)  # fmt: skip
PREFERRED_AFTER = (  # lines after ours that rank another above it, or correct to it
    "{b} is better.", "Actually, {b}.", "Hmm, {b} wins outright.", "Wait, {b} is stronger.",
    "On second thought, {b}.", "Instead, {b} is stronger.", "The {b} would be better.", "{b} is the better move.",
    "The better move is {b}.", "Hmm, actually {b} is better.", "Wait, {b}.", "Hold on, {b}.",
)  # fmt: skip


@pytest.mark.parametrize("name", ["gomoku", "doudizhu"])
@settings(max_examples=40, deadline=None)
@given(data=__import__("hypothesis").strategies.data())
def test_lines_after_the_answer_that_prefer_another_make_it_the_answer_and_mentions_do_not(name, data):
    """On any test task, a move A answered (tagged, labelled, stated or alone) and lines after it about
    another move B: lines or sentences on its line that only discuss B (`The tempting B does
    nothing.`, `Move: A. I considered B, but it loses.`) leave the verdict A's; a line or a later sentence that ranks B above it or corrects to it (`B
    is better.`, `Actually, B.`) makes it B's, whichever of the two is the best move (rule 5,
    docs/answers.md).
    Read by the answer's label or tag alone, `Move: A` / `Actually, B is better.` paid A."""
    from hypothesis import strategies as st

    from verifiers.doudizhu.verifier import _two_plays
    from verifiers.gomoku.verifier import _two_moves

    v = _reading_only(name)
    task = data.draw(st.sampled_from(v.tasks("test")))
    answered, other = data.draw(st.permutations((_two_moves if name == "gomoku" else _two_plays)(v, task)))
    text = data.draw(st.sampled_from(ANSWERED)).format(a=answered)
    talk = data.draw(st.lists(st.sampled_from(DISCUSSED_AFTER), min_size=1, max_size=2))
    discussed = "\n".join([text, *(line.format(b=other) for line in talk)])
    alone = {move: v.score(f"<move>{move}</move>", task).verdict for move in (answered, other)}
    assert v.score(discussed, task).verdict == alone[answered], discussed
    joined = f"{text}{' ' if text.endswith('.') else '. '}{' '.join(line.format(b=other) for line in talk)}"
    assert v.score(joined, task).verdict == alone[answered], joined  # the sentences of its own line
    prefers = data.draw(st.sampled_from(PREFERRED_AFTER)).format(b=other)
    preferred = f"{discussed}\n{prefers}"
    assert v.score(preferred, task).verdict == alone[other], preferred
    stated = data.draw(st.sampled_from(("So I play {a}.", "I'll go with {a}."))).format(a=answered)
    one_line = f"{stated} {prefers}"  # sentences of one line
    assert v.score(one_line, task).verdict == alone[other], one_line
    after_its_tag = f"<move>{answered}</move> {prefers}"  # the tag's own line (read by the tag alone: paid A)
    assert v.score(after_its_tag, task).verdict == alone[other], after_its_tag


STATED_THEN_TURNED = ("Move: {a}", "My move: {a}", "I play {a}", "So I play {a}", "**Move:** {a}")
TURNS_IN_ITS_CLAUSE = (  # words on the answer's line that turn from it to the move after them
    ", or rather {b}.", " — sorry, I mean {b}.", ", no wait, {b}.", ", correction: {b}", ", make that {b}.",
    " (oops, wrong one) -> {b}", "; my mistake, I meant {b}.", ", but I prefer {b}.", ", or rather, {b}",
)  # fmt: skip
MENTIONED_IN_ITS_CLAUSE = (  # words on the answer's line after such a turning word that only mention another
    " (oops, I almost played {b})", ", sorry, {b} would lose at once.", ", but I prefer not to play {b}.",
    " — sorry, not {b}.", ", but I'd rather not play {b}.",
)  # fmt: skip


@pytest.mark.parametrize("name", ["gomoku", "doudizhu"])
@settings(max_examples=40, deadline=None)
@given(data=__import__("hypothesis").strategies.data())
def test_a_clause_on_the_answers_line_that_turns_to_another_move_makes_it_the_answer(name, data):
    """On any test task, a move A stated and, on its line, words that turn from it to B (`Move: A —
    sorry, I mean B.`, `I play A, no wait, B.`, `Move: A, correction: B`): the verdict is B's,
    whichever of the two is the best move; words after such a turning word that only mention B
    (`(oops, I almost played B)`, `, sorry, B would lose at once.`) leave it A's (rule 5,
    docs/answers.md). Before: gomoku paid A for `Move: A — sorry, I mean B` (the dash read as an aside)."""
    from hypothesis import strategies as st

    from verifiers.doudizhu.verifier import _two_plays
    from verifiers.gomoku.verifier import _two_moves

    v = _reading_only(name)
    task = data.draw(st.sampled_from(v.tasks("test")))
    answered, other = data.draw(st.permutations((_two_moves if name == "gomoku" else _two_plays)(v, task)))
    alone = {move: v.score(f"<move>{move}</move>", task).verdict for move in (answered, other)}
    stated = data.draw(st.sampled_from(STATED_THEN_TURNED)).format(a=answered)
    turned = stated + data.draw(st.sampled_from(TURNS_IN_ITS_CLAUSE)).format(b=other)
    assert v.score(turned, task).verdict == alone[other], turned
    mentioned = stated + data.draw(st.sampled_from(MENTIONED_IN_ITS_CLAUSE)).format(b=other)
    assert v.score(mentioned, task).verdict == alone[answered], mentioned


UNSTOPPED = (  # a stated move, and the next sentence with the stop between them left out
    "My move: {a} {t} threatens to play {b}. I considered {b}, but it loses.", "**{a}** I considered {b}, but it loses.",
    "**{a}** — I considered {b}, but it loses.", "So I play {a} {t} threatens to play {b}.",
    "I'll go with {a} The tempting {b} does nothing.",
)  # fmt: skip


@pytest.mark.parametrize("form", UNSTOPPED)
def test_a_move_whose_stop_was_left_out_ends_its_sentence(form):
    """On every gomoku test position, a move followed by a capitalised word or a side's name (perhaps
    after a dash) ends its sentence (`**A** I considered B, but it loses.`): the verdict is A's,
    whichever is the best move. Read as one sentence naming both, such texts were refused as two moves
    offered (found by the generated texts of the test above)."""
    from verifiers.gomoku.verifier import _two_moves

    v = _reading_only("gomoku")
    for task in v.tasks("test"):
        theirs = _gomoku_sides(task)[1]
        for a, b in itertools.permutations(_two_moves(v, task)):
            text = form.format(a=a, b=b, t=theirs)
            assert v.score(text, task).verdict == v.score(f"<move>{a}</move>", task).verdict, (task["id"], text)


DOUDIZHU_FORMS = {
    "<move>3</move> would be my choice, but it is not needed, so <move>PASS</move>.": "invalid",
    "<move>PASS</move> would be my choice, but I lead now, so I play <move>3</move>.": "correct",
    "<move>3</move>": "correct",
    "<move>PASS</move> loses the race; <move>3</move> wins it.": "correct",  # the last play stands
    "<move>3</move> or <move>PASS</move>": "invalid",  # two plays offered: one too many
    "<move>3</move>. Don't play <move>PASS</move>.": "correct",  # a play shown as what not to do
    "<move>PASS</move> or <move>3</move>": "invalid",
    "Move: PASS\nAlternatively, Move: 3": "invalid",
    "**Move:** 3": "correct",
    "Best play: 3 (a single)": "correct",  # an aside in parentheses says what the cards are
    "<move>single 3</move>": "correct",
    '{"move": "3"}': "correct",  # a JSON key
    # a label standing alone over a list of plays labels every item: two plays, one too many
    "Candidate plays:\n- A\n- 3": "invalid",
    "Candidate plays:\n- A (loses)\n- 3": "correct",
    "My play:\n- 3 (single)\n- keeps the 2": "correct",
    "Best: 3\nSecond best: A": "correct",
    "Best: A\nSecond best: 3": "incorrect",
    "What about A? No. 3.": "correct",  # a "No." that answers a question numbers nothing
    "What about 3? No. A.": "incorrect",
    # the lines after a later turn's line go on with its plan until one names the answer
    "1. Lead 3.\n2. Then play 2.\n3. Finish with A.": "correct",
    "1. Lead A.\n2. Then play 2.\n3. Finish with 3.": "incorrect",
    "Lead 3.\nThen play 2.\nFinally, play A.": "correct",
    "1. Lead A.\n2. Then play 2.\n3. Answer: 3": "correct",
    # what our play forces, and the other side's clause (`they'd`), are not our play
    "Leading 3 forces the opponent to respond; they'd probably play 5.": "correct",
    "Leading A forces the opponent to respond; they'd probably play 5.": "incorrect",
    '{"move": ["3"]}': "correct",  # a JSON key whose value is a list of cards
    "Move: ['3']": "correct",
    '{"move": ["3", "3"]}': "invalid",  # a list of two 3s is a pair: not in this hand
    '{"move": ["3"], "reason": "lowest first"}': "correct",
    "Move: [3] or [J]": "invalid",  # a list read with the rest of its line: two plays offered
    "\\boxed{3}": "correct",
    "<move>pair of 3s</move>": "invalid",  # a name that counts cards is never dropped: one 3 is no pair
    "<move>3</move>\nA better one:\n<move>J": "invalid",  # the final play cut off
    # a play in a sentence: the one run of cards the last line names
    "I play 3.": "correct",
    "The best move is to lead the 3 (a single).": "correct",
    "我出3": "correct",
    "Move: I lead the 3.": "correct",
    "Play J, not 3.": "correct",  # a rejected play is not the answer
    "I play 3 or J.": "invalid",  # two plays offered
    "I play 3, then J.": "correct",  # a later turn's play is a plan: the play now is 3
    "Play: A\nLandlord's move: 3": "incorrect",  # the other side by its role: theirs
    "I play <move>A</move>, and they reply <move>3</move>.": "incorrect",  # a tag that holds their play
    "3 is fine, but I lead A to break their pair.": "invalid",  # a clause of ours that mentions them: never 3
    "Play: 3\n\nSo I lead A to break their pair.": "invalid",  # a conclusion naming another, beside them
    "Play: 3\nAlternatively, J.": "invalid",  # a later line offers another, without its label
    "Play: 3\nJ is equally good.": "invalid",
    "Play: 3\nAlternatives like J lose to the 2.": "correct",  # a play called wrong is offered by no one
    "Play: 3\nOtherwise, the opponent plays 5 5.": "correct",  # what the other side then does: a condition
    "Play: 3\nLeading A would waste control, so that does not work.": "correct",  # "that" is the line's own play
    "Play: 3\nThe opponent then plays 5, so that does not work.": "invalid",  # "that" is our play: taken back
    "Play: A\nThat is wrong. The opponent answers with 3.": "invalid",
    "I play 3 and J.": "invalid",  # two plays named in one answering sentence
    # a play the text calls wrong is none; a sentence that takes the last one back leaves no answer
    "<move>3</move> is wrong.": "invalid",
    "Play 3 would lose.": "invalid",
    "I play 3. That is wrong.": "invalid",
    "<move>J</move> loses. <move>3</move> wins.": "correct",
    '{"move": "3", "alternatives": ["T"]}': "invalid",
    # a reason after the play (a clause opened by "because", cards left, a labelled answer's later sentence)
    "Play 3 because the opponent has 5 5 and 8.": "correct",
    "I lead the 3; with A and 2 left I can't lose.": "correct",
    "My move: 3. Reason: the 2 and A control the game.": "correct",
    "Move: 3. Actually, J is better.": "correct",  # the later sentence replaces the play: J
    # a number that numbers an option or a step is no card (`option 2` is not the 2)
    "Option 1: lead J — risky.\nOption 2: lead 3 — safe.\n\nI choose option 2: play 3.": "correct",
    "Play: 3\nBad play: J": "correct",  # a label that introduces a mistake holds no answer
    "Bad play: 3": "invalid",
    "<move>3</move> (or J)": "invalid",  # a second play offered on the answer's line
    "Play: 3 (or J)": "invalid",
    "<move>3</move> — J would also work": "invalid",
    "<move>3</move> (a single)": "correct",
    "Play 3. Actually, 2 is better.": "incorrect",  # a later sentence that opens a correction replaces it
    "Lead with 2? No — that wastes control. Lead 3.": "correct",  # a try answered "No" is called wrong
    "A or 2 would be a mistake; play 3.": "correct",  # an "or" between plays called wrong offers none
    "Best: 3. Worst: PASS.": "correct",
    "PASS ❌  3 ✅": "correct",
    "Play the 3, not a pass.": "correct",
    "Best: Option 2 (3)": "correct",  # the play in the aside after an option's number
    "Step 1: think about the hand.\nStep 2: lead the 3.": "correct",  # a step's number is no card
    "Play the 3 over the 6.": "correct",  # a play after "over" is rejected
    "<move>3</move>\nFinal answer: none": "invalid",  # the last answer's place says there is none
    "J loses to 2.": "invalid",  # the other side's reply to a play called losing is no answer
    "Play: 3\n\nSo the best play is 5.": "invalid",  # a last line that concludes with another play
    "<move>3</move>\n\nTherefore I pass.": "invalid",
    "Play: 3\n\nSo I lead the 3.": "correct",
    "Play: 3\n\nSo my 3 forces the 5, and the 2 keeps control.": "correct",  # it explains
    # a clause that gives a reason names cards that explain the play, as kept cards do
    "Lead 3, since it keeps the 2 for control.": "correct",
    "Lead 3 because 2 is too strong to waste.": "correct",
    "Lead A because 3 would be beaten.": "incorrect",
    "Option 1: lead 3. Option 2: lead 2. Option 1 is better since it keeps the 2 for control.": "correct",
    "3 first, then 6, J, A, 2.": "correct",  # a later turn's plan, its cards listed on
    "3 is the safest lead. 2 is my strongest card.": "correct",  # the sentence that says what it leads
    "Play 3; J is beaten by A.": "correct",
    # lines after the play that describe the position under their label are not the play
    "I play 3.\nRemaining hand: 6 J A 2": "correct",
    "I lead 3.\n\nHand: 6 J A 2\nOpponent: 5 5 8 K K": "correct",
    "Play 3. Then the opponent plays 5, and I answer with A.": "correct",
    "<move>3♦</move>": "correct",  # a suit has no rank
    '{"move": "3", "alternatives": ["6"]}': "invalid",  # a field that offers another play
    '{"move": "3", "reason": "A and 2 win later"}': "correct",
    "Play a pair of 3s.": "invalid",  # named by count in words: the pair (not in the hand), never the 3
    "Keeping the pair of 3s, I pass.": "invalid",  # a count word makes no card; pass is illegal when leading
    # what is not our play: the other side's reply, cards kept, what happens if
    "Play the single 3; the opponent must answer with 5.": "correct",
    "I lead with 3. The opponent can only respond with 5 or a pair.": "correct",
    "I'll play the 3 first, keeping 2 and A for later.": "correct",
    "Play 3. If the opponent plays K, I answer with A.": "correct",
    "Play 3 or, if the opponent has a pair, play J.": "invalid",  # still two plays offered
    # the other side's reply listed, cards kept beside the play, the reply it forces: not a second play
    "Lead 3 — the opponent can only answer with 5, 8 or K, and I still hold A and 2.": "correct",
    "I play a single 3 and keep the 2 for control.": "correct",
    "I will play the 3 (lowest single) to keep the A.": "correct",  # was two plays offered
    "My move: 3 Let me check A: it loses. I considered A, but it loses.": "correct",  # the stop left out
    "**3** I considered A, but it loses.": "correct",
    "Play 3 I think A is better.": "incorrect",  # A preferred: A's verdict
    "Play 3 in order to preserve the A.": "correct",
    "Lead 3: it forces 5, and then I win with A and 2.": "correct",
    "Lead 3 or A, and keep the 2.": "invalid",
    "出牌：３": "correct",  # full-width cards are the cards
    "Play: 3 doesn't work.": "invalid",  # a labelled play called wrong in its sentence
    "Play: 3\nDon't write this:\nPlay: PASS": "correct",
    "Play: 3\nA better one:\nPlay:": "invalid",
    # talk after a play in a sentence passes over; talk that doubts it takes it back
    "I play 3.\nHope this helps!": "correct",
    "I choose 3.\nThis keeps the control.\nGood luck!": "correct",
    "<move>3</move>\nAlso, this keeps the 2 for later.": "correct",
    "<move>3</move>\nAlso PASS works.": "invalid",
    # a tagged play, then another under an answer's label: two final answers (the tag was paid)
    "<move>3</move>\nFinal answer: A": "invalid",
    "<move>3</move>\n**Final answer: 3**": "correct",
    # a decision as the text's last sentence settles a choice offered before it
    "Move: 3 or A.\nI'll go with 3.": "correct",
    "3 or A? I choose A.": "incorrect",
    # a play called a waste or worse is rejected, never offered
    "Leading A would waste a high card, so 3.": "correct",
    "A would be a waste, so I play 3.": "correct",
    "A is worse. Play 3.": "correct",
    # the same in unspaced Chinese: a play rejected before it or called bad after it
    "先出3，不要出A。": "correct",
    "出A不好，出3。": "correct",
    "这里应该出 3 而不是 A。": "correct",
    "不要出3，出A。": "incorrect",  # "also … works": one more play offered
    "<move>3</move>\nAnother: PASS": "invalid",
    "I play 3.\nHmm, wait.": "invalid",
    "I play 3.\nOops, I made a mistake.": "invalid",
    # a denied play replaced by the one written after the denial; the other side's never stands in
    "Play: PASS\nWait, that is wrong. I play 3 instead.": "correct",
    "<move>PASS</move>\nNo, that is wrong.\n<move>3</move>": "correct",
    "Play: 3\nThat is wrong.\nThe opponent plays 5.": "invalid",
}


@pytest.mark.parametrize("form", sorted(DOUDIZHU_FORMS))
def test_doudizhu_reads_its_play_by_the_shared_rules(form):
    v, task = _task("doudizhu")
    score = v.score(form, task)
    assert score.verdict.value == DOUDIZHU_FORMS[form], score.reason


@pytest.mark.parametrize("form", ["不出3", "别出3", "<move>不出3</move>", "Play three."])
def test_a_play_named_only_to_be_rejected_or_in_words_is_no_play(form):
    """`不出3` ("not 3") names no play: no play found, never "'不' is not a card"."""
    v, task = _task("doudizhu")
    score = v.score(form, task)
    assert score.verdict.value == "invalid" and "no play found" in score.reason, score.reason


MOVES = {"gomoku": ("I5", "A1"), "doudizhu": ("3", "5")}  # each first test task's winning move, and another
EXPLANATIONS = ("", "\nThis wins the race.", "\n这样可以赢。", "\nEsta jugada gana.", "\n\n(It keeps the initiative.)")
THEIR_MOVE = ("Opponent's move: {}", "Their reply: {}", "对手出牌：{}", "The opponent's best move: {}")


LOSING = {"gomoku": "A1", "doudizhu": "A"}  # a legal move of each first test task that loses


@pytest.mark.parametrize("name", sorted(INVENTED))
@pytest.mark.parametrize(
    "form, verdict",
    [
        ("<move>{best}</move>\n\n{invented}<move>{losing}</move>", "correct"),
        ("<move>{losing}</move>\n\n{invented}<move>{best}</move>", "incorrect"),
        ("{prompt}\n\n<move>{best}</move>", "correct"),  # an echo of this task's prompt, then the answer
        ("Let me restate.\n{prompt}\nI play <move>{best}</move>", "correct"),
        ("{prompt}\n<move>{best}</move>\n\n{invented}<move>{losing}</move>", "correct"),
    ],
)
def test_a_next_task_the_model_invents_is_not_its_turn(name, form, verdict):
    """Rule 1 for a base model that goes on past its answer: a line opening a task in the prompt's
    words for another position ends the turn; one restating this task starts it after the echo."""
    v, task = _task(name)
    text = form.format(best=MOVES[name][0], losing=LOSING[name], invented=INVENTED[name], prompt=v.prompt(task))
    score = v.score(text, task)
    assert score.verdict.value == verdict, score.reason


@pytest.mark.parametrize(
    "form, verdict",
    [
        ("{right}\n\nDraw a red square as an SVG image.\n{wrong}", "correct"),
        ("{wrong}\n\nDraw a red square as an SVG image.\n{right}", "incorrect"),
        ("{prompt}\n\n{right}", "correct"),  # this task's prompt echoed, then the drawing
    ],
)
def test_a_next_drawing_the_model_asks_itself_for_is_not_its_turn(form, verdict):
    """Rule 1 for svg: a line opening a task as its prompt does (`Draw … as an SVG image.`) for another
    subject ends the turn; this task's own, echoed, starts it after the echo."""
    v, task = _task("svg")
    text = form.format(right=SVG[1], wrong=SVG[2], prompt=v.prompt(task))
    score = v.score(text, task)
    assert score.verdict.value == verdict, score.reason


@pytest.mark.parametrize("name", sorted(MOVES))
@settings(max_examples=150, deadline=None)
@given(data=__import__("hypothesis").strategies.data())
def test_a_move_after_any_label_is_read_and_the_other_players_is_not(name, data):
    """A move after a label of any language, script or typography (the presentations' `labels`:
    a lexicon and random words), explained on the lines after it, is read; a line after it that
    gives the other player's move under a label (`Opponent's move: A1`) is never the answer."""
    from hypothesis import assume
    from hypothesis import strategies as st

    from pytest_plugin.presentations import labels
    from verifiers.locate import OTHER_SIDE, OTHER_WORDS

    v, task = _task(name)
    best, other = MOVES[name]
    label = data.draw(labels())
    assume(not OTHER_WORDS.search(label))  # a random word such as STEP introduces something else
    assume(not OTHER_SIDE.search(label))  # and one such as HE the other player
    assume(
        not re.search(r"\b(?:black|white|[xo]|landlord|farmers?|peasants?)\b", label, re.IGNORECASE)
    )  # a side's name
    assume(name != "doudizhu" or not set(label.split()[0]) <= set("AJQKTBR23456789"))  # `AA:` reads as two aces
    text = "Let me look at the position.\n\n" + label + " " + best
    text += data.draw(st.sampled_from(EXPLANATIONS))
    if data.draw(st.booleans()):
        text += "\n" + data.draw(st.sampled_from(THEIR_MOVE)).format(other)
    score = v.score(text, task)
    assert score.verdict.value == "correct", (text, score.reason)


FORM_INTRODUCTIONS = (
    "The prompt wants a tag like {}. ",
    "I need to answer in the format {}.\n\n",
    "Answer format: {}\n\n",
    "I should answer with a tag, e.g. {}.\n\n",
    '(Format: "{}")\n',
    "Following the format `{}`, ",
)
UNTAGGED_ANSWERS = ("my answer is {}.", "My move is {}.", "**Move: {}**", "I play {}.")


@pytest.mark.parametrize("name", sorted(MOVES))
@settings(max_examples=100, deadline=None)
@given(data=__import__("hypothesis").strategies.data())
def test_the_prompts_format_example_quoted_is_not_the_answer(name, data):
    """The prompt's example tag (`<move>E5</move>`, `<move>3 3</move>`), quoted as the form to write,
    is not the answer where the text gives its own without a tag."""
    from hypothesis import strategies as st

    v, task = _task(name)
    example = "<move>E5</move>" if name == "gomoku" else "<move>3 3</move>"  # each prompt's example
    assert example in v.prompt(task)
    text = data.draw(st.sampled_from(FORM_INTRODUCTIONS)).format(example)
    text += data.draw(st.sampled_from(UNTAGGED_ANSWERS)).format(MOVES[name][0])
    score = v.score(text, task)
    assert score.verdict.value == "correct", (text, score.reason)


OPENING_FRAMES = (
    "{b}, blocking the line and threatening {o}.",
    "{b} creates a double threat at {o} and {p}.",
    "**{b}** — it keeps {o} and {p} in reserve.",
    "{b}: this covers {o}.",
)
NOT_ONE_FRAMES = ("{o} is worse than {b}.", "{b}, {o} and {p} are candidates.", "{o}? Hmm, {b}.", "{b} or {o}.")


@settings(max_examples=150, deadline=None)
@given(data=__import__("hypothesis").strategies.data())
def test_a_line_that_opens_with_its_move_is_that_move_unless_it_compares(data):
    """On any test position, a line that opens with the task's key move and names empty cells after it
    to explain it is that move; a line that compares, doubts or lists moves is none, whichever is
    first (docs/answers.md, gomoku)."""
    from hypothesis import strategies as st

    from verifiers.gomoku.extract import MOVE_FORMATS, answer_move
    from verifiers.gomoku.position import from_task

    v, _ = _task("gomoku")
    task = data.draw(st.sampled_from(v.tasks("test")))
    position = from_task(task)
    occupied = {cell for cell, stone in enumerate(position.stones) if stone}
    best = data.draw(st.sampled_from(list(task["best_moves"])))
    empty = sorted(position.name(c) for c in range(position.size**2) if c not in occupied and position.name(c) != best)
    o, p = data.draw(st.lists(st.sampled_from(empty), min_size=2, max_size=2, unique=True))
    text = data.draw(st.sampled_from(OPENING_FRAMES)).format(b=best, o=o, p=p)
    read = answer_move(text, position.size, MOVE_FORMATS, occupied)
    assert read[0] is not None and position.name(read[0]) == best, (text, read)
    text = data.draw(st.sampled_from(NOT_ONE_FRAMES)).format(b=best, o=o, p=p)
    assert answer_move(text, position.size, MOVE_FORMATS, occupied)[0] is None, text


CHOICE_PIECES = ("1. A1", "2. I5", "- 3", "* B", "\n", "\n\n", "Option A: I5", "I choose option A.", "The first one.")
CHOICE_PIECES += ("The last one wins.", "the second option", "The third one", "Hmm.", "  ", "3) x", "The 2nd idea")


@settings(max_examples=300, deadline=None)
@given(pieces=st.lists(st.sampled_from(CHOICE_PIECES)))
def test_resolving_a_choice_never_fails_and_only_writes_a_listed_item(pieces):
    """Any arrangement of lists, options and choices by name or place resolves without an error,
    and what it writes in a choice's place is text the input held (never an invented answer)."""
    from verifiers.locate import with_choices_resolved

    text = "\n".join(pieces)
    resolved = with_choices_resolved(text)
    assert isinstance(resolved, str)
    assert set(re.findall(r"\w+", resolved)) <= set(re.findall(r"\w+", text))


# an answer's place that says the puzzle cannot be solved, naming the target it cannot reach (GPT-4's
# habit in the Tree-of-Thoughts logs): no answer, and the reason says so
SAYS_NONE = (
    "Not possible to obtain 24",
    "There is no solution to obtain 24 with these numbers.",
    "The given numbers cannot be used to obtain 24.",
    "Invalid input, cannot obtain 24",
    "Invalid (cannot obtain 24)",
    "Unable to obtain 24",
    "This combination of numbers cannot make 24.",
    "It is not possible to obtain 24 with these numbers.",
    "None (cannot obtain 24 with these numbers)",
    "There is no combination of these numbers that equals 24.",
)
# a number that is not the target it names may be an answer after all
MAY_ANSWER = ("No solution, but 4 * 6 = 24 is close", "no move but I5", "Not possible to obtain 24 except 4 * 6", "I5")


@pytest.mark.parametrize("value", SAYS_NONE)
def test_an_answer_that_says_the_target_cannot_be_reached_is_none(value):
    assert locate.says_no_answer(value)
    score = verifiers.get("game24").score(f"6 - 4 = 2\nAnswer: {value}", GAME24[0])
    assert score.verdict.value == "invalid" and "says there is none" in score.reason, score.reason


@pytest.mark.parametrize("piece", ["(", "( ", " ", "Invalid ", "Invalid (", "-", "Unfortunately, ", "none ("])
def test_reading_an_answers_place_for_none_is_linear(piece):
    """One hostile piece repeated, at the longest a place is read (`locate.NO_ANSWER_CHARS`) and far
    beyond: a nested repetition in the pattern once took quadratic time (10,000 parentheses: 9 s;
    game24's 100,000 nested parentheses hung the suite)."""
    start = time.process_time()
    for length in (locate.NO_ANSWER_CHARS, 10_000):
        value = (piece * length)[:length]
        locate.says_no_answer(value)
        locate.says_no_answer(value + "24")
    assert time.process_time() - start < 1.0


@pytest.mark.parametrize("value", MAY_ANSWER)
def test_a_number_beside_no_answer_words_may_be_the_answer(value):
    assert not locate.says_no_answer(value)


# a clause after an answer, before or after words about it, that turns to another attempt (concludes with
# it, corrects to it or prefers it): the answer before it is never paid
TURNS = (
    ", so",
    ", therefore",
    "; thus",
    ", hence",
    ", or rather",
    ", rather",
    ", but I prefer",
    ", but I'd rather write",
)
TURNS += (", but I'll go with", ", but I choose", "; instead,", " — so")
TURNS += (" — sorry, I mean", ", no wait,", " (oops)", ", correction:", ", make that", "; my mistake,", ", I meant")
ASIDES = ("", " would be my choice", " would be my answer", " is tempting", " works")
REASONS = ("", ", but it uses a 4 twice", ", but it is too long", ", though")
OTHERS = ("(8 - 4) * 6", "4 * 6 + 8 - 4", "4 * 4 + 8 - 6", "(4 + 4) * (8 - 6)")  # attempts, none right
PLACES = ("Answer: {a}{x}{r}{t} {o}.", "{a}{x}{r}{t} {o}.", "So {a}{x}{r}{t} {o}.")


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(PLACES), st.sampled_from(ASIDES), st.sampled_from(REASONS), st.sampled_from(TURNS))
def test_a_clause_that_turns_to_another_attempt_never_leaves_the_first_paid(place, aside, reason, turn):
    """`Answer: A would be my choice, but I prefer B.` and `A would be my answer, but …, so B.`: B is what
    the text ends on; A, right, is never paid (before: paid, a wrong pay), and a clause that turns
    to a step or to A itself leaves A the answer."""
    v = verifiers.get("game24")
    for other in OTHERS:
        text = place.format(a=RIGHT, x=aside, r=reason, t=turn, o=other)
        assert not v.score(text, GAME24[0]).correct, text
    for same in (RIGHT, "2 * 12 = 24"):
        text = place.format(a=RIGHT, x="", r="", t=turn, o=same)
        if turn in (", so", ", therefore", "; thus", ", hence", " — so"):  # a conclusion restating it or a step
            assert v.score(text, GAME24[0]).correct, text


WRONG_HERE = ("4 * 6 * 8 / 4", "8 * 4 - 6 - 4", "(4 + 4) * (8 - 6)")  # attempts at this puzzle, none right


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(PLACES), st.sampled_from(ASIDES), st.sampled_from(REASONS), st.sampled_from(TURNS))
def test_the_attempt_a_clause_turns_to_is_the_answer(place, aside, reason, turn):
    """`Answer: A, or rather B.`, `A — sorry, I mean B`, `A would be my choice, but I prefer B`: the
    text ends on B, which is read and judged (A wrong, B right: paid; before: refused), and A
    right, B wrong: B's verdict (before: refused, or paid A where the words were new)."""
    v = verifiers.get("game24")
    for wrong in WRONG_HERE:
        assert v.score(place.format(a=wrong, x=aside, r=reason, t=turn, o=RIGHT), GAME24[0]).correct
        text = place.format(a=RIGHT, x=aside, r=reason, t=turn, o=wrong)
        assert v.score(text, GAME24[0]).verdict.value == "incorrect", text

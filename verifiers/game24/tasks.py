"""The 24-point verifier's tasks and prompts: which puzzles a `task_set` names, and the text that
asks a model to solve one. The puzzles themselves are built and proven solvable in `solver.py`
(the classic 1362, `tasks.json`) and `countdown.py` (countdown sets and the mix, `countdown.json`).
"""

from __future__ import annotations

import re

from ..turn import own_task_part
from .countdown import load as load_countdown
from .countdown import load_mix
from .solver import load_task_set

# The worked example uses 14, outside every built-in puzzle (1..13): a model that echoes the
# prompt must not find a correct answer in it (the plugin's "repeat the prompt" probe caught this).
PROMPT = """Use the numbers {numbers} and basic arithmetic operations (+ - * /) to obtain {target}. \
Use each number exactly once.
Each step, choose two of the remaining numbers and combine them; write the step as \
`a op b = c (left: the numbers now remaining)`. When one number is left, write the final line \
`Answer: <one expression using all the numbers> = {target}`.
Example for 1 2 7 14:
14 + 7 = 21 (left: 1 2 21)
2 + 1 = 3 (left: 3 21)
21 + 3 = 24 (left: 24)
Answer: (14 + 7) + (2 + 1) = 24
Now solve: {numbers}
"""


SHORT_PROMPT = """Use the numbers {numbers} and + - * / to make {target}, using each number exactly once. Reply with one line: Answer: <expression> = {target}"""


# the lines with which the prompts above open a puzzle (`Now solve: 4 4 6 8`, `Example for 1 2 7 14:`, `Use
# the numbers 4 4 6 8 …`): a base model that goes on past its answer writes the next puzzle so
_TASK_OPENER = re.compile(
    r"^[ \t]*(?:Now solve:|Example for|Use the numbers)[ \t]*(?P<numbers>\d+(?:[ \t,]+\d+)*)", re.MULTILINE
)


def own_puzzle_part(completion: str, numbers: list[int]) -> str:
    """The part of `completion` about this puzzle: where it writes the prompts' own opening line
    for other numbers (a next puzzle it invented, `Answer: … = 24` / `Now solve: 1 2 3 4` / …),
    the text before that line; where it restates this puzzle's opening line (a model that echoes
    the prompt, its example too), the text after the last such line. A model's answer to another
    puzzle is never its answer to this one (docs/answers.md, rule 1; `turn.own_task_part`, the rule
    gomoku and doudizhu share, read here by the numbers the line names)."""
    if "Now solve" not in completion and "Example for" not in completion and "Use the numbers" not in completion:
        return completion  # most completions: one plain search each
    wanted = sorted(numbers)
    return own_task_part(
        completion, _TASK_OPENER, lambda m: sorted(map(int, re.findall(r"\d+", m.group("numbers")))) == wanted
    )


def prompt_text(numbers: list[int], target: int, style: str = "steps") -> str:
    """The user message for a puzzle: the seed's step format, or "short" (one answer line)."""
    template = SHORT_PROMPT if style == "short" else PROMPT
    return template.format(numbers=" ".join(map(str, numbers)), target=target)


def load_tasks(task_set: str) -> list[dict]:
    """Every puzzle of `task_set`: "classic", "mix" or a countdown set name."""
    if task_set == "classic":
        return load_task_set()
    if task_set == "mix":
        return load_mix(load_task_set())
    return load_countdown(task_set)

"""Which program a completion answers with (verifiers/code/extract.py, docs/answers.md), proven on
generated presentations (pytest_plugin.presentations): a right program's verdict does not change
however it is presented, and a trap (a hedge, an answer after the turn ended, reasoning never
closed, a final block cut off) is never paid; the plain forms of each class are listed too."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

import verifiers
from pytest_plugin.presentations import code_presentations

TASK = {"test_cases": ["assert add_one(1) == 2", "assert add_one(-5) == -4"], "entry_point": "add_one"}
RIGHT = "import math\n\n\ndef add_one(x):\n    return int(math.floor(x)) + 1\n"
WRONG = "def add_one(x):\n    return x\n"
USAGE = "print(add_one(3))\nassert add_one(0) == 1"


@pytest.fixture(scope="module")
def verifier():
    from tests.code.conftest import open_backend

    open_backend("local").close()  # bubblewrap present, or the failure that says how to get it
    v = verifiers.get("code", backend="local", pool_size=1)
    yield v
    v.close()


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(p=code_presentations(RIGHT, other=WRONG, usage=USAGE))
def test_a_right_program_is_paid_however_presented_and_a_trap_never(verifier, p):
    score = verifier.score(p.text, TASK)
    if p.pays:
        assert score.verdict.value == "correct", (p.axes, score.reason, p.text)
    else:
        assert score.verdict.value != "correct" and score.reward < 1.0, (p.axes, score.reason, p.text)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(p=code_presentations(WRONG, other="def add_one(x):\n    return x + 2\n", usage=USAGE))
def test_a_wrong_program_is_never_paid_however_presented(verifier, p):
    assert verifier.score(p.text, TASK).reward < 1.0, (p.axes, p.text)


HUMANEVAL = {
    "prompt": 'def add_one(x):\n    """Return x plus one."""\n',
    "entry_point": "add_one",
    "test": "def check(candidate):\n    assert candidate(1) == 2\n    assert candidate(-5) == -4\n",
}
STDIO = {"inputs": ["3\n", "10\n"], "outputs": ["4\n", "11\n"]}  # a whole program, stdin to stdout
FORMS = {
    "a function body continuing the prompt (HumanEval's format)": ("    return x + 1\n", HUMANEVAL, "correct"),
    "the same body fenced": ("```python\n    return x + 1\n```", HUMANEVAL, "correct"),
    "a body, then prose (the function ends at the margin)": (
        "    return x + 1\n\n\nThis function adds one.",
        HUMANEVAL,
        "correct",
    ),
    "a body, then its own failing check called": (
        "    return x + 1\n\n\ndef check(candidate):\n    assert candidate(1) == 3\n\ncheck(add_one)\n",
        HUMANEVAL,
        "correct",
    ),
    "a body, then the next problem begun and cut off": (
        '    return x + 1\n\n\ndef next_problem(a, b):\n    """Given a',
        HUMANEVAL,
        "correct",
    ),
    "a body indented two spaces under a docstring at four": (
        "  if x:\n    return x + 1\n  return 1\n",
        HUMANEVAL,
        "correct",
    ),
    "a wrong body indented two spaces": ("  return x\n", HUMANEVAL, "incorrect"),
    "unfenced: a function, then a REPL session that demonstrates it": (
        "def add_one(x):\n    return x + 1\n\n>>> add_one(1)\n2\n",
        TASK,
        "correct",
    ),
    "unfenced: a wrong function, then a REPL session": (
        "def add_one(x):\n    return x\n\n>>> add_one(1)\n2\n",
        TASK,
        "incorrect",
    ),
    "a wrong body, then prose": ("    return x\n\nThis adds one.", HUMANEVAL, "incorrect"),
    "a body, then a fenced test block (the body is the answer)": (
        "    return x + 1\n\n## Tests\n\n```python\nassert add_one(1) == 2\n```",
        HUMANEVAL,
        "correct",
    ),
    "a wrong body, then a fenced test block": (
        "    return x\n\nTests:\n```python\nassert add_one(1) == 2\n```",
        HUMANEVAL,
        "incorrect",
    ),
    "a body, then the whole function restated in a fence with its typing import": (
        "    return x + 1\n\nThe full function:\n```python\nfrom typing import Any\n\n\ndef add_one(x: Any) -> Any:\n"
        "    return x + 1\n```",
        HUMANEVAL,
        "correct",
    ),
    "a body, then the function under test written again unfenced and asserted": (
        "    return x + 1\n\n\ndef add_one(x):\n    return 0\n\n\nassert add_one(0) == 0\n",
        HUMANEVAL,
        "correct",
    ),
    "a function first, then prose and a fenced output block": (
        "def add_one(x):\n    return x + 1\n\nOutput:\n```\n2\n```",
        TASK,
        "correct",
    ),
    "a body after a line of prose": ("Here is the body:\n    return x + 1\n", HUMANEVAL, "correct"),
    "a body written at the margin in a fence": ("```python\nreturn x + 1\n```", HUMANEVAL, "correct"),
    "a wrong body written at the margin in a fence": ("```python\nreturn x\n```", HUMANEVAL, "incorrect"),
    "the whole function indented (not a body: no nested definition)": (
        "    def add_one(x):\n        return x + 1\n",
        HUMANEVAL,
        "correct",
    ),
    "a wrong function indented after prose": ("Sure:\n\n    def add_one(x):\n        return x\n", TASK, "incorrect"),
    "unfenced: a right program, then a wrong one offered beside it": (
        RIGHT + "\nAlternatively:\n\n" + WRONG,
        TASK,
        "invalid",
    ),
    "unfenced: a wrong program, then its fix": (WRONG + "\nThat has a bug. Fixed:\n\n" + RIGHT, TASK, "correct"),
    "a brute-force program, then the optimal one (LeetCode's habit)": (
        "Brute force:\n```python\n" + WRONG + "```\n\nOptimal solution:\n```python\n" + RIGHT + "```",
        TASK,
        "correct",
    ),
    # a fix named in another language, or a bare "Better:" label: the later program replaces the draft
    "a wrong program, then its fix named in Chinese": (
        "```python\n" + WRONG + "```\n这个版本有问题。修正后的代码：\n```python\n" + RIGHT + "```",
        TASK,
        "correct",
    ),
    "a wrong program, then its fix named in German": (
        "```python\n" + WRONG + "```\nKorrigierte Version:\n```python\n" + RIGHT + "```",
        TASK,
        "correct",
    ),
    "a wrong program, then a better one under a bare label": (
        "```python\n" + WRONG + "```\nBetter:\n```python\n" + RIGHT + "```",
        TASK,
        "correct",
    ),
    "unfenced: imports, prose, then the function": (
        "We need math:\nimport math\nThen the function:\n" + RIGHT.replace("import math\n\n\n", ""),
        TASK,
        "correct",
    ),
    "a right draft fenced, then a wrong final program unfenced": (
        "```python\n" + RIGHT + "```\nActually, simpler:\n\n" + WRONG,
        TASK,
        "incorrect",
    ),
    "a right draft, then a wrong final fenced as python3.10": (
        "```python\n" + RIGHT + "```\nImproved:\n```python3.10\n" + WRONG + "```",
        TASK,
        "incorrect",
    ),
    "a right draft, then a wrong final fenced as text": (
        "```python\n" + RIGHT + "```\nFinal:\n```text\n" + WRONG + "```",
        TASK,
        "incorrect",  # the label says which stands
    ),
    "a wrong program, then a right one set beside it for comparison": (
        "```python\n" + WRONG + "```\nFor comparison, a correct version would be:\n```python\n" + RIGHT + "```",
        TASK,
        "incorrect",
    ),
    "a draft, then the program simplified": (
        "```python\n" + WRONG + "```\nLet me simplify:\n```python\n" + RIGHT + "```",
        TASK,
        "correct",
    ),
    "a fence closed on the code's last line": ("```python\ndef add_one(x):\n    return x + 1```", TASK, "correct"),
    "a fence closed on the last line of a wrong program": ("```python\n" + WRONG.rstrip() + "```", TASK, "incorrect"),
    "a body that closes the fence the prompt opened": (
        "    return x + 1\n```\n\nExplanation: it adds one.",
        HUMANEVAL,
        "correct",
    ),
    "code that closes the fence the prompt opened": (
        "def add_one(x):\n    return x + 1\n```\n\nThis adds one.",
        TASK,
        "correct",
    ),
    "code after </think>": ("<think>maybe x - 1?</think>\ndef add_one(x):\n    return x + 1\n", TASK, "correct"),
    "imports in one block, the solution in the next": (
        "```python\nfrom operator import add\n```\nThen:\n```python\ndef add_one(x):\n    return add(x, 1)\n```",
        TASK,
        "correct",
    ),
    "a solution with its own asserts and prints": (
        "```python\ndef add_one(x):\n    return x + 1\n\nassert add_one(1) == 2\nprint(add_one(2))\n```",
        TASK,
        "correct",
    ),
    "a test block that redefines the function": (
        "```python\ndef add_one(x):\n    return x + 1\n```\nLet's test it:\n"
        "```python\ndef add_one(x):\n    return 2\nassert add_one(1) == 2\n```",
        TASK,
        "correct",
    ),
    "two final solutions, no word between": (
        "```python\ndef add_one(x):\n    return x + 1\n```\n```python\ndef add_one(x):\n    return x\n```",
        TASK,
        "invalid",
    ),
    "the solution restated with type hints, a docstring and comments": (
        "```python\ndef add_one(x):\n    return x + 1\n```\nWith type hints:\n"
        '```python\ndef add_one(x: int) -> int:\n    """Add one."""\n    return x + 1  # one more\n```',
        TASK,
        "correct",
    ),
    "a later fix of a wrong draft": (
        "```python\ndef add_one(x):\n    return x\n```\nThat is wrong. Fixed:\n```python\ndef add_one(x):\n    return x + 1\n```",
        TASK,
        "correct",
    ),
    "a right draft, then a final version that does not compile": (
        "Draft:\n```python\ndef add_one(x):\n    return x + 1\n```\nFinal version:\n"
        "```python\ndef add_one(x)\n    return x + 1\n```",
        TASK,
        "invalid",  # the final program fails in plain Python: the draft never stands in for it
    ),
    "a right program, then a later one that does not compile, no word between": (
        "```python\ndef add_one(x):\n    return x + 1\n```\n```python\ndef add_one(x)\n    return x + 2\n```",
        TASK,
        "invalid",
    ),
    "a version that does not compile, then its fix": (
        "```python\ndef add_one(x)\n    return x + 1\n```\nOops, a missing colon. Fixed:\n"
        "```python\ndef add_one(x):\n    return x + 1\n```",
        TASK,
        "correct",
    ),
    "the solution, then a second-best one": (
        "Best:\n```python\ndef add_one(x):\n    return x + 1\n```\nSecond best:\n```python\ndef add_one(x):\n    return x\n```",
        TASK,
        "correct",
    ),
    "a draft, then the version labelled final": (
        "Version 1:\n```python\ndef add_one(x):\n    return x\n```\nVersion 2 (final):\n"
        "```python\ndef add_one(x):\n    return x + 1\n```",
        TASK,
        "correct",
    ),
    "the right one, then a wrong one labelled final": (
        "Version 1:\n```python\ndef add_one(x):\n    return x + 1\n```\nFinal:\n```python\ndef add_one(x):\n    return x\n```",
        TASK,
        "incorrect",
    ),
    "a bash block after the code": (
        "```python\ndef add_one(x):\n    return x + 1\n```\n```bash\npython sol.py\n```",
        TASK,
        "correct",
    ),
    "a fence naming its file (`python:solution.py`)": (
        "```python:solution.py\ndef add_one(x):\n    return x + 1\n```",
        TASK,
        "correct",
    ),
    "prose only": ("I would add one to x and return it.", TASK, "invalid"),
    "code in an HTML pre/code element": (
        "<pre><code>def add_one(x):\n    return x &gt; 0 and x + 1 or x + 1\n</code></pre>",
        TASK,
        "correct",
    ),
    "code in a JSON object's string field": ('{"code": "def add_one(x):\\n    return x + 1\\n"}', TASK, "correct"),
    "the function as a method of class Solution (LeetCode's habit)": (
        "```python\nclass Solution:\n    def add_one(self, x):\n        return x + 1\n```",
        TASK,
        "correct",
    ),
    "a wrong method of class Solution": (
        "```python\nclass Solution:\n    def add_one(self, x):\n        return x\n```",
        TASK,
        "incorrect",
    ),
    # `from __future__` must open the source that the prompt's helpers open: put first (it failed with a SyntaxError)
    "a program that opens with `from __future__ import annotations`, the prompt a signature": (
        "```python\nfrom __future__ import annotations\n\n\ndef add_one(x: int) -> int:\n    return x + 1\n```",
        HUMANEVAL,
        "correct",
    ),
    "a wrong program that opens with `from __future__ import annotations`": (
        "```python\nfrom __future__ import annotations\n\n\ndef add_one(x: int) -> int:\n    return x\n```",
        HUMANEVAL,
        "incorrect",
    ),
    # the prompt a function's signature (HumanEval): the class is the answer, never a body for the prompt's function
    "the function as a method of class Solution, the prompt a signature": (
        "```python\nclass Solution:\n    def add_one(self, x):\n        return x + 1\n```",
        HUMANEVAL,
        "correct",
    ),
    "a static method of a class after prose, the prompt a signature": (
        "Here you go:\n```python\nclass Adder:\n    @staticmethod\n    def add_one(x):\n        return x + 1\n```",
        HUMANEVAL,
        "correct",
    ),
    "a wrong method of class Solution, the prompt a signature": (
        "```python\nclass Solution:\n    def add_one(self, x):\n        return x\n```",
        HUMANEVAL,
        "incorrect",
    ),
    "a fenced block inside a block quote": (
        "> ```python\n> def add_one(x):\n>     return x + 1\n> ```",
        TASK,
        "correct",
    ),
    "a REPL session": (
        "```python\n>>> def add_one(x):\n...     return x + 1\n...\n>>> add_one(1)\n2\n```",
        TASK,
        "correct",
    ),
    "an IPython session": (
        "In [1]: def add_one(x):\n   ...:     return x + 1\n   ...:\n\nIn [2]: add_one(1)\nOut[2]: 2\n",
        TASK,
        "correct",
    ),
    "a wrong solution in an IPython session": (
        "```python\nIn [1]: def add_one(x):\n   ...:     return x\n   ...:\n\nIn [2]: add_one(1)\nOut[2]: 1\n```",
        TASK,
        "incorrect",
    ),
    "Llama 3.1's turn of code for its interpreter": (
        "<|python_tag|>def add_one(x):\n    return x + 1\n<|eom_id|>",
        TASK,
        "correct",
    ),
    "a demo that reads standard input after the solution": (
        "```python\ndef add_one(x):\n    return x + 1\n\nn = int(input())\nresult = add_one(n)\nprint(result)\n```",
        TASK,
        "correct",
    ),
    "a wrong solution with a demo that reads standard input": (
        "def add_one(x):\n    return x\n\nprint(add_one(int(input('Number: '))))\n",
        TASK,
        "incorrect",
    ),
    "the model's own unittest run after the solution (unittest.main() exits)": (
        "```python\ndef add_one(x):\n    return x + 1\n\nimport unittest\n\nclass T(unittest.TestCase):\n"
        "    def test(self):\n        self.assertEqual(add_one(1), 2)\n\nunittest.main()\n```",
        TASK,
        "correct",
    ),
    "a second block whose opening comment shows it as what not to do": (
        "```python\ndef add_one(x):\n    return x + 1\n```\n\n```python\n# Wrong approach (don't use):\n"
        "def add_one(x):\n    return x\n```",
        TASK,
        "correct",
    ),
    "the model's own turn header before its answer": (
        "<|im_start|>assistant\n```python\ndef add_one(x):\n    return x + 1\n```<|im_end|>",
        TASK,
        "correct",
    ),
    "a whole program, then a block that tests a function it defines": (
        "```python\ndef add_one(x):\n    return x + 1\n\n\nprint(add_one(int(input())))\n```\n\nTest:\n"
        "```python\nassert add_one(1) == 2\n```",
        STDIO,
        "correct",
    ),
    "a whole program, then another that defines its own function (not a test)": (
        "```python\nprint(int(input()) + 1)\n```\n\nOr as a function, to test:\n"
        "```python\ndef add_one(x):\n    return x\n\n\nprint(add_one(int(input())))\n```",
        STDIO,
        "incorrect",
    ),
    "a driver of the solution called at the top level (main() reads standard input)": (
        "```python\ndef add_one(x):\n    return x + 1\n\n\ndef main():\n    print(add_one(int(input())))\n\n\nmain()\n```",
        TASK,
        "correct",
    ),
    "the model's own test function, wrong in its expectation, called at the top level": (
        "```python\ndef add_one(x):\n    return x + 1\n\n\ndef check():\n    assert add_one(1) == 3\n\n\ncheck()\n```",
        TASK,
        "correct",
    ),
    "a table the solution reads, built by a call at the top level, is part of it": (
        "```python\nTABLE = {}\n\n\ndef build():\n    for i in range(10):\n        TABLE[i] = i + 1\n\n\nbuild()\n\n\n"
        "def add_one(x):\n    return TABLE[x] if x in TABLE else x + 1\n```",
        TASK,
        "correct",
    ),
    "a doctest run after a wrong solution": (
        '```python\ndef add_one(x):\n    """\n    >>> add_one(1)\n    2\n    """\n    return x\n\n'
        "import doctest\ndoctest.testmod()\n```",
        TASK,
        "incorrect",
    ),
    "what not to do, then the solution": (
        "Don't do this:\n```python\ndef add_one(x):\n    return abs(x) + 1\n```\nDo this instead:\n"
        "```python\ndef add_one(x):\n    return x + 1\n```",
        TASK,
        "correct",
    ),
    "the solution, then a common mistake shown": (
        "```python\ndef add_one(x):\n    return x + 1\n```\nA common mistake is to write:\n"
        "```python\ndef add_one(x):\n    return abs(x) + 1\n```",
        TASK,
        "correct",
    ),
    "a wrong solution, then a right one shown for comparison": (
        "```python\ndef add_one(x):\n    return abs(x) + 1\n```\nFor comparison, a naive version would be:\n"
        "```python\ndef add_one(x):\n    return x + 1\n```",
        TASK,
        "partial",
    ),
    "a fix whose introduction also calls the old one wrong": (
        "```python\ndef add_one(x):\n    return x + 1\n```\nHere is the fixed code (the previous one was wrong):\n"
        "```python\ndef add_one(x):\n    return abs(x) + 1\n```",
        TASK,
        "partial",
    ),
    "the solution in an inline code span": ("The answer is `def add_one(x): return x + 1`.", TASK, "correct"),
    "two different inline solutions": (
        "Use `def add_one(x): return x + 1` or `def add_one(x): return x + 2`.",
        TASK,
        "invalid",
    ),
    "a whole program, then the example's input and output blocks": (
        "```python\nn = int(input())\nprint(n + 1)\n```\nExample:\nInput:\n```\n3\n```\nOutput:\n```\n4\n```",
        STDIO,
        "correct",
    ),
    "a whole program, unfenced": ("n = int(input())\nprint(n + 1)\n", STDIO, "correct"),
    "a whole program's import in a block of its own, the program in the next": (
        "```python\nimport sys\n```\n```python\nn = int(sys.stdin.readline())\nprint(n + 1)\n```",
        STDIO,
        "correct",
    ),
    "a wrong whole program after its import's block": (
        "```python\nimport sys\n```\n```python\nn = int(sys.stdin.readline())\nprint(n)\n```",
        STDIO,
        "incorrect",
    ),
    "a whole program after a line of prose": (
        "Here is my solution:\nn = int(input())\nprint(n + 1)\n\nIt reads n and prints n + 1.",
        STDIO,
        "correct",
    ),
    "a wrong whole program, then the example's blocks": (
        "```python\nprint(int(input()))\n```\nOutput:\n```\n4\n```",
        STDIO,
        "incorrect",
    ),
    "a stub shown as the signature, then the solution": (
        "The signature is:\n```python\ndef add_one(x):\n    ...\n```\nImplementation:\n```python\n" + RIGHT + "```",
        TASK,
        "correct",
    ),
    "a stub that raises NotImplementedError, then a wrong solution": (
        "```python\ndef add_one(x):\n    raise NotImplementedError\n```\n\n```python\n" + WRONG + "```",
        TASK,
        "incorrect",
    ),
    "only a stub": ("```python\ndef add_one(x):\n    pass\n```", TASK, "incorrect"),
    # a function written in parts: its definition in one block, the rest of its body indented in the next
    "a function's body continued in the next block": (
        "First:\n```python\ndef add_one(x):\n    y = x\n```\nThen:\n```python\n    return y + 1\n```",
        TASK,
        "correct",
    ),
    "a wrong body continued in the next block": (
        "First:\n```python\ndef add_one(x):\n    y = x\n```\nThen:\n```python\n    return y\n```",
        TASK,
        "incorrect",
    ),
    "an indented block after a helper is the prompt's body, not the helper's": (
        "```python\ndef helper(x):\n    return x + 1\n```\n```python\n    return helper(x)\n```",
        HUMANEVAL,
        "correct",
    ),
    # a version's label that calls it buggy or correct says which one stands
    "a buggy version, then a correct one, each in its label's parentheses": (
        "Version 1 (buggy):\n```python\n" + WRONG + "```\nVersion 2 (correct):\n```python\n" + RIGHT + "```",
        TASK,
        "correct",
    ),
    "a version, then one labelled correct": (
        "Version 1:\n```python\n" + WRONG + "```\nVersion 2 (correct):\n```python\n" + RIGHT + "```",
        TASK,
        "correct",
    ),
    "a flawed attempt, then the right one": (
        "A flawed attempt:\n```python\n" + RIGHT + "```\nThe right one:\n```python\n" + WRONG + "```",
        TASK,
        "incorrect",
    ),
    "a wrong program in a REPL session": (
        ">>> def add_one(x):\n...     return x\n...\n>>> add_one(1)\n2",
        TASK,
        "incorrect",
    ),
}


@pytest.mark.parametrize("form", sorted(FORMS))
def test_the_plain_forms_of_each_class(verifier, form):
    text, task, verdict = FORMS[form]
    score = verifier.score(text, task)
    assert score.verdict.value == verdict, score.reason

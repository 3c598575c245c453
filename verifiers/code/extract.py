"""Which program a completion answers with, read from the text's structure (docs/answers.md has
the rules every verifier shares; these are the code verifier's part).

1. Only the model's own turn counts (`verifiers.turn`): nothing after a turn end or an invented next
   turn, nothing inside a reasoning block; a reasoning block never closed is no answer.
2. Code sits in fenced blocks (``` or ~~~, any length, indented inside a list, any line ends), or,
   where there is none, in another container (HTML `<pre>`/`<code>`, a JSON object's string field),
   or is the text itself: raw code, code after a line of prose, or a function body that continues
   the task's prompt (HumanEval's own format). A REPL session (`>>> `, `... `, IPython's `In [1]: `) is the code typed in.
   A language other than Python (`bash`, `text`, `output`) is never the program.
3. A program may come in parts: the final solution is the block that defines the function under test;
   imports and helpers it uses may sit in other blocks and are taken with it. A block that only uses
   the function (a test, a usage example, a REPL session) is not part of the program, and the
   solution's own top-level asserts, prints and calls of the function under test are dropped (as
   evalplus's `sanitize` does); stdin/stdout programs are taken whole.
4. Two different final solutions are one answer too many: a later definition replaces an earlier one
   only where the text between says the earlier is wrong or is being improved ("this has a bug",
   "fixed version"); "alternatively", "another approach", "a simpler one", or no word at all between
   two different definitions refuses the answer, whichever is right. A test block after the solution
   ("let's test it") may redefine nothing that counts.
5. A final block cut off (never closed, and not valid Python) is no answer; an earlier draft never
   stands in for it.
"""

from __future__ import annotations

import ast
import html
import json
import re
import textwrap
from dataclasses import dataclass, replace
from typing import Callable

from ..locate import HEDGE_WORDS, counter_example
from ..turn import model_turn

FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[ \t]*\n(.*?)```", re.DOTALL)
CODE_LANGUAGES = {"", "python", "py", "python3", "py3", "python 3"}
_OPENING = re.compile(
    r"^(?P<indent>[ \t]*)(?:[-*+][ \t]+|\d{1,2}[.)][ \t]+)?(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^\n`]*)$"
)
_CODE_START = re.compile(r"^(?:def |async def |class |import |from [\w.]+ import |@\w)")
# words before a later definition that say the earlier one is superseded (ranked, never gating)
_SUPERSEDES = re.compile(
    r"\b(?:wrong|incorrect|bug|buggy|mistake|error|fails?|failed|doesn't work|does not work|not work|not correct"
    r"|issue|problem|fix|fixed|fixing|oops|wait|actually|correct(?:ed)? (?:version|solution|code|implementation)"
    r"|corrected|revised|updated|improved|optimi[sz]ed|more efficient|faster|final (?:version|solution|code|answer)"
    r"|final\)|final[ \t]*:|correct\)|correct[ \t]*:"  # `Version 2 (final):`, `Final:`, `(correct):`
    r"|let me (?:re)?(?:write|try|correct|redo)|rewrite|refactor|simplif(?:y|ied|ication)|clean(?:er|ed up| it up)"
    r"|more concise|streamlined|optimal|better (?:approach|solution|version|implementation|one)|(?:even )?better[ \t]*:"
    # the same in other languages (German, French, Spanish, Portuguese, Italian, Russian; then unspaced
    # Chinese, Japanese, Korean): corrected, wrong, an error, improved
    r"|korrigiert\w*|falsch|fehler\w*|verbessert\w*|corrigé\w*|erreur|faux|amélioré\w*|corregid[oa]s?|incorrect[oa]"
    r"|mejorad[oa]|corrigid[oa]|errad[oa]|melhorad[oa]|corrett[oa]|sbagliat[oa]|migliorat[oa]|исправлен\w*"
    r"|ошибк\w*|неправильн\w*|неверн\w*|улучшенн\w*)"
    r"|修正|改正|更正|错误|錯誤|改进|改進|优化|間違|誤り|改善|최적화|수정|오류|틀린|개선",
    re.IGNORECASE,
)
_HEDGES = re.compile(rf"\b(?:{HEDGE_WORDS})", re.IGNORECASE)
_TESTS = re.compile(
    r"\b(?:test|tests|testing|usage|example|examples|demo|how to use|verify|check|checking|run(?:ning)? it|output"
    r"|call it|try it|>>>)",
    re.IGNORECASE,
)
PROSE_READ = 300  # characters of prose before a block that say what the block is


_GLUED_CLOSING = re.compile(r"(?<=[^`~])(?:`{3,}|~{3,})[ \t]*$")  # a closing fence at the end of a line of code
_INFO_END = re.compile(r"[\s:{]")  # a fence's language ends at a space, a file name's colon or attributes


@dataclass(frozen=True)
class Block:
    """A fenced block: its language, code (de-indented), whether it closed, where it starts and
    the prose just before it."""

    language: str
    code: str
    closed: bool
    start: int
    before: str
    end: int = -1  # where the block (its closing fence included) ends


@dataclass(frozen=True)
class Program:
    """The program found (`code`, None where there is none) and how, or why not (`why`)."""

    code: str | None
    why: str


def fenced_blocks(text: str) -> list[Block]:
    """Every fenced block, in order (an unclosed last one included, `closed` False)."""
    blocks: list[Block] = []
    lines = text.split("\n")
    offset, i, prose_from = 0, 0, 0
    positions = []
    for line in lines:
        positions.append(offset)
        offset += len(line) + 1
    while i < len(lines):
        m = _OPENING.match(lines[i])
        if m is None:
            i += 1
            continue
        fence, indent = m.group("fence"), len(m.group("indent").expandtabs(4))
        language = _INFO_END.split(m.group("info").strip().lower(), maxsplit=1)[0]  # `python:main.py`: python
        body, j, closed = [], i + 1, False
        while j < len(lines):
            stripped = lines[j].strip()
            if stripped.startswith(fence[0] * len(fence)) and not stripped.strip(fence[0]):
                closed = True
                break
            glued = _GLUED_CLOSING.search(lines[j])
            if glued and glued.group().strip().startswith(fence) and lines[j][: glued.start()].strip():
                body.append(lines[j][: glued.start()])  # `    return x```: the fence closed on the code's last line
                closed = True
                break
            body.append(lines[j])
            j += 1
        before = text[max(prose_from, positions[i] - PROSE_READ) : positions[i]]
        prose_from = positions[j] + len(lines[j]) if j < len(lines) else len(text)
        blocks.append(Block(language, _dedent(body, indent), closed, positions[i], before, prose_from))
        i = j + 1
    return blocks


def _dedent(lines: list[str], indent: int) -> str:
    """Lines of a fence indented inside a list, without the list's indentation."""
    out = []
    for line in lines:
        expanded = line.expandtabs(4)
        cut = min(indent, len(expanded) - len(expanded.lstrip(" ")))
        out.append(expanded[cut:])
    return "\n".join(out) + "\n" if out else ""


def _parses(code: str) -> ast.Module | None:
    try:
        return ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def defined_names(tree: ast.Module) -> set[str]:
    """Top-level functions, classes and assigned names."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


def _functions(tree: ast.Module) -> set[str]:
    return {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}


def _defines_tested(tree: ast.Module, wanted: set[str]) -> bool:
    """Does the code define a function under test at its top level, or as a method of a top-level
    class (`class Solution:` / `    def below_zero(self, …)`, bound to its name by `bound_methods`);
    with none named (`wanted` empty), any function or class? Read past the method, such a block was
    no solution, and was wrapped into the prompt's function as its body."""
    if not wanted:
        return bool(_functions(tree))
    if wanted & defined_names(tree):
        return True
    methods = (m.name for c in tree.body if isinstance(c, ast.ClassDef) for m in c.body if hasattr(m, "name"))
    return any(name in wanted for name in methods)


_ACTS = (
    ast.Call,
    ast.Assign,
    ast.AugAssign,
    ast.AnnAssign,
    ast.Import,
    ast.ImportFrom,
    ast.FunctionDef,
    ast.For,
    ast.While,
)


def _is_program(tree: ast.Module) -> bool:
    """Does the code do something (call, assign, import, define, loop)? An example's input or output
    block (`3`, `[1, 2]`) parses as Python too, but is no program."""
    return any(isinstance(node, _ACTS) for node in ast.walk(tree))


def _uses(tree: ast.Module, names: set[str]) -> bool:
    """Does the block's top level use any of `names` (a call, an assert, a print of it)?"""
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)):
            continue
        if any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(node)):
            return True
    return False


def _is_main_guard(node: ast.stmt) -> bool:
    test = getattr(node, "test", None)
    return (
        isinstance(node, ast.If)
        and isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and test.left.id == "__name__"
    )


def _reads_stdin(node: ast.AST) -> bool:
    """Does the statement read standard input (`input()`, `sys.stdin`, `open(0)`)? In a solution
    of a function under test such a line is a demo for a person at a terminal, not the solution."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return False  # a definition is kept whatever it reads
    for n in ast.walk(node):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name):
            first = n.args[0] if n.args else None
            if n.func.id == "input" or (n.func.id == "open" and isinstance(first, ast.Constant) and first.value == 0):
                return True
        if isinstance(n, ast.Attribute) and n.attr == "stdin":
            return True
    return False


_TEST_RUNNERS = frozenset({"unittest", "doctest", "pytest"})


def _runs_tests(node: ast.stmt) -> bool:
    """Is the statement a call of a test framework (`unittest.main()`, `doctest.testmod()`,
    `pytest.main([...])`)? It runs the model's own tests, and `unittest.main()` exits the program."""
    if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)):
        return False
    return any(isinstance(n, ast.Name) and n.id in _TEST_RUNNERS for n in ast.walk(node.value.func))


def _drops(node: ast.stmt, wanted: set[str]) -> bool:
    """A top-level statement that tests or shows the solution rather than being part of it: an
    assert, a main guard, a print, a call of the function under test (alone or assigned: `result =
    add_one(3)`), a loop of asserts, a test framework's run, or a line that reads standard input."""
    if isinstance(node, ast.Assert) or _is_main_guard(node) or _reads_stdin(node) or _runs_tests(node):
        return True
    if isinstance(node, ast.Assign | ast.AnnAssign) and isinstance(node.value, ast.Call):
        func = node.value.func
        if isinstance(func, ast.Name) and func.id in wanted:
            return True
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        func = node.value.func
        name = func.id if isinstance(func, ast.Name) else None
        return (
            name == "print" or name in wanted or any(isinstance(n, ast.Name) and n.id in wanted for n in ast.walk(node))
        )
    if isinstance(node, ast.For | ast.While) and any(isinstance(n, ast.Assert) for n in ast.walk(node)):
        return True
    return False


def _statements(code: str, tree: ast.Module, keep) -> str:
    """The source of the top-level statements `keep` accepts, in order, as written."""
    lines = code.split("\n")
    kept = []
    for node in tree.body:
        if keep(node):
            first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
            kept.append("\n".join(lines[first - 1 : node.end_lineno]))
    return "\n".join(kept) + "\n"


def _same_program(a: str, b: str) -> bool:
    """Do `a` and `b` say the same program, up to comments, docstrings and type hints (a solution
    restated "with comments" or "with type hints" is the same answer, not a second one)?"""
    ta, tb = _parses(a), _parses(b)
    return ta is not None and tb is not None and _skeleton(ta) == _skeleton(tb)


def _skeleton(tree: ast.Module) -> str:
    """The tree without docstrings and type hints (and the `typing` imports they need), dumped."""
    tree.body = [n for n in tree.body if not _imports_typing(n)]
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and len(body) > 1 and _is_docstring(body[0]):
            node.body = body[1:]  # type: ignore[attr-defined]
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            node.returns = None
        elif isinstance(node, ast.arg):
            node.annotation = None
    body = [
        ast.Assign(targets=[n.target], value=n.value, lineno=0) if isinstance(n, ast.AnnAssign) and n.value else n
        for n in tree.body
    ]
    return ast.dump(ast.Module(body=body, type_ignores=[]))


def _imports_typing(node: ast.stmt) -> bool:
    """`from typing import List`, `import typing`: what type hints need, and nothing else does."""
    if isinstance(node, ast.ImportFrom):
        return node.module == "typing"
    return isinstance(node, ast.Import) and all(a.name == "typing" for a in node.names)


def _is_docstring(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


def locate_program(
    completion: str, wanted: set[str] | frozenset[str] = frozenset(), prompt: str = "", script: bool = False
) -> Program:
    """The program `completion` answers with (the module's rules). `wanted`: the names the tests take
    from the program (the function under test); `prompt`: the task's prompt, which a function body
    may continue; `script`: a stdin/stdout program, taken whole."""
    turn = model_turn(completion)
    if turn.unfinished:
        return Program(None, turn.unfinished)
    text = turn.text
    if _QUOTED_FENCE.search(text):  # a fence inside a block quote: the quote's text
        text = _QUOTE_MARK.sub("", text)
    text = _closing_the_prompts_fence(text, set(wanted), prompt)
    fenced = fenced_blocks(text)
    python = [b for b in fenced if _holds_python(b, set(wanted))]
    blocks = [replace(b, code=from_repl(b.code)) for b in python or contained_blocks(text) if b.code.strip()]
    if python and (leading := _leading_code(text, fenced, set(wanted), prompt)) is not None:
        blocks.insert(0, leading)  # `    return x + 1` (the prompt's body) then `Tests:` and a fenced block
    if python and wanted and not script:  # a program written unfenced between or after them is a block too
        blocks = sorted(blocks + _unfenced_between(text, fenced, set(wanted)), key=lambda b: b.start)
    blocks = _joined_parts(blocks, set(wanted))
    found = (
        _from_blocks(blocks, set(wanted), prompt, script)
        if blocks
        else _unfenced(from_repl(text), set(wanted), prompt, script)
    )
    return replace(found, code=bound_methods(found.code, set(wanted))) if found.code and wanted else found


def future_imports(code: str) -> tuple[str, str]:
    """`code`'s `from __future__` imports (rendered anew from its tree) and the code without them,
    or ("", code) where it has none: they must open the module, and a task's setup (a LeetCode or
    HumanEval prompt's helpers) runs before the program in one source (read there, a right answer
    that opened with `from __future__ import annotations` failed with a SyntaxError)."""
    if "__future__" not in code or (tree := _parses(code)) is None:
        return "", code
    future = [n for n in tree.body if isinstance(n, ast.ImportFrom) and n.module == "__future__"]
    if not future:
        return "", code
    lines = code.split("\n")
    for node in future:
        lines[node.lineno - 1 : node.end_lineno] = [""] * (node.end_lineno - node.lineno + 1)  # lines kept: tracebacks
    return "".join(ast.unparse(n) + "\n" for n in future), "\n".join(lines)


def _leading_code(text: str, fenced: list[Block], wanted: set[str], prompt: str) -> Block | None:
    """The code a completion begins with before its first fenced block, as a block of its own: a
    function body continuing the prompt (HumanEval's format) or a definition of the function under
    test, then a fenced test, usage or output block (`    return x + 1` then `Tests:` and a fence:
    read past, the test block was taken as the body). Other text before the first fence is prose.
    Bounded: the prose lines just before the fence are dropped one short parse each, and a stretch
    longer than any solution (`MOST_LEADING_CODE`) is never parsed whole."""
    if not fenced or not wanted or fenced[0].start > MOST_LEADING_CODE:
        return None
    code = text[: fenced[0].start]
    if not code.strip() or "`" in code or "~~~" in code:
        return None
    lines = code.strip("\n").split("\n")
    for _ in range(SHRINK_TRIES):  # `Tests:`, `Output:`, blank lines: the prose before the fence
        if len(lines) > 1 and (not lines[-1].strip() or lines[-1][:1] not in " \t" and _parses(lines[-1]) is None):
            lines.pop()
    code = "\n".join(lines) + "\n"
    tree = None if code[:1].isspace() else _parses(code)
    if (tree is not None and _defines_tested(tree, wanted)) or _continued_prompt(code, wanted, prompt) is not None:
        return Block("python", code, True, 0, "", fenced[0].start)
    return None


MOST_LEADING_CODE = 50_000  # characters before the first fence read as code (a solution is far shorter)
MOST_BODIES_READ = 8  # blocks before the last read as bodies continuing the prompt (the latest ones)


def _joined_parts(blocks: list[Block], wanted: set[str]) -> list[Block]:
    """Blocks with a function written in parts joined (`First, initialise:` then a block that
    defines the function under test, `Then loop:` then a block of its indented body): a block that
    opens indented and parses only as the rest of the function the block before ends with."""
    joined: list[Block] = []
    for block in blocks:
        previous = joined[-1] if joined else None
        first_line = next((line for line in block.code.split("\n") if line.strip()), "")
        if previous is not None and first_line[:1] in (" ", "\t") and _parses(block.code) is None:
            tree = _parses(previous.code)
            ends_in_wanted = tree is not None and tree.body and isinstance(tree.body[-1], ast.FunctionDef)
            together = previous.code.rstrip("\n") + "\n" + block.code
            if ends_in_wanted and tree.body[-1].name in wanted and _parses(together) is not None:
                joined[-1] = replace(previous, code=together, closed=block.closed, end=block.end)
                continue
        joined.append(block)
    return joined


# a fence's language that is Python (`python3.10`, `py`, `ipython`, `pycon`: a REPL session)
_PYTHON_LANGUAGE = re.compile(r"(?:i?py(?:thon)?[\d.]*|pycon)?")


def _holds_python(block: Block, wanted: set[str]) -> bool:
    """Is the block Python: fenced as Python (or with no language), or under another name (`text`,
    `plaintext`) holding Python that defines a function under test (a final answer fenced so is
    still the answer; an output block defines nothing)?"""
    if _PYTHON_LANGUAGE.fullmatch(block.language):
        return True
    tree = _parses(block.code) if wanted and "def " in block.code else None
    return tree is not None and bool(wanted & _functions(tree))


def _unfenced_between(text: str, fenced: list[Block], wanted: set[str]) -> list[Block]:
    """Unfenced code between fenced blocks and after the last that defines a function under test
    (`Actually, simpler:` then `def f(x): …` with no fence, perhaps before a usage block): a block
    like any other, weighed by the words before it. (Text before the first fence is reasoning.)"""
    found = []
    for block, following in zip(fenced, [*fenced[1:], None]):
        gap_end = following.start if following is not None else len(text)
        gap = text[block.end : gap_end]
        if "def " not in gap and "class " not in gap:
            continue
        for stretch, tree in _code_stretches(gap.split("\n"), block.end):
            if wanted and _defines_tested(tree, wanted):
                found.append(stretch)
    return found


_FIRST_FENCE = re.compile(r"^[ \t]*(?:`{3,}|~{3,})[ \t]*$", re.MULTILINE)


def _closing_the_prompts_fence(text: str, wanted: set[str], prompt: str) -> str:
    """`text` with an opening fence put back where it begins with code and its first fence, a bare
    one, closes it: the prompt (a chat template's "```python") opened the block the completion
    writes into (`def f(x): …` then ``` then prose)."""
    m = _FIRST_FENCE.search(text)
    if m is None or "`" in text[: m.start()] or "~~~" in text[: m.start()]:
        return text
    code = text[: m.start()]
    tree = _parses(code.strip("\n")) if code.strip() else None
    defines = tree is not None and _defines_tested(tree, wanted)
    if defines or _continued_prompt(code.lstrip("\n"), wanted, prompt) is not None:
        return m.group(0).strip() + "\n" + text
    return text


def bound_methods(code: str, wanted: set[str]) -> str:
    """`code`, where a function under test is defined only as a method of a top-level class (the
    LeetCode habit: `class Solution: def add_one(self, x)`), with that method bound to its name
    (`add_one = Solution().add_one`): the tests call the program's own method."""
    if all(
        re.search(rf"^(?:async def|def|class)\s+{re.escape(name)}\b|^{re.escape(name)}\s*[:=]", code, re.M)
        for name in wanted
    ):
        return code  # each is defined at the top level (the usual case): no parse needed
    tree = _parses(code)
    if tree is None:
        return code
    missing = wanted - defined_names(tree)
    bindings = []
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        for method in node.body:
            if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) and method.name in missing:
                plain = any(
                    isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod") for d in method.decorator_list
                )
                owner = node.name if plain else f"{node.name}()"
                bindings.append(f"{method.name} = {owner}.{method.name}")
                missing.discard(method.name)
    return code.rstrip("\n") + "\n\n" + "\n".join(bindings) + "\n" if bindings else code


_QUOTED_FENCE = re.compile(r"^>[ \t]?(?:`{3,}|~{3,})", re.MULTILINE)
_QUOTE_MARK = re.compile(r"^>(?!>>)[ \t]?", re.MULTILINE)  # a quote's mark, never a REPL prompt's
_HTML_CODE = re.compile(r"<(pre|code)\b[^<>]*>", re.IGNORECASE)
_HTML_TAG = re.compile(r"</?(?:pre|code)\b[^<>]*>", re.IGNORECASE)


def contained_blocks(text: str) -> list[Block]:
    """Where no block is fenced, code in another container: HTML `<pre>`/`<code>` elements (entities
    unescaped), else the string fields of a JSON object (`{"code": "def f(x):\\n ..."}`) that
    hold more than one line. Each opening tag's end is looked for once: linear in the text."""
    found: list[Block] = []
    at, lowered = 0, text.lower()
    while (m := _HTML_CODE.search(text, at)) is not None:
        end = lowered.find(f"</{m.group(1).lower()}>", m.end())
        if end < 0:
            break
        code = html.unescape(_HTML_TAG.sub("", text[m.end() : end]))
        found.append(Block("", code, True, m.start(), text[max(0, m.start() - PROSE_READ) : m.start()]))
        at = end
    if found or "{" not in text:
        return found
    start = text.find("{")
    try:
        data, _end = json.JSONDecoder().raw_decode(text, start)
    except ValueError:
        return []
    values = list(data.values()) if isinstance(data, dict) else []
    before = text[max(0, start - PROSE_READ) : start]
    return [Block("", v, True, start, before) for v in values if isinstance(v, str) and "\n" in v.strip()]


# Python's prompts (`>>> `, `... `) and IPython's (`In [1]: `, `   ...: `)
_REPL_PROMPT = re.compile(r"^(?:>>>|\.\.\.|In \[\d+\]:|[ \t]+\.\.\.:)(?: |$)")


def from_repl(code: str) -> str:
    """A REPL session (`>>> def f(x):`, `...     return x`, output lines) as the code typed into it;
    other code as it is, and so is code with a session after it (`def f(x): …` then `>>> f(1)`)."""
    if ">>> " not in code and "In [" not in code:
        return code
    lines = code.split("\n")
    if not any(line.startswith((">>> ", "In [")) for line in lines) or any(_CODE_START.match(line) for line in lines):
        return code  # no session, or code typed outside it: the session is a demo of that code
    typed = (_REPL_PROMPT.match(line) for line in lines)
    return "\n".join(line[prompt.end() :] for line, prompt in zip(lines, typed) if prompt) + "\n"


def _from_blocks(blocks: list[Block], wanted: set[str], prompt: str, script: bool) -> Program:
    last = blocks[-1]
    if not last.closed and _parses(last.code) is None:
        return Program(None, "the final code block was cut off (never closed): no answer")
    continuation = _continued_prompt(last.code, wanted, prompt)
    blocks = list(blocks)  # a body before the last becomes the prompt's function with it (`_as_continuation`)
    bodies = [k for k, b in enumerate(blocks[:-1]) if b.code[:1].isspace() and len(b.code) <= MOST_LEADING_CODE]
    for k in bodies[-MOST_BODIES_READ:]:  # bounded: a few bodies, each a few parses
        blocks[k] = _as_continuation(blocks[k], wanted, prompt)
    parsed = [(b, _parses(b.code)) for b in blocks]
    if continuation is not None and parsed[-1][1] is None:
        helpers = _helpers(continuation, [(b, t) for b, t in parsed[:-1] if t is not None], wanted)
        return Program(helpers + continuation, "a function body continuing the prompt" + _WITH_HELPERS * bool(helpers))
    valid = [(b, t) for b, t in parsed if t is not None]
    if not valid:
        return Program(last.code, "the final code block")  # it does not compile: the verifier says so
    if script:
        programs = _without_tests([(b, t) for b, t in valid if _is_program(t)]) or [valid[-1]]
        final = programs[-1][0]
        helpers = _helpers(final.code, [(b, t) for b, t in valid if b is not final], set())  # `import sys` alone
        return Program(helpers + final.code, "the final code block (a whole program)" + _WITH_HELPERS * bool(helpers))
    solutions = [(b, t) for b, t in valid if _defines_tested(t, wanted)]
    if not solutions:
        final = valid[-1][0].code
        continuation = _continued_prompt(final, wanted, prompt) or _continued_from_margin(final, wanted, prompt)
        if continuation is not None:
            return Program(continuation, "a function body continuing the prompt")
        return Program(valid[-1][0].code, "the final code block (it defines no function under test)")
    solutions = [(b, t) for b, t in solutions if not _shown_as_mistake(b)] or solutions  # `Don't do this:`
    solutions = [(b, t) for b, t in solutions if not _only_stubs(t, wanted)] or solutions  # `The signature is:`
    final, tree = solutions[0]
    broken = [(b, None) for b, t in parsed if t is None and b.start > final.start and _defines(b.code, wanted)]
    later_ones: list[tuple[Block, ast.Module | None]] = sorted(solutions[1:] + broken, key=lambda bt: bt[0].start)
    for later, later_tree in later_ones:
        between = later.before
        if later_tree is None:  # a later version that does not compile: it may be the final one (rule 4)
            if _TESTS.search(between[-120:]) or _shown_as_mistake(later):
                continue
        elif _TESTS.search(between[-120:]) and _uses(later_tree, wanted or _functions(tree)):
            continue  # a test block after the solution: nothing in it counts
        elif tree is not None and _same_program(_core(final.code, tree, wanted), _core(later.code, later_tree, wanted)):
            continue
        if _HEDGES.search(between):
            return Program(None, "two different final solutions (an alternative is offered): one answer too many")
        if not _SUPERSEDES.search(between):
            return Program(
                None, "two different final solutions, and no word says which one stands: one answer too many"
            )
        final, tree = later, later_tree
    if tree is None:  # the final version does not compile: an earlier draft never stands in for it
        return Program(final.code, "the final solution (it does not compile)")
    names = wanted or _functions(tree)
    code = _core(final.code, tree, names)
    helpers = _helpers(code, [(b, t) for b, t in valid if b is not final], names)
    return Program(helpers + code, "the final solution" + _WITH_HELPERS * bool(helpers))


_WITH_HELPERS = " with the helpers it uses from other blocks"


def _as_continuation(block: Block, wanted: set[str], prompt: str) -> Block:
    """`block`, or where it does not compile alone and is a function body continuing the prompt,
    the prompt's function with that body: a solution like any other block (the final block's
    body is read where `_from_blocks` starts)."""
    if _parses(block.code) is not None:
        return block
    continuation = _continued_prompt(block.code, wanted, prompt)
    return block if continuation is None else replace(block, code=continuation)


def _defines(code: str, wanted: set[str]) -> bool:
    """Does code that may not parse define a function under test at its top level (`def f(x)` with
    its colon missing)? Read from the text, as its tree cannot be."""
    return any(
        re.search(
            rf"^[ \t]*(?:async[ \t]+)?def[ \t]+{re.escape(name)}\b|^class[ \t]+{re.escape(name)}\b", code, re.MULTILINE
        )
        for name in wanted
    )  # a method too (`class Solution:` / `    def twoSum(…)`)


def _only_stubs(tree: ast.Module, wanted: set[str]) -> bool:
    """Does the block define the functions under test only as stubs (a body of `...`, `pass`, a
    docstring or `raise NotImplementedError`): a signature shown, not a solution?"""
    functions = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    tested = [f for f in functions if f.name in wanted] or functions
    return bool(tested) and all(_is_stub(f.body) for f in tested)


def _is_stub(body: list[ast.stmt]) -> bool:
    statements = body[1:] if body and _is_docstring(body[0]) else body
    return all(_stub_statement(node) for node in statements)


def _stub_statement(node: ast.stmt) -> bool:
    if isinstance(node, ast.Pass):
        return True
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and node.value.value is Ellipsis:
        return True
    if isinstance(node, ast.Raise) and node.exc is not None:
        raised = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
        return isinstance(raised, ast.Name) and raised.id == "NotImplementedError"
    return False


def _shown_as_mistake(block: Block) -> bool:
    """Does the sentence before the block, or the comment that opens it (`# Wrong approach (don't
    use):`), show it as what not to do, a mistake or a comparison?"""
    opening = []
    for line in block.code.lstrip("\n").split("\n"):
        if not line.lstrip().startswith("#"):
            break
        opening.append(line.lstrip().lstrip("#").strip())
    return counter_example(block.before) or (bool(opening) and counter_example(" ".join(opening)))


def _without_tests(programs: list[tuple[Block, ast.Module]]) -> list[tuple[Block, ast.Module]]:
    """Whole programs without the blocks that test an earlier one (a block introduced as a test or
    a usage that uses a function an earlier block defines, without defining it: `assert
    average([1, 2]) == 1.5` after the program)."""
    kept: list[tuple[Block, ast.Module]] = []
    defined: set[str] = set()
    for block, tree in programs:
        own = _functions(tree)
        if kept and _TESTS.search(block.before[-120:]) and _uses(tree, defined - own):
            continue
        kept.append((block, tree))
        defined |= own
    return kept


def _core(code: str, tree: ast.Module, wanted: set[str]) -> str:
    """The solution without its top-level tests, prints and calls of the function under test or of
    a driver of it (`main()`)."""
    shown = wanted | _drivers(tree, wanted)
    return _statements(code, tree, lambda node: not _drops(node, shown))


def _drivers(tree: ast.Module, wanted: set[str]) -> set[str]:
    """The top-level functions that run the function under test or read standard input, directly
    or through another such function (`def main(): print(f(input()))`): a call of one at the top
    level is a demo, as a call of the function itself is. A function that only prepares what the
    solution uses (`build_table()`) is none."""
    callers: dict[str, set[str]] = {}  # a name -> the top-level functions whose bodies use it
    drivers: list[str] = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name not in wanted:
            body = ast.Module(body=node.body, type_ignores=[])
            for used in {n.id for n in ast.walk(body) if isinstance(n, ast.Name)}:
                callers.setdefault(used, set()).add(node.name)
            if _reads_stdin(body):
                drivers.append(node.name)
    drivers += [caller for name in wanted for caller in callers.get(name, ())]
    found: set[str] = set()
    while drivers:  # and whatever runs a driver, once each: linear in the program
        name = drivers.pop()
        if name not in found:
            found.add(name)
            drivers += callers.get(name, ())
    return found


def _helpers(code: str, others: list[tuple[Block, ast.Module]], wanted: set[str]) -> str:
    """Imports and definitions from the other blocks that the solution uses and does not define
    itself (a helper or an import in a block of its own)."""
    tree = _parses(code)
    if tree is None:
        return ""
    own = defined_names(tree) | {
        a.asname or a.name.split(".")[0]
        for n in tree.body
        if isinstance(n, (ast.Import, ast.ImportFrom))
        for a in n.names
    }
    needed = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} - own
    taken: list[str] = []
    for block, block_tree in others:

        def wanted_here(node: ast.stmt) -> bool:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                return any((a.asname or a.name.split(".")[0]) in needed for a in node.names)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                return node.name in needed and node.name not in wanted
            if isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                return any(isinstance(t, ast.Name) and t.id in needed for t in targets)
            return False

        part = _statements(block.code, block_tree, wanted_here)
        if part.strip():
            taken.append(part)
    return "".join(taken)


def _continued_from_margin(body: str, wanted: set[str], prompt: str) -> str | None:
    """A function body written at the margin (`return x + 1` in a fence: no module holds `return`
    outside a function) continuing the prompt's signature, indented as the body it is."""
    if not body.strip() or body.lstrip("\n")[:1].isspace():
        return None
    return _continued_prompt(textwrap.indent(body, "    "), wanted, prompt)


def _continued_prompt(body: str, wanted: set[str], prompt: str) -> str | None:
    """The prompt with `body` appended, where the body is indented (a function's body) and the prompt
    ends in a signature of the function under test (with its docstring): HumanEval's own format."""
    if not prompt or not wanted or not body[:1].isspace() or not any(f"def {name}(" in prompt for name in wanted):
        return None
    if (redefined := _REDEFINES.match(body)) and redefined.group("name") in wanted:
        return None  # `    def f(x): …`: the whole function indented, not a body of the prompt's
    head = prompt.rstrip("\n") + "\n"
    found = _joined_to_prompt(head, body.split("\n"), wanted)
    if found is None and (reindented := _indented_as_the_prompt(body, head)) != body:
        found = _joined_to_prompt(head, reindented.split("\n"), wanted)  # a body indented 2 under a docstring at 4
    return found


def _joined_to_prompt(head: str, lines: list[str], wanted: set[str]) -> str | None:
    """The prompt's `head` and the body's `lines`: the function ends at the first line back at the
    margin; what follows is kept where it parses (a helper it calls), else cut there (prose, the next
    problem begun, a truncated definition), and always before a line that defines the function under
    test again (`def f(x): return 0` then `assert f(0) == 0`: read on, it replaced the answer). Its
    own tests, prints and calls are dropped."""
    redefines = next((i for i, line in enumerate(lines) if _defines(line, wanted)), None)
    lines = lines[:redefines]  # the function under test written again after it: a test's stand-in or a next try
    ends = [i for i in range(len(lines) - 1, 0, -1) if lines[i][:1] not in ("", " ", "\t")]
    for cut in [len(lines), *ends][:SHRINK_TRIES]:
        joined = head + "\n".join(lines[:cut]).rstrip("\n") + "\n"
        tree = _parses(joined)
        if tree is not None:
            return _core(joined, tree, wanted)
    return None


def _indented_as_the_prompt(body: str, head: str) -> str:
    """`body` with its own indentation (that of its first line) replaced by the one the prompt's
    last line has (its docstring's), line by line; lines at the margin stay: the same body, as the
    prompt's function holds it."""
    last = head.rstrip("\n").rsplit("\n", 1)[-1]
    indent = last[: len(last) - len(last.lstrip(" \t"))]
    first = body.lstrip("\n")
    own = first[: len(first) - len(first.lstrip(" \t"))]
    if not indent or not own or own == indent:
        return body
    return "\n".join(indent + line[len(own) :] if line.startswith(own) else line for line in body.split("\n"))


_REDEFINES = re.compile(r"\s*(?:async\s+)?def\s+(?P<name>\w+)\s*\(")
_STATEMENT = re.compile(
    r"^(?:[A-Za-z_][\w.]*\s*(?:[-+*/%&|^]?=|\(|\[|:)|(?:if|elif|else|for|while|try|except|finally|with|return|print|assert|raise|pass|global)\b)"
)
# where a whole program (stdin/stdout) may start after prose: an assignment, a loop or a print
_SCRIPT_START = re.compile(r"^(?:[A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_]\w*)*\s*=(?!=)|(?:for|while|print)\b)")
SHRINK_TRIES = 20  # lines given up at the end of an unfenced stretch that does not parse as a whole


def _unfenced(text: str, wanted: set[str], prompt: str, script: bool = False) -> Program:
    """Code without fences: the function body continuing the prompt, the whole text, or the stretch
    of code-like lines from the first line that starts Python code (prose before and after dropped)."""
    stripped = text.strip("\n")
    continuation = _continued_prompt(text.lstrip("\n") if text.lstrip("\n")[:1].isspace() else "", wanted, prompt)
    if continuation is not None:
        return Program(continuation, "a function body continuing the prompt")
    whole = _parses(stripped)
    if script and whole is not None and _is_program(whole):
        return Program(stripped + "\n", "the whole completion is code (a whole program)")
    if whole is not None and (_functions(whole) or (wanted & defined_names(whole))):
        return Program(_core(stripped + "\n", whole, wanted or _functions(whole)), "the whole completion is code")
    lines = text.split("\n")
    if script and (found := _script_after_prose(lines)).code is not None:
        return found
    stretches = _code_stretches(lines)
    if any(_functions(tree) for _, tree in stretches):  # each read as a block: two programs weigh as two blocks do
        return _from_blocks([block for block, _ in stretches], wanted, prompt, script)
    indented = _indented_block(lines)
    in_block = _from_indented(indented, wanted, prompt, script) if indented else None
    return in_block or _inline(text, wanted)


MOST_STRETCHES = 32  # stretches of unfenced code read, from the first


def _code_stretches(lines: list[str], offset: int = 0) -> list[tuple[Block, ast.Module]]:
    """Each stretch of code-like lines from a line that starts Python code (`def`, `class`,
    `import`), with the prose before it: the longest run that parses, a few lines given up at its
    end where the whole does not (prose after it). `offset`: where `lines` start in the text."""
    found: list[tuple[Block, ast.Module]] = []
    starts = [offset]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    at, prose_from = 0, 0
    while at < len(lines) and len(found) < MOST_STRETCHES:
        start = next((i for i in range(at, len(lines)) if _CODE_START.match(lines[i])), None)
        if start is None:
            break
        at = _stretch_end(lines, start)
        if parsed := _longest_parsing(lines, start, at):
            cut, chunk, tree = parsed
            before = "\n".join(lines[prose_from:start])[-PROSE_READ:]
            found.append((Block("", chunk, True, starts[start], before, starts[cut]), tree))
            prose_from = at = cut  # what was given up (`Alternatively:` and a second program) is read next
    return found


def _longest_parsing(
    lines: list[str], start: int, end: int, accept: Callable[[ast.Module], bool] = lambda tree: True
) -> tuple[int, str, ast.Module] | None:
    """The longest run of `lines` from `start` to at most `end` that parses (and that `accept`s),
    giving up at most SHRINK_TRIES lines at its end (prose after the code): (its end, its code, its
    tree), or None."""
    for cut in range(end, max(start, end - SHRINK_TRIES), -1):
        chunk = "\n".join(lines[start:cut]).strip("\n") + "\n"
        tree = _parses(chunk)
        if tree is not None and accept(tree):
            return cut, chunk, tree
    return None


def _stretch_end(lines: list[str], start: int) -> int:
    """Where the code-like lines from `start` end: at the first line of prose at the margin."""
    end = start + 1
    while end < len(lines) and (
        not lines[end].strip()
        or lines[end][:1].isspace()
        or _CODE_START.match(lines[end])
        or _STATEMENT.match(lines[end])
    ):
        end += 1
    return end


def _script_after_prose(lines: list[str]) -> Program:
    """A whole program (stdin/stdout) after prose: the first stretch of code-like lines from a line
    that starts one (an assignment, a loop, a print, a definition) that parses and does something."""
    start = next((i for i, line in enumerate(lines) if _CODE_START.match(line) or _SCRIPT_START.match(line)), None)
    if start is not None and (parsed := _longest_parsing(lines, start, _stretch_end(lines, start), _is_program)):
        return Program(parsed[1], "code after prose (a whole program)")
    return Program(None, "no code found (no fenced block, and no text that parses as Python)")


def _indented_block(lines: list[str]) -> str | None:
    """The first run of indented lines (Markdown's indented code block: `Here it is:` then lines
    indented four spaces or a tab), as written; None where no line is indented."""
    first = next((i for i, line in enumerate(lines) if line[:1] in (" ", "\t") and line.strip()), None)
    if first is None:
        return None
    end = first
    while end < len(lines) and (not lines[end].strip() or lines[end][:1] in (" ", "\t")):
        end += 1
    return "\n".join(lines[first:end]).rstrip() + "\n"


def _from_indented(block: str, wanted: set[str], prompt: str, script: bool) -> Program | None:
    """The program an indented block after prose holds: a function body continuing the prompt
    (`Here is the body:` then the body), or code indented as a whole (`Sure:` then `    def f(x):`)."""
    code = textwrap.dedent(block)
    tree = _parses(code)
    if tree is not None and script and _is_program(tree):
        return Program(code, "an indented code block after prose (a whole program)")
    if tree is not None and _defines_tested(tree, wanted):
        return Program(_core(code, tree, wanted or _functions(tree)), "an indented code block after prose")
    continuation = _continued_prompt(block, wanted, prompt)
    if continuation is not None:
        return Program(continuation, "a function body continuing the prompt, after prose")
    return None


_INLINE_CODE = re.compile(r"`([^`\n]{1,2000})`")


def _inline(text: str, wanted: set[str]) -> Program:
    """The inline code span that defines the function under test (`def f(x): return x + 1` in a
    sentence), where nothing else in the text is code; two different ones are one answer too many."""
    found = []
    for m in _INLINE_CODE.finditer(text):
        code = m.group(1).strip() + "\n"
        tree = _parses(code)
        if tree is not None and _defines_tested(tree, wanted):
            if found and not _same_program(found[-1], code):
                return Program(None, "two different inline solutions: one answer too many")
            found.append(code)
    if found:
        return Program(found[-1], "an inline code span")
    return Program(None, "no code found (no fenced block, and no text that parses as Python)")


def extract_code(completion: str, which: str = "last") -> str | None:
    """The chosen fenced Python block as written (`which`: "last", "first" or "longest"), or None
    when the completion has none: the plain reading, for callers that want exactly one block."""
    blocks = [m.group(2) for m in FENCE.finditer(completion[-200_000:]) if m.group(1).lower() in CODE_LANGUAGES]
    blocks = [b for b in blocks if b.strip()]
    if not blocks:
        return None
    if which == "first":
        return blocks[0]
    if which == "longest":
        return max(blocks, key=len)
    return blocks[-1]

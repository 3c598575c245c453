"""Task formats -> tests for the sandbox. The expected answers stay outside the sandbox wherever
the format allows (a call with a literal expected value, stdin/stdout pairs); every other test is
trusted code that the sandbox's judge process runs, never the program's process.

Tests are counted as written: each top-level statement of a check that contains an assert is one
test (a loop of asserts is one test), in source order, after the setup statements before it.
Asserts that cannot fail (`assert True, "…"`) are no tests, and a task with no tests is broken.

- LeetCodeDataset / HumanEval rows: `prompt` (helpers, run before the program and, trusted, before
  the tests), `entry_point` ("Solution().method" or a function name), `test`
  (`def check(candidate): ...`);
- assert lists (AceCode): `test_cases: ["assert f(1) == 2", ...]`;
- stdin/stdout pairs (APPS/TACO): `inputs`/`outputs`, or `input_output` (a dict or its JSON text);
  with `fn_name` they are call-based tests;
- pytest files (KodCode): `test` with `from solution import ...` and `def test_*` functions.
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import hashlib
import json
import random
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from sandboxes.suite import Test

from ..base import TaskError, shown


@dataclass(frozen=True)
class Prepared:
    format: str
    tests: Sequence[Test]
    setup: str = ""  # runs before the program, in the program's process (helpers it uses)
    entry_point: str | None = None
    judge_setup: str | None = None  # trusted code the tests run after, in the judge (default: setup)
    program_names: tuple[str, ...] = ()  # names besides the entry point the tests take from the program
    tested_names: frozenset[str] = frozenset()  # what the answer must define (`tested_names`), made once


def prepare(task: Mapping[str, Any]) -> Prepared:
    """The task's tests, counted as written; a task that yields none is broken (TaskError).
    Kept per task text: every sample of a task (a GRPO group, pass@k) meets the same tests, and
    splitting a LeetCode check of 100+ asserts costs more than running a short solution."""
    key = _task_key(task)
    prepared = _PREPARED.get(key) if key is not None else None
    if prepared is None:
        prepared = _prepare(task)
        if not prepared.tests:
            raise TaskError("task has no tests (none of its asserts can fail)")
        # shared: never mutated
        prepared = dataclasses.replace(prepared, tests=tuple(prepared.tests), program_names=_program_names(task))
        prepared = dataclasses.replace(prepared, tested_names=tested_names(prepared))
        if key is not None:
            if len(_PREPARED) >= _PREPARED_MAX:
                _PREPARED.pop(next(iter(_PREPARED)), None)
            _PREPARED[key] = prepared
    return prepared


_PREPARED: dict[str, Prepared] = {}
_PREPARED_MAX = 256


def _task_key(task: Mapping[str, Any]) -> str | None:
    try:
        return json.dumps(task, sort_keys=True)
    except (TypeError, ValueError):  # not plain JSON data: prepared afresh each time
        return None


def _program_names(task: Mapping[str, Any]) -> tuple[str, ...]:
    """The task's `program_names`: what its tests may take from the program besides the entry point
    (every other name they read is the task's setup's or the judge's own import)."""
    names = task.get("program_names", ())
    if not isinstance(names, (list, tuple)) or not all(isinstance(n, str) and n.isidentifier() for n in names):
        raise TaskError("program_names must be a list of Python names")
    return tuple(names)


def _prepare(task: Mapping[str, Any]) -> Prepared:
    test_text = task.get("test")
    if isinstance(test_text, str) and "def check(" in test_text:
        prompt = _text(task, "prompt")
        helpers, tests = _split_check(test_text)
        return Prepared("leetcode", tests, prompt, _entry_point(task), prompt + "\n" + helpers)
    if isinstance(test_text, str) and "def test_" in test_text:
        setup = _text(task, "setup")
        return Prepared("pytest", _pytest_tests(test_text), setup, None, setup + "\n" + test_text)
    if "test_cases" in task:
        cases = task["test_cases"]
        if not isinstance(cases, list) or not all(isinstance(c, str) for c in cases):
            raise TaskError("test_cases must be a list of assert strings")
        tests = [t for c in cases for t in _statement_tests(_parse(c, "a test"), _Source(c))]
        return Prepared("asserts", tests, _text(task, "setup"), _entry_point(task))
    io = task.get("input_output", task)
    if isinstance(io, str):
        try:
            io = json.loads(io)
        except json.JSONDecodeError:
            raise TaskError("input_output is not valid JSON") from None
    if isinstance(io, Mapping) and "inputs" in io and "outputs" in io:
        inputs, outputs = io["inputs"], io["outputs"]
        if not isinstance(inputs, list) or not isinstance(outputs, list) or len(inputs) != len(outputs):
            raise TaskError("inputs and outputs must be lists of the same length")
        if io.get("fn_name"):
            fn = io["fn_name"]
            if not isinstance(fn, str) or not fn.isidentifier():
                raise TaskError(f"fn_name must be a Python name, got {shown(fn)}")
            tests = [
                Test(
                    "call",
                    _written(args, lambda a: f"{fn}(*{list(a)!r})" if isinstance(a, list) else f"{fn}({a!r})"),
                    out[0] if isinstance(out, list) and len(out) == 1 else out,
                )
                for args, out in zip(inputs, outputs)
            ]
            return Prepared("call", tests, _text(task, "setup"))
        tests = [Test("stdio", _written(i), _written(o)) for i, o in zip(inputs, outputs)]
        return Prepared("stdio", tests)
    raise TaskError("unknown code task format: expected test (check or pytest), test_cases, or inputs/outputs")


def _written(value: Any, write: Callable[[Any], str] = str) -> str:
    """A test's text from a task's value; a value Python cannot write (an integer past its
    4300-digit limit for text) is the task's fault."""
    try:
        return write(value)
    except ValueError as exc:
        raise TaskError(f"a test value cannot be written as text: {exc}") from None


def _text(task: Mapping[str, Any], field: str) -> str:
    """A code field of the task (`setup`, `prompt`): text, or empty where absent. Anything else is
    the task's fault, never run as `str(value)`."""
    value = task.get(field)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise TaskError(f"{field} must be a string of Python code, got a {type(value).__name__}")
    return value


def _entry_point(task: Mapping[str, Any]) -> str | None:
    """The task's entry point (`f`, `Solution().method`), or None where it names none. One that is
    not an expression is the task's fault (ERROR), never the program's failing test."""
    entry = task.get("entry_point")
    if entry is None or entry == "":
        return None
    if not isinstance(entry, str):
        raise TaskError(f"entry_point must be a string (`f` or `Solution().f`), got a {type(entry).__name__}")
    try:
        ast.parse(entry, "entry_point", "eval")
    except SyntaxError:
        raise TaskError(f"entry_point is not a Python expression: {shown(entry)}") from None
    return entry


def _parse(source: str, what: str) -> ast.Module:
    try:
        return ast.parse(source)
    except SyntaxError as exc:
        raise TaskError(f"{what} does not parse: {exc}") from None


class _Source:
    """A parsed text's segments by node position: the source as written, without `ast.unparse`,
    which cost most of preparing a LeetCode task (hundreds of asserts over large literals)."""

    def __init__(self, text: str) -> None:
        self.data = text.encode("utf-8")
        self.line_starts = [0]
        for line in self.data.splitlines(keepends=True):
            self.line_starts.append(self.line_starts[-1] + len(line))

    def segment(self, node: ast.AST) -> str:
        try:  # ast positions are (1-based line, UTF-8 byte column)
            start = self.line_starts[node.lineno - 1] + node.col_offset  # type: ignore[attr-defined]
            end = self.line_starts[node.end_lineno - 1] + node.end_col_offset  # type: ignore[attr-defined]
            return self.data[start:end].decode("utf-8")
        except (AttributeError, IndexError, TypeError, UnicodeDecodeError):
            return ast.unparse(node)


def _split_check(test_text: str) -> tuple[str, list[Test]]:
    """(helpers defined beside check, one test per statement of check that can fail), in source order.

    A test runs after every setup statement before it. An earlier assert is replayed (its
    expression evaluated, not judged) only when it reads a variable of the check itself, since
    only then can it change what later tests see (`s.pop()` on a stack built above)."""
    tree, source = _parse(test_text, "the task's check function"), _Source(test_text)
    check = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "check"), None)
    if check is None:
        raise TaskError("no def check(candidate) in the test")
    helpers = "\n".join(ast.unparse(n) for n in tree.body if n is not check)
    local_names = {a.arg for a in check.args.args} - {"candidate"}
    before: list[str] = []
    tests: list[Test] = []
    for stmt in check.body:
        if not _has_assert(stmt):
            before.append(ast.unparse(stmt))
            local_names |= _bound_names(stmt)
            continue
        if not _can_fail(stmt):
            continue
        tests += _statement_tests(ast.Module([stmt], []), source, "\n".join(before))
        if _reads(stmt, local_names):
            before.append(ast.unparse(_AssertsToExpressions().visit(ast.parse(ast.unparse(stmt)))))
    return helpers, tests


def _statement_tests(module: ast.Module, source: _Source, setup: str = "") -> list[Test]:
    """`assert <expr> == <literal>` (either side) is a call test compared outside the sandbox;
    any other statement that can fail is judged by the trusted test code; others are no tests."""
    tests = []
    for stmt in module.body:
        if not _has_assert(stmt) or not _can_fail(stmt):
            continue
        expected = _literal_comparison(stmt, source)
        if expected is not None:
            expr, value = expected
            tests.append(Test("call", expr, value, setup=setup))
        else:
            tests.append(Test("exec", ast.unparse(stmt), setup=setup))
    return tests


def _literal_comparison(stmt: ast.stmt, source: _Source) -> tuple[str, Any] | None:
    if not (
        isinstance(stmt, ast.Assert)
        and isinstance(stmt.test, ast.Compare)
        and len(stmt.test.ops) == 1
        and isinstance(stmt.test.ops[0], ast.Eq)
    ):
        return None
    left, right = stmt.test.left, stmt.test.comparators[0]
    for expr, literal in ((left, right), (right, left)):
        if _is_constant(expr):
            continue
        try:
            return source.segment(expr), ast.literal_eval(literal)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
    return None


def _has_assert(stmt: ast.AST) -> bool:
    return any(isinstance(n, ast.Assert) for n in ast.walk(stmt))


def _is_constant(expr: ast.AST) -> bool:
    """No name, call, attribute or subscript anywhere: its value cannot depend on the program."""
    return not any(
        isinstance(
            n,
            (
                ast.Name,
                ast.Call,
                ast.Attribute,
                ast.Subscript,
                ast.Starred,
                ast.NamedExpr,
                ast.Await,
                ast.Yield,
                ast.YieldFrom,
            ),
        )
        for n in ast.walk(expr)
    )


def _can_fail(stmt: ast.stmt) -> bool:
    """A statement is a test only if one of its asserts depends on something: `assert True, "…"` is not."""
    if isinstance(stmt, ast.Assert):
        return not _is_constant(stmt.test)
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return False
    return any(isinstance(n, ast.Assert) and not _is_constant(n.test) for n in ast.walk(stmt))


def _bound_names(stmt: ast.stmt) -> set[str]:
    names = {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    names |= {
        (a.asname or a.name).split(".")[0]
        for n in ast.walk(stmt)
        if isinstance(n, (ast.Import, ast.ImportFrom))
        for a in n.names
    }
    return names


def _reads(stmt: ast.stmt, names: set[str]) -> bool:
    if not names:  # most checks bind nothing of their own: no walk over large literals
        return False
    return any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(stmt))


class _AssertsToExpressions(ast.NodeTransformer):
    """`assert x, msg` -> `x`: replays an earlier test's effects without judging it again."""

    def visit_Assert(self, node: ast.Assert) -> ast.Expr:
        return ast.copy_location(ast.Expr(node.test), node)


def _pytest_tests(test_text: str) -> list[Test]:
    """One test per `test_*` function (and per `test_*` method of a `Test*` class) that can fail."""
    tree = _parse(test_text, "the pytest file")
    tests = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test_") and _can_fail_function(node):
            tests.append(Test("exec", f"{node.name}()"))
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            tests += [
                Test("exec", f"{node.name}().{m.name}()")
                for m in node.body
                if isinstance(m, ast.FunctionDef) and m.name.startswith("test_") and _can_fail_function(m)
            ]
    return tests


def _can_fail_function(node: ast.FunctionDef) -> bool:
    """A pytest function fails by an assert or by raising: one that only asserts constants cannot."""
    body = [s for s in node.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    return any(not (isinstance(s, ast.Assert) and _is_constant(s.test)) for s in body) if body else False


def sample_tests(tests: Sequence[Test], limit: int | None, key: str) -> Sequence[Test]:
    """At most `limit` tests, chosen by a seed from `key` (the task), so every sample of a task and
    every run sees the same subset."""
    if limit is None or len(tests) <= limit:
        return tests
    seed = int.from_bytes(hashlib.blake2b(key.encode(), digest_size=8).digest(), "little")
    chosen = sorted(random.Random(seed).sample(range(len(tests)), limit))
    return [tests[i] for i in chosen]


def tested_names(prepared: Prepared) -> frozenset[str]:
    """The names the tests take from the program (what the answer must define): the entry point's
    first name (`Solution` of `Solution().f`) and the task's `program_names`, else the functions the
    tests call that neither Python's builtins nor the tests themselves define."""
    names = set(prepared.program_names)
    if prepared.entry_point:
        names |= {n.id for n in ast.walk(ast.parse(prepared.entry_point, "entry", "eval")) if isinstance(n, ast.Name)}
    if names:
        return frozenset(names)
    called, bound = set(), set()
    for test in prepared.tests:
        if test.kind == "stdio":
            continue
        try:
            trees = [ast.parse(test.setup or "", "test", "exec"), ast.parse(test.source, "test", "exec")]
        except SyntaxError:
            continue
        for node in (n for tree in trees for n in ast.walk(tree)):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                called.add(node.func.id)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                bound.add(node.name)
            elif isinstance(node, ast.ImportFrom) and node.module == "solution":
                called.update(a.name for a in node.names)
    return frozenset(called - bound - set(dir(builtins)))

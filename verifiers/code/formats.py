"""Task formats -> tests for the sandbox. The expected answers stay outside the sandbox wherever
the format allows (a call with a literal expected value, stdin/stdout pairs).

- LeetCodeDataset rows: `prompt` (helpers, prepended), `entry_point` ("Solution().method"), `test`
  (`def check(candidate): assert ...`), split into one test per assert;
- assert lists (AceCode): `test_cases: ["assert f(1) == 2", ...]`;
- stdin/stdout pairs (APPS/TACO): `inputs`/`outputs`, or `input_output` (a dict or its JSON text);
  with `fn_name` they are call-based tests;
- pytest files (KodCode): `test` with `from solution import ...` and `def test_*` functions.
"""
from __future__ import annotations

import ast
import hashlib
import json
import random
from dataclasses import dataclass
from typing import Any, Mapping

from sandboxes.suite import Test

from ..base import TaskError


@dataclass(frozen=True)
class Prepared:
    format: str
    tests: list[Test]
    setup: str = ""
    entry_point: str | None = None


def prepare(task: Mapping[str, Any]) -> Prepared:
    test_text = task.get("test")
    if isinstance(test_text, str) and "def check(" in test_text:
        return Prepared("leetcode", _split_check(test_text), str(task.get("prompt", "")), task.get("entry_point") or None)
    if isinstance(test_text, str) and "def test_" in test_text:
        return Prepared("pytest", _pytest_tests(test_text), str(task.get("setup", "")))
    if "test_cases" in task:
        cases = task["test_cases"]
        if not isinstance(cases, list) or not all(isinstance(c, str) for c in cases):
            raise TaskError("test_cases must be a list of assert strings")
        tests = [t for c in cases for t in _assert_tests(c, prefix="")]
        return Prepared("asserts", tests, str(task.get("setup", "")), task.get("entry_point") or None)
    io = task.get("input_output", task)
    if isinstance(io, str):
        try:
            io = json.loads(io)
        except json.JSONDecodeError:
            raise TaskError("input_output is not valid JSON") from None
    if isinstance(io, Mapping) and "inputs" in io and "outputs" in io:
        inputs, outputs = io["inputs"], io["outputs"]
        if len(inputs) != len(outputs):
            raise TaskError("inputs and outputs differ in length")
        if io.get("fn_name"):
            fn = io["fn_name"]
            tests = [Test("call", f"{fn}(*{list(args)!r})" if isinstance(args, list) else f"{fn}({args!r})",
                          out[0] if isinstance(out, list) and len(out) == 1 else out) for args, out in zip(inputs, outputs)]
            return Prepared("call", tests, str(task.get("setup", "")))
        return Prepared("stdio", [Test("stdio", str(i), str(o)) for i, o in zip(inputs, outputs)])
    raise TaskError("unknown code task format: expected test (check or pytest), test_cases, or inputs/outputs")


def _split_check(test_text: str) -> list[Test]:
    try:
        tree = ast.parse(test_text)
    except SyntaxError as exc:
        raise TaskError(f"the task's check function does not parse: {exc}") from None
    check = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "check"), None)
    if check is None:
        raise TaskError("no def check(candidate) in the test")
    prefix = "\n".join(ast.unparse(n) for n in tree.body if n is not check)  # helpers defined beside check
    setup_lines = [ast.unparse(s) for s in check.body if not isinstance(s, ast.Assert)]
    tests = []
    for stmt in check.body:
        if isinstance(stmt, ast.Assert):
            tests += _assert_tests(ast.unparse(stmt), prefix="\n".join([prefix] + setup_lines))
    return tests


def _assert_tests(source: str, prefix: str) -> list[Test]:
    """`assert <call> == <literal>` becomes a call test compared outside; any other assert runs inside."""
    try:
        node = ast.parse(source.strip()).body
    except SyntaxError as exc:
        raise TaskError(f"a test does not parse: {exc}") from None
    tests = []
    for stmt in node:
        if isinstance(stmt, ast.Assert) and isinstance(stmt.test, ast.Compare) and len(stmt.test.ops) == 1 \
                and isinstance(stmt.test.ops[0], ast.Eq) and not prefix.strip():
            try:
                expected = ast.literal_eval(stmt.test.comparators[0])
            except (ValueError, SyntaxError, TypeError):
                expected = _MISSING
            if expected is not _MISSING:
                tests.append(Test("call", ast.unparse(stmt.test.left), expected))
                continue
        tests.append(Test("exec", (prefix + "\n" if prefix.strip() else "") + ast.unparse(stmt)))
    return tests


_MISSING = object()


def _pytest_tests(test_text: str) -> list[Test]:
    try:
        tree = ast.parse(test_text)
    except SyntaxError as exc:
        raise TaskError(f"the pytest file does not parse: {exc}") from None
    names = [n.name for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.startswith("test_")]
    if not names:
        raise TaskError("the pytest file has no test_ functions")
    return [Test("exec", f"{test_text}\n{name}()") for name in names]


def sample_tests(tests: list[Test], limit: int | None, key: str) -> list[Test]:
    """At most `limit` tests, chosen by a seed from `key` (the task), so every sample of a task and
    every run sees the same subset."""
    if limit is None or len(tests) <= limit:
        return tests
    seed = int.from_bytes(hashlib.blake2b(key.encode(), digest_size=8).digest(), "little")
    chosen = sorted(random.Random(seed).sample(range(len(tests)), limit))
    return [tests[i] for i in chosen]

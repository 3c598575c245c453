"""Run one solution against many tests in a sandbox and return a verdict per test.

Tests are `Test` objects: a call whose value is compared outside (`expected` stays here), a
stdin/stdout pair (the output is compared outside), or a snippet checked inside the sandbox
(asserts that are not a plain `==`, pytest-style functions): weaker, since the check runs next
to the model's code, and reported as such.
"""
from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from typing import Any

from .base import Backend, Limits, RawRun, SuiteResult, TestOutcome, TestVerdict
from .compare import decode, stdout_equal, values_equal

PREFIX = "EVALKIT-"


@dataclass(frozen=True)
class Test:
    kind: str                 # "call" | "stdio" | "exec"
    source: str               # call: an expression; stdio: the stdin text; exec: statements
    expected: Any = None      # call: the value; stdio: the stdout text; exec: unused

    def job_entry(self) -> dict[str, Any]:
        if self.kind == "call":
            return {"kind": "call", "expr": self.source}
        if self.kind == "stdio":
            return {"kind": "stdio", "stdin": self.source}
        return {"kind": "exec", "code": self.source}


def build_job(code: str, tests: list[Test], limits: Limits, setup: str = "", entry_point: str | None = None) -> bytes:
    job = {"code": code, "setup": setup, "entry_point": entry_point, "tests": [t.job_entry() for t in tests],
           "cpu_seconds": limits.cpu_seconds, "test_wall_seconds": limits.test_wall_seconds,
           "memory_mb": limits.memory_mb, "max_output_bytes": limits.max_output_bytes,
           "max_file_bytes": max(limits.max_file_bytes, limits.max_output_bytes + 1),
           "max_open_files": limits.max_open_files, "max_processes": limits.max_processes}
    data = json.dumps(job).encode()
    return str(len(data)).encode() + b"\n" + data


def run_tests(backend: Backend, code: str, tests: list[Test], limits: Limits = Limits(), *, setup: str = "",
              entry_point: str | None = None) -> SuiteResult:
    nonce = secrets.token_hex(16)
    raw = backend.run(build_job(code, tests, limits, setup, entry_point), nonce, limits)
    return interpret(raw, nonce, tests)


def interpret(raw: RawRun, nonce: str, tests: list[Test]) -> SuiteResult:
    """Turn the runner's nonce-tagged lines into verdicts; anything untagged is ignored."""
    if raw.error:
        return SuiteResult([TestOutcome(TestVerdict.SANDBOX_ERROR, raw.error) for _ in tests], sandbox_error=raw.error)
    records: dict[int, dict[str, Any]] = {}
    started: set[int] = set()
    done = False
    tag = f"{PREFIX}{nonce} "
    for line in raw.stdout.decode("utf-8", "replace").splitlines():
        if not line.startswith(tag):
            continue
        try:
            record = json.loads(line[len(tag):])
        except ValueError:
            continue
        if record.get("done"):
            done = True
        elif isinstance(record.get("started"), int):
            started.add(record["started"])
        elif isinstance(record.get("i"), int):
            records.setdefault(record["i"], record)
    outcomes = [_verdict(records.get(i), test) for i, test in enumerate(tests)]
    if raw.timed_out:
        outcomes = [o if i in records else TestOutcome(TestVerdict.TIMEOUT, "the whole run hit its wall-clock limit")
                    for i, o in enumerate(outcomes)]
    elif not done and len(records) < len(tests):
        if not started:  # the runner never got to the model's code: the sandbox failed
            why = f"the runner stopped before the first test (exit code {raw.exit_code})"
            return SuiteResult([TestOutcome(TestVerdict.SANDBOX_ERROR, why) for _ in tests], sandbox_error=why)
        outcomes = [o if i in records else TestOutcome(TestVerdict.RUNTIME_ERROR, "the runner was killed while the "
                    "code ran (did it kill its parent?)") for i, o in enumerate(outcomes)]
    return SuiteResult(outcomes)


def _verdict(record: dict[str, Any] | None, test: Test) -> TestOutcome:
    if record is None:
        return TestOutcome(TestVerdict.RUNTIME_ERROR, "no result")
    status, seconds = record.get("status"), float(record.get("seconds", 0.0))
    simple = {"timeout": (TestVerdict.TIMEOUT, "time limit"), "memory": (TestVerdict.MEMORY_LIMIT, "memory limit"),
              "killed": (TestVerdict.MEMORY_LIMIT, "killed (memory limit)"),
              "output_limit": (TestVerdict.OUTPUT_LIMIT, "output limit")}
    if status in simple:
        verdict, detail = simple[status]
        return TestOutcome(verdict, detail, seconds)
    if status == "unencodable":
        return TestOutcome(TestVerdict.WRONG_ANSWER, f"returned something that is not plain data ({record.get('error')})", seconds)
    if status != "ok":
        return TestOutcome(TestVerdict.RUNTIME_ERROR, str(record.get("error", status))[:300], seconds)
    if test.kind == "call":
        try:
            ok = values_equal(decode(record.get("value")), test.expected)
        except (ValueError, TypeError):
            ok = False
        return TestOutcome(TestVerdict.PASS if ok else TestVerdict.WRONG_ANSWER, "" if ok else "wrong value", seconds)
    if test.kind == "stdio":
        ok = stdout_equal(str(record.get("stdout", "")), str(test.expected))
        return TestOutcome(TestVerdict.PASS if ok else TestVerdict.WRONG_ANSWER, "" if ok else "wrong output", seconds)
    return TestOutcome(TestVerdict.PASS, "checked inside the sandbox", seconds)

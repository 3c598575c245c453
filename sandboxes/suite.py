"""Run one solution against many tests in a sandbox and return a verdict per test.

Tests are `Test` objects: a call whose value is compared here (`expected` never enters the
sandbox), a stdin/stdout pair (the output is compared here), or trusted test code (asserts that
are not a plain `== literal`, pytest functions) that the sandbox's judge process runs against
proxies of the program, which lives in another process (see `runner.py` and `judge.py`).
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from typing import Any, Sequence

from . import libraries, programs
from .base import Backend, Limits, RawRun, SuiteResult, TestOutcome, TestVerdict
from .compare import decode, stdout_equal, values_equal

PREFIX = "EVALKIT-"


@dataclass(frozen=True)
class Test:
    __test__ = False  # not a pytest class

    kind: str  # "call" | "stdio" | "exec"
    source: str  # call: an expression; stdio: the stdin text; exec: statements
    expected: Any = None  # call: the value; stdio: the stdout text; exec: unused
    setup: str = ""  # call and exec: the test's own statements that run first (in the judge)

    def job_entry(self) -> dict[str, Any]:
        if self.kind == "call":
            return {"kind": "call", "expr": self.source, "setup": self.setup}
        if self.kind == "stdio":
            return {"kind": "stdio", "stdin": self.source}
        return {"kind": "exec", "code": self.source, "setup": self.setup}


def build_job(
    code: str,
    tests: Sequence[Test],
    limits: Limits,
    setup: str = "",
    entry_point: str | None = None,
    judge_setup: str | None = None,
    library_paths: list[str] | None = None,
    program_names: Sequence[str] = (),
) -> bytes:
    """The length-prefixed job. `setup` runs before the program in the candidate (helpers the
    program uses); `judge_setup` is the trusted code the tests run after (default: `setup`);
    `library_paths` make the allowed packages importable in both (see `libraries.py`);
    `program_names` are the names besides the entry point that the tests take from the program."""
    paths = list(library_paths or [])
    job = {
        "code": code,
        "setup": setup,
        "judge_setup": setup if judge_setup is None else judge_setup,
        "entry_point": entry_point,
        "program_names": list(program_names),
        "packages": list(limits.packages),
        "tests": [t.job_entry() for t in tests],
        "library_paths": paths,
        "candidate_source": libraries.prelude(paths) + programs.CANDIDATE,
        "python_flags": programs.PYTHON_FLAGS,
        "cpu_seconds": limits.cpu_seconds,
        "timeout_budget_seconds": limits.timeout_budget_seconds,
        "solution_cpu_seconds": limits.wall_seconds,
        "memory_mb": limits.memory_mb,
        "max_output_bytes": limits.max_output_bytes,
        "max_file_bytes": max(limits.max_file_bytes, limits.max_output_bytes + 1),
        "max_open_files": limits.max_open_files,
        "max_processes": limits.max_processes,
    }
    data = json.dumps(job).encode()
    return str(len(data)).encode() + b"\n" + data


def run_tests(
    backend: Backend,
    code: str,
    tests: Sequence[Test],
    limits: Limits = Limits(),
    *,
    setup: str = "",
    entry_point: str | None = None,
    judge_setup: str | None = None,
    program_names: Sequence[str] = (),
) -> SuiteResult:
    nonce = secrets.token_hex(16)
    paths = backend.library_paths(limits.packages) if limits.packages else []
    job = build_job(code, tests, limits, setup, entry_point, judge_setup, paths, program_names)
    raw = backend.run(job, nonce, limits)
    return interpret(raw, nonce, tests)


def interpret(raw: RawRun, nonce: str, tests: Sequence[Test]) -> SuiteResult:
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
            record = json.loads(line[len(tag) :])
        except (ValueError, RecursionError):
            continue
        if not isinstance(record, dict):
            continue
        if record.get("done"):
            done = True
        elif isinstance(record.get("started"), int):
            started.add(record["started"])
        elif isinstance(record.get("i"), int):
            records.setdefault(record["i"], record)
    outcomes = [_verdict(records.get(i), test) for i, test in enumerate(tests)]
    if raw.timed_out:
        outcomes = [
            o if i in records else TestOutcome(TestVerdict.TIMEOUT, "the whole run hit its wall-clock limit")
            for i, o in enumerate(outcomes)
        ]
    elif not done and len(records) < len(tests):
        if not started:  # the runner never got to the model's code: the sandbox failed
            why = f"the runner stopped before the first test (exit code {raw.exit_code})"
            return SuiteResult([TestOutcome(TestVerdict.SANDBOX_ERROR, why) for _ in tests], sandbox_error=why)
        outcomes = [
            o
            if i in records
            else TestOutcome(
                TestVerdict.RUNTIME_ERROR, "the runner was killed while the code ran (did it kill its parent?)"
            )
            for i, o in enumerate(outcomes)
        ]
    return SuiteResult(outcomes)


SIMPLE = {
    "timeout": (TestVerdict.TIMEOUT, "time limit"),
    "memory": (TestVerdict.MEMORY_LIMIT, "memory limit"),
    "killed": (TestVerdict.MEMORY_LIMIT, "killed (memory limit)"),
    "output_limit": (TestVerdict.OUTPUT_LIMIT, "output limit"),
    "task_error": (TestVerdict.TASK_ERROR, "the task's tests are broken"),
}


def _verdict(record: dict[str, Any] | None, test: Test) -> TestOutcome:
    if record is None:
        return TestOutcome(TestVerdict.RUNTIME_ERROR, "no result")
    status, seconds = record.get("status"), float(record.get("seconds", 0.0))
    observed = _observed(record, test)
    if status in SIMPLE:
        verdict, detail = SIMPLE[status]
        return TestOutcome(verdict, str(record.get("error") or detail)[:300], seconds, observed)
    if status == "unencodable":
        return TestOutcome(
            TestVerdict.WRONG_ANSWER,
            f"returned something that is not plain data ({record.get('error')})",
            seconds,
            observed,
        )
    if status == "assertion":
        return TestOutcome(
            TestVerdict.WRONG_ANSWER, str(record.get("error", "assertion failed"))[:300], seconds, observed
        )
    if status != "ok":
        return TestOutcome(TestVerdict.RUNTIME_ERROR, str(record.get("error", status))[:300], seconds, observed)
    if test.kind == "call":
        try:
            ok = values_equal(decode(record.get("value")), test.expected)
        except (ValueError, TypeError):
            ok = False
        return TestOutcome(
            TestVerdict.PASS if ok else TestVerdict.WRONG_ANSWER, "" if ok else "wrong value", seconds, observed
        )
    if test.kind == "stdio":
        ok = stdout_equal(str(record.get("stdout", "")), str(test.expected))
        return TestOutcome(
            TestVerdict.PASS if ok else TestVerdict.WRONG_ANSWER, "" if ok else "wrong output", seconds, observed
        )
    return TestOutcome(TestVerdict.PASS, "", seconds, observed)


def _observed(record: dict[str, Any], test: Test) -> str:
    """What the program did on this test, for fingerprints: its value, its output, or how it failed."""
    status = str(record.get("status"))
    if status == "ok" and test.kind == "call":
        return "value " + json.dumps(record.get("value"), sort_keys=True)
    if status == "ok" and test.kind == "stdio":
        return "stdout " + " ".join(str(record.get("stdout", "")).split())
    error = str(record.get("error", ""))
    return f"{status} {error.split(':')[0] if status in ('exception', 'assertion') else ''}".strip()

"""Run one solution against many tests in a sandbox and return a verdict per test.

Tests are `Test` objects: a call whose value is compared here (`expected` never enters the
sandbox), a stdin/stdout pair (the output is compared here), or trusted test code (asserts that
are not a plain `== literal`, pytest functions) that the sandbox's judge process runs against
proxies of the program, which lives in another process (see `runner.py` and `judge.py`).
"""

from __future__ import annotations

import json
import secrets
import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from . import libraries, programs
from .base import Backend, Limits, RawRun, SuiteResult, TestOutcome, TestVerdict
from .compare import decode, stdout_equal, values_equal
from .runner import JUDGE_TAG

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
        "candidate_prelude": libraries.prelude(paths),  # the runner holds the candidate program itself
        "python_flags": programs.PYTHON_FLAGS,
        "cpu_seconds": limits.cpu_seconds,  # per test (the judge's clock); the one meaning of the name
        "timeout_budget_seconds": limits.timeout_budget_seconds,
        "process_cpu_seconds": limits.wall_seconds,  # RLIMIT_CPU of each program process
        "memory_mb": limits.memory_mb,
        "max_output_bytes": limits.max_output_bytes,
        "max_file_bytes": max(limits.max_file_bytes, limits.max_output_bytes + 1),
        "max_open_files": limits.max_open_files,
        "max_processes": limits.max_processes,
    }
    data = json.dumps(job).encode()
    return str(len(data)).encode() + b"\n" + data


Decided = Callable[[Sequence[TestOutcome]], bool]  # the outcomes of the first tests, in order -> reward known?


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
    decided: Decided | None = None,
) -> SuiteResult:
    """Every test's outcome; with `decided`, the tests after the one that decides the reward are
    NOT_RUN where the backend can stop a run (its warm sandboxes)."""
    start = time.monotonic()
    nonce = secrets.token_hex(16)
    paths = backend.library_paths(limits.packages) if limits.packages else []
    job = build_job(code, tests, limits, setup, entry_point, judge_setup, paths, program_names)
    watch = EarlyStop(nonce, tests, decided) if decided is not None else None
    sent = time.monotonic()
    raw = backend.run(job, nonce, limits, watch)
    ran = time.monotonic()
    result = interpret(raw, nonce, tests, stopped=watch is not None and watch.stopped)
    sandbox = result.info.setdefault("phases", {})
    result.info["phases"] = profile(sandbox, build=sent - start, run=ran - sent, compare=time.monotonic() - ran)
    return result


def profile(sandbox: dict[str, float], build: float, run: float, compare: float) -> dict[str, float]:
    """Seconds per phase of one run, host and sandbox: building the job; handing it over and back
    (the run's time that no sandbox phase covers); the runner reading it; forking the judge;
    starting candidates and loading the program; the tests; cleaning the sandbox; comparing."""
    start = sandbox.get("candidate_start", 0.0)
    judged = sandbox.get("judge", start + sandbox.get("tests", 0.0))  # the runner's clock: a stopped judge reports none
    steps = {
        "read_job": sandbox.get("read_job", 0.0),
        "judge_fork": sandbox.get("judge_fork", 0.0),
        "candidate_start": start,
        "tests": max(0.0, judged - start),
        "clean_up": sandbox.get("clean_up", 0.0),
    }
    return {"build_job": build, "hand_off": max(0.0, run - sum(steps.values())), **steps, "compare": compare}


class EarlyStop:
    """Reads the runner's records as they come, judges them in test order, and says (once) when the
    outcomes so far decide the reward: the backend then tells the runner to stop."""

    def __init__(self, nonce: str, tests: Sequence[Test], decided: Decided) -> None:
        self.tag, self.tests, self.decided = f"{PREFIX}{nonce} ", tests, decided
        self.pending = b""
        self.records: dict[int, dict[str, Any]] = {}
        self.outcomes: list[TestOutcome] = []
        self.stopped = False

    def __call__(self, piece: bytes) -> bool:
        if self.stopped:
            return False
        self.pending += piece
        *lines, self.pending = self.pending.split(b"\n")
        for line in lines:
            record = _test_record(_record(line.decode("utf-8", "replace"), self.tag), self.tests)
            if record is not None:
                self.records.setdefault(record["i"], record)
        while len(self.outcomes) in self.records:
            index = len(self.outcomes)
            self.outcomes.append(_verdict(self.records[index], self.tests[index]))
        if len(self.outcomes) < len(self.tests) and self.outcomes and self.decided(self.outcomes):
            self.stopped = True
        return self.stopped


def _record(line: str, tag: str) -> tuple[dict[str, Any], bool] | None:
    """(record, whether the judge sent it) of one runner line with our nonce; None for anything else.
    The runner puts `JUDGE_TAG` before every line it relays from the judge, which runs the task's
    code: only the runner's own lines may say the job is done."""
    if not line.startswith(tag):
        return None
    body = line[len(tag) :]
    from_judge = body.startswith(JUDGE_TAG)
    try:
        record = json.loads(body[len(JUDGE_TAG) :] if from_judge else body)
    except (ValueError, RecursionError):
        return None
    return (record, from_judge) if isinstance(record, dict) else None


def _test_record(found: tuple[dict[str, Any], bool] | None, tests: Sequence[Test]) -> dict[str, Any] | None:
    """The judge's record of one declared test (`i` one of the tests' indexes) from `_record`'s
    answer, or None: any other record is data of no declared shape, and counts for nothing."""
    if found is None or not found[1]:
        return None
    index = found[0].get("i")
    return found[0] if type(index) is int and 0 <= index < len(tests) else None


NOT_RUN = TestOutcome(TestVerdict.NOT_RUN, "not run: an earlier test decided the reward")


def interpret(raw: RawRun, nonce: str, tests: Sequence[Test], stopped: bool = False) -> SuiteResult:
    """Turn the runner's nonce-tagged lines into verdicts; anything untagged is ignored. `stopped`:
    we told the runner to stop, so a test without a record was not run."""
    if raw.error:
        return SuiteResult([TestOutcome(TestVerdict.SANDBOX_ERROR, raw.error) for _ in tests], sandbox_error=raw.error)
    records: dict[int, dict[str, Any]] = {}
    started: set[int] = set()
    phases: dict[str, float] = {}  # seconds per sandbox phase, from the runner and the judge
    done = False
    tag = f"{PREFIX}{nonce} "
    for line in raw.stdout.decode("utf-8", "replace").splitlines():
        found = _record(line, tag)
        if found is None:
            continue
        record, from_judge = found
        if record.get("done") is True and not from_judge:
            done = True
        elif isinstance(record.get("phases"), dict):
            phases.update((k, float(v)) for k, v in record["phases"].items() if type(v) in (int, float))
        elif from_judge and type(record.get("started")) is int:
            started.add(record["started"])
        elif (test_record := _test_record(found, tests)) is not None:
            records.setdefault(test_record["i"], test_record)
    outcomes = [_verdict(records.get(i), test) for i, test in enumerate(tests)]
    if stopped and done:
        outcomes = [o if i in records else NOT_RUN for i, o in enumerate(outcomes)]
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
    return SuiteResult(outcomes, info={"phases": phases})


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

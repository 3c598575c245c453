"""What every sandbox backend takes and returns.

A backend runs the in-sandbox runner (`runner.py`) on a job and returns its raw output; the
suite (`suite.py`) turns that into one verdict per test. SANDBOX_ERROR means the sandbox
itself failed: it is never charged to the model's code.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from enum import Enum
from typing import Any, Callable, Protocol


class TestVerdict(str, Enum):
    __test__ = False  # not a pytest class
    PASS = "pass"
    WRONG_ANSWER = "wrong_answer"
    RUNTIME_ERROR = "runtime_error"
    TIMEOUT = "timeout"
    MEMORY_LIMIT = "memory_limit"
    OUTPUT_LIMIT = "output_limit"
    SANDBOX_ERROR = "sandbox_error"
    TASK_ERROR = "task_error"  # the task's own tests are broken (a name nothing provides): never the model's fault
    NOT_RUN = "not_run"  # an earlier test had decided the reward (a pass/fail reward stops at its first failure)


SANDBOX_CPUS = 1.0  # CPUs all of one sandbox's processes may use together, on both backends


@dataclass(frozen=True)
class Limits:
    """Per-test limits (CPU, memory, output, files) and one wall-clock limit for the whole run."""

    cpu_seconds: float = 2.0  # per test
    wall_seconds: float = 60.0  # the whole run, a hard backstop
    timeout_budget_seconds: float = (
        4.0  # seconds a solution may spend in tests that time out; the rest are then not run
    )
    memory_mb: int = 512  # address space per test process
    max_processes: int = 64
    max_output_bytes: int = 4 << 20
    max_file_bytes: int = 16 << 20
    max_open_files: int = 64

    tmpfs_mb: int = 64  # size of the sandbox's /tmp and of its /dev/shm
    packages: tuple[str, ...] = ()  # extra pure-Python packages the program may import (see libraries.py)

    def __post_init__(self) -> None:
        """Every limit a positive, finite number: a negative memory limit would remove it, NaN would
        compare false against every clock."""
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "packages":
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < math.inf:
                raise ValueError(f"sandbox limit {f.name} must be a positive, finite number, got {value!r}")

    @property
    def sandbox_memory_mb(self) -> int:
        """The whole sandbox's memory (program, judge, runner and tmpfs pages), on both backends."""
        return self.memory_mb + 2 * self.tmpfs_mb + 128

    @property
    def sandbox_processes(self) -> int:
        """The whole sandbox's process count (threads included), our own few processes among them."""
        return self.max_processes


@dataclass(frozen=True)
class RawRun:
    """What came back from one runner execution."""

    stdout: bytes
    exit_code: int | None
    timed_out: bool = False
    error: str | None = None  # the sandbox failed (could not start, died, protocol broken)


@dataclass
class TestOutcome:
    verdict: TestVerdict
    detail: str = ""
    seconds: float = 0.0
    observed: str = ""  # what the program did (value, output or failure), for answer fingerprints


@dataclass
class SuiteResult:
    outcomes: list[TestOutcome] = field(default_factory=list)
    sandbox_error: str | None = None
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def passed(self) -> int:
        return sum(o.verdict is TestVerdict.PASS for o in self.outcomes)

    def fingerprint(self) -> str:
        """Equal for programs that behave the same on these tests (what maj@k votes on)."""
        import hashlib

        text = "\n".join(o.observed or o.verdict.value for o in self.outcomes)
        return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for o in self.outcomes:
            out[o.verdict.value] = out.get(o.verdict.value, 0) + 1
        return out


class SandboxUnavailable(RuntimeError):
    """The backend cannot run here; the message says how to fix that."""


Watch = Callable[[bytes], bool]  # fed the runner's stdout as it comes; True: the verdict is decided, stop
STOP = b"stop\n"  # what the host writes to a serving runner then (runner.py ends the judge)
MAX_STDOUT = 64 << 20  # bytes of a runner's stdout kept by every backend


class Backend(Protocol):
    name: str

    def run(self, job: bytes, nonce: str, limits: Limits, watch: Watch | None = None) -> RawRun:
        """Run the runner with `job` then `nonce` on its stdin; return its stdout. A warm sandbox
        sends the runner `stop` the first time `watch` says so; a one-shot run runs every test."""

    def library_paths(self, packages: tuple[str, ...]) -> list[str]:
        """Where, inside this backend's sandbox, each allowed package's directory is."""

    def close(self) -> None:
        """Release everything the backend holds (containers, processes)."""

"""The code verifier: run the model's code against the task's tests in a sandbox.

Rewards (`reward=`):
- "continuous": the share of tests passed, in [0, 1];
- "discrete" (the seed report): a format score (+0.1 when a code block is found, -0.1 when not)
  plus a test score (-1 when the code cannot be tested, 0 when some tests fail, +1 when all pass);
- "code_r1": code-r1's scheme: -1.1 for a bad format, +0.1 when any test fails, +1.1 when all pass.
The seed scored with 2, 8 and 32 tests per problem: `max_tests` caps the tests with a sampling
seeded by the task, so every sample of a task meets the same tests.
The pass/fail rewards stop a program at the test that decides them (`stop_when_decided`): the
later tests are NOT_RUN (`info["tests_run"]`); the reward and whether the program is correct are
those of every test, while PARTIAL / INCORRECT / TIMEOUT and the `pass_rate` component describe
the tests that ran.

A sandbox failure is ERROR (never the model's fault, never a silent zero).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any, ClassVar, Mapping, Sequence

from sandboxes.base import Limits, SandboxUnavailable, TestOutcome, TestVerdict
from sandboxes.libraries import DEFAULT_PACKAGES, check_names
from sandboxes.suite import run_tests

from ..base import Verifier, setting, shown
from ..registry import register
from ..score import Score, Verdict
from ..splits import select
from ..testing import Probe
from ..text import valid_text
from .extract import extract_code, future_imports, locate_program
from .formats import prepare, sample_tests
from .tasks import PROBLEMS, prompt_for

REWARDS = ("continuous", "discrete", "code_r1")
SANDBOX = Limits()
SANDBOX_START_SECONDS = 30.0  # a cold Docker container or bubblewrap start on a loaded host
BACKENDS = ("auto", "docker", "local", "unconfined")
CODE_BLOCKS = ("final", "last", "first", "longest")


@dataclass(frozen=True)
class CodeConfig:
    reward: str = setting("continuous", client="free")
    max_tests: int | None = setting(None, client="at_most")  # None: every test
    backend: str = setting("auto")
    pool_size: int = setting(2, client="at_most")
    # the sandbox's limits, their defaults Limits' own (sandboxes/base.py): per test CPU and memory,
    # the whole run's wall clock, the seconds one solution may spend in tests that time out, processes
    cpu_seconds: float = setting(SANDBOX.cpu_seconds, client="at_most")
    memory_mb: int = setting(SANDBOX.memory_mb, client="at_most")
    wall_seconds: float = setting(SANDBOX.wall_seconds, client="at_most")
    timeout_budget_seconds: float = setting(SANDBOX.timeout_budget_seconds, client="at_most")
    max_processes: int = setting(SANDBOX.max_processes, client="at_most")
    # "final": the program read from the text's structure (extract.locate_program, docs/answers.md);
    # "last", "first" or "longest": that one fenced block as written
    code_block: str = setting("final", client="free")
    # pass/fail rewards ("discrete", "code_r1") stop a program at the test that decides them, as the
    # data sets' own checkers stop at the first failing assert; False runs every test regardless
    stop_when_decided: bool = setting(True, client="free")
    # pure-Python packages the program may import, as LeetCode's judge offers them; nothing else
    # outside the standard library is importable (see sandboxes/libraries.py)
    packages: tuple[str, ...] = setting(DEFAULT_PACKAGES, client="subset")

    def validate(self) -> None:
        if self.reward not in REWARDS:
            raise ValueError(f"reward must be one of {REWARDS}")
        if self.backend not in BACKENDS:
            raise ValueError(f"backend must be one of {BACKENDS}")
        if self.code_block not in CODE_BLOCKS:
            raise ValueError(f"code_block must be one of {CODE_BLOCKS}")
        if self.max_tests is not None and self.max_tests < 1:  # 0 tests would pass every program
            raise ValueError(f"max_tests must be at least 1 (or None: every test), got {self.max_tests}")
        if self.pool_size < 0:
            raise ValueError(f"pool_size must be at least 0, got {self.pool_size}")
        check_names(self.packages)
        self.limits()  # the sandbox limits check themselves

    def limits(self) -> Limits:
        """The sandbox limits these settings give every run."""
        return Limits(
            cpu_seconds=self.cpu_seconds,
            memory_mb=self.memory_mb,
            wall_seconds=self.wall_seconds,
            timeout_budget_seconds=self.timeout_budget_seconds,
            max_processes=self.max_processes,
            packages=self.packages,
        )


def first_failure(outcomes: Sequence[TestOutcome]) -> bool:
    """ "code_r1": any failing test fixes the reward at +0.1."""
    return any(o.verdict is not TestVerdict.PASS for o in outcomes)


def failure_after_a_run(outcomes: Sequence[TestOutcome]) -> bool:
    """ "discrete": a failing test fixes the test score at 0 once some test ran the code (passed or
    answered wrongly); until then all later tests failing too would make it -1."""
    return first_failure(outcomes) and any(o.verdict in (TestVerdict.PASS, TestVerdict.WRONG_ANSWER) for o in outcomes)


DECIDED_BY = {"continuous": None, "discrete": failure_after_a_run, "code_r1": first_failure}


def make_backend(name: str, pool_size: int = 2, limits: Limits = Limits()):
    """A sandbox backend by name; "auto" prefers Docker and falls back to the local one. Docker
    containers are made with `limits`' whole-sandbox memory and process caps (the local backend
    makes a cgroup per run from the limits each run carries)."""
    from sandboxes.docker_pool import DockerBackend
    from sandboxes.local import LocalBackend

    if name == "docker":
        return DockerBackend(pool_size=pool_size, limits=limits)
    if name == "local":
        return LocalBackend()
    if name == "unconfined":
        return LocalBackend(confined=False)
    try:
        return DockerBackend(pool_size=pool_size, limits=limits)
    except SandboxUnavailable:
        return LocalBackend()


def _prompt_of(task: Mapping[str, Any]) -> str:
    prompt = task.get("prompt")
    return prompt if isinstance(prompt, str) else ""


@register("code")
class CodeVerifier(Verifier):
    """Runs code in a sandbox; rewards by the share of tests passed or the seed's discrete scheme."""

    Config = CodeConfig
    verdicts_order_rewards = True
    aliases = ("leetcode", "apps", "taco", "humaneval", "mbpp")
    task_fields = {
        "test_cases": "list of str: assert statements (AceCode); one of the four test formats",
        "inputs": "list: stdin texts, or call arguments with fn_name (APPS/TACO); with outputs",
        "outputs": "list: the expected stdout texts or return values, one per input",
        "input_output": "dict or its JSON text: {inputs, outputs[, fn_name]} (APPS/TACO rows)",
        "fn_name": "str, optional: makes inputs/outputs call-based tests of this function",
        "test": "str: `def check(candidate): ...` (HumanEval/LeetCodeDataset) or a pytest file (KodCode)",
        "entry_point": "str: the function (or `Solution().method`) `check` is given",
        "prompt": "str, optional: the task's prompt; for HumanEval/LeetCode rows also the helpers run before the program",
        "program_names": "list of str, optional: names besides the entry point the tests take from the program",
        "statement": "str, optional: the problem text the built-in prompt shows",
        "signature": "str, optional: the function signature the built-in prompt asks for",
        "question": "str, optional: the problem text, where there is no statement",
        "problem_description": "str, optional: the problem text (LeetCodeDataset)",
        "reference": "str, informational: a reference solution (never shown to the model)",
        "id": "str, optional: the task's name in results (its index otherwise)",
        "difficulty": "str, optional: the bucket reports group results by",
    }
    components = ("pass_rate", "format", "tests")
    worker_memory_mb: ClassVar[int | None] = None  # the docker client and the sandboxes live outside this cap

    def __init__(self, **config: Any) -> None:
        super().__init__(**config)
        self._backend = None
        self._backend_lock = threading.Lock()

    def __getstate__(self) -> dict[str, Any]:
        state = super().__getstate__()
        state["_backend"] = None  # each worker process opens its own sandboxes
        state.pop("_backend_lock", None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._backend_lock = threading.Lock()

    def reward_bounds(self) -> tuple[float, float]:
        return (0.0, 1.0) if self.config.reward == "continuous" else (-1.1, 1.1)

    def limits(self) -> Limits:
        return self.config.limits()

    def time_budget(self) -> float:
        """The most one score can take: the sandbox's wall clock for the whole run plus starting it."""
        return self.config.wall_seconds + SANDBOX_START_SECONDS

    def worker_killed(self, pid: int) -> None:
        from sandboxes.cleanup import release_process

        release_process(pid)

    def release_orphans(self) -> None:
        from sandboxes.cleanup import release_orphans

        release_orphans(docker=self.config.backend == "docker")

    def backend(self):
        with self._backend_lock:
            if self._backend is None:
                backend = make_backend(self.config.backend, self.config.pool_size, self.limits())
                try:
                    backend.library_paths(self.config.packages)  # an allowed package missing here fails now
                except SandboxUnavailable:
                    backend.close()
                    raise
                self._backend = backend
            return self._backend

    def evaluate(self, completion: str, task: Mapping[str, Any]) -> Score:
        prepared = prepare(task)
        task_id = task.get("id", task.get("entry_point", ""))
        tests = sample_tests(
            prepared.tests, self.config.max_tests, task_id if isinstance(task_id, str) else shown(task_id)
        )
        if self.config.code_block == "final":
            found = locate_program(completion, prepared.tested_names, _prompt_of(task), prepared.format == "stdio")
            code, missing = found.code, found.why
        else:
            code, missing = extract_code(completion, self.config.code_block), "no fenced code block found"
        if code is None:
            return self._score(Verdict.INVALID, missing, formatted=False, ran=False)
        try:
            compile(code, "solution.py", "exec")
        except (SyntaxError, ValueError) as exc:
            return self._score(Verdict.INVALID, f"the code does not compile: {exc}", formatted=True, ran=False)
        try:
            backend = self.backend()
        except SandboxUnavailable as exc:
            return Score.error(f"sandbox unavailable: {exc}")
        setup, judged_after = (
            prepared.setup,
            prepared.judge_setup if prepared.judge_setup is not None else prepared.setup,
        )
        future, rest = future_imports(code) if setup.strip() else ("", code)
        if future:  # they must open the source the setup opens: put first (the trusted judge's setup is untouched)
            setup, code = future + setup, rest
        result = run_tests(
            backend,
            code,
            tests,
            self.limits(),
            setup=setup,
            entry_point=prepared.entry_point,
            judge_setup=judged_after,
            program_names=prepared.program_names,
            decided=DECIDED_BY[self.config.reward] if self.config.stop_when_decided else None,
        )
        broken = next((o for o in result.outcomes if o.verdict is TestVerdict.TASK_ERROR), None)
        if broken is not None:
            return Score.error(valid_text(f"bad task: {broken.detail}"), task_error=True, backend=backend.name)
        if result.sandbox_error or any(o.verdict is TestVerdict.SANDBOX_ERROR for o in result.outcomes):
            return Score.error(
                f"sandbox failed: {result.sandbox_error or 'a test hit a sandbox error'}", backend=backend.name
            )
        passed, total = result.passed, len(tests)
        not_run = result.counts().get(TestVerdict.NOT_RUN.value, 0)
        info = {
            "backend": backend.name,
            "format": prepared.format,
            "tests": total,
            "tests_run": total - not_run,
            "passed": passed,
            "verdicts": result.counts(),
            "failures": [  # the program's own text (an exception's message) made valid UTF-8
                valid_text(f"test {i + 1}: {o.verdict.value} {o.detail}".strip())
                for i, o in enumerate(result.outcomes)
                if o.verdict not in (TestVerdict.PASS, TestVerdict.NOT_RUN)
            ][:10],
        }
        if passed == total:
            verdict, reason = Verdict.CORRECT, f"all {total} tests pass"
        elif passed:
            verdict, reason = Verdict.PARTIAL, f"{passed} of {total} tests pass"
        elif any(o.verdict is TestVerdict.TIMEOUT for o in result.outcomes):
            verdict, reason = Verdict.TIMEOUT, f"no test passes; {result.counts().get('timeout', 0)} hit the time limit"
        else:
            verdict, reason = (
                Verdict.INCORRECT,
                f"no test passes ({', '.join(f'{k} {v}' for k, v in result.counts().items())})",
            )
        if not_run:  # the verdict describes the tests that ran
            reason = (
                f"{info['failures'][0] if info['failures'] else 'a test fails'}; that decides the "
                f"'{self.config.reward}' reward, so the {not_run} later tests were not run"
            )
        ran = any(o.verdict in (TestVerdict.PASS, TestVerdict.WRONG_ANSWER) for o in result.outcomes)
        return self._score(
            verdict,
            reason,
            formatted=True,
            ran=ran,
            passed=passed,
            total=total,
            info=info,
            answer=f"behaviour:{result.fingerprint()}",
        )

    def _score(
        self,
        verdict: Verdict,
        reason: str,
        *,
        formatted: bool,
        ran: bool,
        passed: int = 0,
        total: int = 1,
        info: dict[str, Any] | None = None,
        answer: str | None = None,
    ) -> Score:
        share = passed / total if total else 0.0
        fmt = 0.1 if formatted else -0.1
        if not ran and passed == 0:
            test_score = -1.0
        else:
            test_score = 1.0 if passed == total else 0.0
        rewards = {
            "continuous": share,
            "discrete": fmt + test_score,
            "code_r1": -1.1 if not formatted else (1.1 if passed == total and total else 0.1),
        }
        components = {"pass_rate": share, "format": fmt, "tests": test_score}
        return Score(rewards[self.config.reward], verdict, components, answer, reason, info or {})

    def close(self) -> None:
        super().close()
        if self._backend is not None:
            self._backend.close()
            self._backend = None

    # ------------------------------------------------------------------ tasks
    def probes(self) -> list[Probe]:
        from .probes import PROBES

        return PROBES

    def prompt(self, task: Mapping[str, Any]) -> str:
        return prompt_for(task)

    def tasks(self, split: str = "test", *, limit: int | None = None, seed: int = 0) -> list[dict[str, Any]]:
        """The built-in problems (written for evalkit, with reference solutions), seeded 80/20 split."""
        return select(PROBLEMS, split, limit=limit, seed=seed)

"""evalkit's pytest plugin (registered under `pytest11`): fixtures, markers, options and reports.

- fixture `verifier`: a factory, `verifier("game24", **config)`, closing worker pools afterwards;
- marker `reward_case(completion, task, reward=…, verdict=…, components=…, answer=…)` plus the
  fixture `check_reward_cases`, which checks every such mark of the test in one go;
- fixture `reward_snapshot`: a table of rewards stored beside the test; `--evalkit-update-snapshots`;
- option `--evalkit-report`: every reward comparison of the run as one table at the end;
- readable failures for `assert score_a == score_b` through `pytest_assertrepr_compare`.

Loading the plugin imports nothing from `verifiers`: pytest loads it in every session of an
environment where evalkit is installed, and a session that never uses evalkit must never be
broken by it (e.g. when another package named `verifiers` shadows ours: then a warning, once,
and the plugin stays inactive).
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator

import pytest

from .coexist import conflict_message, foreign_verifiers

if TYPE_CHECKING:
    from verifiers import Verifier

    from .snapshot import RewardSnapshot


def _active() -> bool:
    return foreign_verifiers() is None


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("evalkit", "evalkit reward testing")
    group.addoption("--evalkit-report", action="store_true", help="print every reward case of the run as one table")
    group.addoption(
        "--evalkit-update-snapshots", action="store_true", help="rewrite reward snapshots instead of comparing"
    )


def pytest_configure(config: pytest.Config) -> None:
    if not _active():
        warnings.warn(
            f"evalkit's pytest plugin is inactive: {conflict_message()}", pytest.PytestConfigWarning, stacklevel=1
        )
    config.addinivalue_line(
        "markers",
        "reward_case(completion, task, reward=None, verdict=None, components=None, "
        "answer=None): an expected score, checked by the check_reward_cases fixture",
    )


@pytest.fixture
def verifier() -> Iterator[Callable[..., Verifier]]:
    """`verifier("game24", weights=(1, 0, 0))`: a configured verifier, its worker pools closed after the test."""
    import verifiers

    made: list[Verifier] = []

    def make(name: str, **config: Any) -> Verifier:
        v = verifiers.get(name, **config)
        made.append(v)
        return v

    yield make
    for v in made:
        v.close()


@pytest.fixture
def check_reward_cases(request: pytest.FixtureRequest) -> Callable[[Verifier], None]:
    """Call with a verifier: checks every `reward_case` mark on the test, all failures in one table."""

    from .assertions import RewardAssertionError
    from .expectations import compare

    def check(v: Verifier) -> None:
        marks = list(request.node.iter_markers("reward_case"))
        if not marks:
            raise pytest.UsageError("check_reward_cases needs at least one @pytest.mark.reward_case")
        failures = []
        for mark in reversed(marks):  # decorators apply bottom-up; report in reading order
            completion, task = mark.args
            cmp = compare(v.score(completion, task), label=f"{request.node.name}: {completion[:50]!r}", **mark.kwargs)
            if not cmp.ok:
                failures.append(cmp.table())
        if failures:
            raise RewardAssertionError(
                f"{len(failures)} of {len(marks)} reward case(s) failed:\n" + "\n\n".join(failures)
            )

    return check


@pytest.fixture
def reward_snapshot(request: pytest.FixtureRequest) -> RewardSnapshot:
    """A reward table stored at `__snapshots__/<test file>/<test name>.json` beside the test."""
    test_file = Path(str(request.node.fspath))
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in request.node.name)
    path = test_file.parent / "__snapshots__" / test_file.stem / f"{safe}.json"
    from .snapshot import RewardSnapshot

    return RewardSnapshot(path, update=request.config.getoption("--evalkit-update-snapshots"))


def pytest_assertrepr_compare(op: str, left: Any, right: Any) -> list[str] | None:
    if op != "==" or type(left).__name__ != "Score" or not _active():
        return None
    from verifiers import Score

    from .expectations import score_diff

    if isinstance(left, Score) and isinstance(right, Score):
        return score_diff(left, right)
    return None


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    if not config.getoption("--evalkit-report") or not _active():
        return
    from .expectations import RECORDED

    if not RECORDED:
        return
    tr = terminalreporter
    tr.section("evalkit reward cases")
    width = min(70, max(len(c.label) for c in RECORDED))
    tr.write_line(f"{'case'.ljust(width)}  {'verdict':<9}  {'reward':>7}  ok")
    for c in RECORDED:
        label = c.label if len(c.label) <= width else c.label[: width - 1] + "…"
        tr.write_line(
            f"{label.ljust(width)}  {c.score.verdict.value:<9}  {c.score.reward:>7.4f}  {'✓' if c.ok else '✗'}"
        )
    passed = sum(c.ok for c in RECORDED)
    tr.write_line(f"{passed} of {len(RECORDED)} reward cases as expected")

"""The judge's Python environment: the packages LeetCode-style data sets assume (sortedcontainers)
are importable on both backends, still under `python3 -I -S`; nothing else outside the standard
library is, and a program that imports it fails its tests (a runtime error, never ERROR)."""

import pytest

import verifiers

TASK = {
    "prompt": "from sortedcontainers import SortedList\n",  # a trusted preamble, as LeetCodeDataset rows have
    "test": "def check(candidate):\n    assert candidate([3, 1, 2]) == [1, 2, 3]\n    assert candidate([]) == []\n",
    "entry_point": "Solution().sort",
}
SORTED = "```python\nclass Solution:\n    def sort(self, xs):\n        return list(SortedList(xs))\n```"


def _code(backend, **config):
    return verifiers.get("code", backend=backend.name, pool_size=1, **config)


def test_an_allowed_package_works_on_both_backends(backend):
    v = _code(backend)
    try:
        s = v.score(SORTED, TASK)
        uses = v.score(
            SORTED.replace("class Solution", "from sortedcontainers import SortedDict\nclass Solution"), TASK
        )
    finally:
        v.close()
    assert (s.verdict.value, uses.verdict.value) == ("correct", "correct"), (s.reason, uses.reason)


@pytest.mark.parametrize("module", ["numpy", "hypothesis", "verifiers", "sandboxes"])
def test_any_other_installed_package_stays_unimportable(backend, module):
    v = _code(backend)
    try:
        s = v.score(
            f"```python\nimport {module}\nclass Solution:\n    def sort(self, xs):\n        return sorted(xs)\n```",
            TASK,
        )
    finally:
        v.close()
    assert s.verdict.value == "incorrect" and not s.is_error
    assert "ModuleNotFoundError" in " ".join(s.info["failures"]) and s.info["verdicts"] == {"runtime_error": 2}


def test_an_empty_allowlist_takes_the_package_away(backend):
    v = _code(backend, packages=())
    try:
        s = v.score(SORTED, TASK)
    finally:
        v.close()
    assert s.verdict.value == "incorrect" and not s.is_error and "sortedcontainers" in " ".join(s.info["failures"])


def test_a_package_missing_on_the_host_is_error_naming_it():
    v = verifiers.get("code", backend="local", packages=("no_such_package_xyz",))
    try:
        s = v.score(SORTED, TASK)
    finally:
        v.close()
    assert s.is_error and "no_such_package_xyz" in s.reason and "pip install" in s.reason


def test_sandbox_clean_releases_what_dead_processes_left_and_nothing_else(tmp_path):
    """The one clean-up command for a crashed job (README): a dead owner's work dir goes, a live
    one's stays."""
    import os
    import subprocess
    import sys
    import tempfile
    from pathlib import Path

    dead, alive = 4_000_000, os.getpid()  # above pid_max: never a live process
    dirs = [Path(tempfile.gettempdir()) / f"evalkit-sbx-{pid}-test{n}" for n, pid in enumerate((dead, alive))]
    for d in dirs:
        d.mkdir(exist_ok=True)
    try:
        r = subprocess.run(
            [sys.executable, "-m", "evalkit", "sandbox", "clean"], capture_output=True, text=True, timeout=120
        )
        assert r.returncode == 0, r.stderr
        assert not dirs[0].exists() and dirs[1].exists()
    finally:
        for d in dirs:
            if d.exists():
                d.rmdir()


def test_a_family_is_alive_until_the_last_process_of_its_leaders_group_is_gone():
    """What a Ray actor's clean-up waits for: the actor leads a process group, and a pool worker it
    started stays in that group after the actor is killed. Until that worker is gone too, its
    sandbox work dir may still be created or in use."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from sandboxes.owners import family_alive

    leader = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import subprocess, sys, time\n"
            "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
            "print(child.pid, flush=True)\n"
            "time.sleep(60)",
        ],
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,  # leads its own group, as a Ray worker does
    )
    child = int(leader.stdout.readline())
    try:
        assert family_alive({leader.pid})
        leader.kill()
        leader.wait()
        assert not os.path.exists(f"/proc/{leader.pid}") and family_alive({leader.pid})  # its worker lives on
        os.kill(child, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while family_alive({leader.pid}) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not family_alive({leader.pid})
    finally:
        for pid in (leader.pid, child):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

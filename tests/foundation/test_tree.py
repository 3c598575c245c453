"""The tree holds source and the data its tests use, nothing else: no wheels, models or caches."""

import subprocess
from pathlib import Path

from pytest_plugin.required_parts import require_part

ROOT = Path(__file__).resolve().parents[2]
LIMIT = 1 << 20
#: Files over 1 MB that may be tracked: data the tests read, each with its licence beside it.
LARGE_TEST_DATA: set[str] = set()


def tracked_files() -> list[str]:
    done = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True)
    require_part(done.returncode == 0, "a git checkout (git ls-files)", "run the tests from a git clone")
    return [p for p in done.stdout.decode().split("\0") if p]


def test_no_tracked_file_over_1_mb_unless_it_is_test_data():
    large = {p for p in tracked_files() if (ROOT / p).is_file() and (ROOT / p).stat().st_size > LIMIT}
    assert large <= LARGE_TEST_DATA, f"files over 1 MB that are not test data: {sorted(large - LARGE_TEST_DATA)}"


def test_no_wheel_or_archive_is_tracked():
    binaries = [p for p in tracked_files() if p.endswith((".whl", ".tar.gz", ".zip", ".gguf", ".safetensors", ".pt"))]
    assert binaries == []

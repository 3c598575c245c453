"""Which tests may run at the same time. `bash scripts/test.sh` runs the suite on two pytest-xdist
workers (`--dist loadgroup`): the tests of one group below run on one worker, one after another,
and every other test goes to whichever worker is free.

- "sandboxes": tests that start code sandboxes (Docker containers, bubblewrap). Several check that
  nothing is left anywhere on the host afterwards (no labelled container, no sandbox directory with
  files), which another test's live sandbox would contradict.
- "vllm": tests that start a vLLM engine; each takes gigabytes for its KV cache and pins its
  threads to the cores.
- "installs": tests that run the set-up or pip, which write the environment other tests import from.

A new test that starts sandboxes or vLLM, or installs, belongs in its file's group: put it in one
of these files or add it here (a path, or a path and a test name).

Each worker computes on one thread (`OMP_NUM_THREADS=1`, inherited by the commands tests start):
two workers that each spread torch over both cores only wait on each other's spinning threads.
"""

from __future__ import annotations

import os

import pytest

GROUPS: dict[str, tuple[str, ...]] = {
    "sandboxes": (
        "tests/code/",
        "tests/adapters/",
        "tests/evaluator/test_accuracy.py",
        "tests/evaluator/test_eval_suite.py",
        "tests/foundation/test_config.py",
        "tests/foundation/test_doc_blocks.py",  # the docs' Python blocks score code
        "tests/foundation/test_score_api.py",
    ),
    "vllm": (
        "tests/grpo/test_grpo_device.py::test_vllm_rollouts",
        "tests/evaluator/test_readme_commands.py::test_readme_vllm",
    ),
    "installs": (
        "tests/foundation/test_setup_layers.py",
        "tests/foundation/test_install.py",
        "tests/evaluator/test_readme_commands.py::test_readme_main_job",  # runs the main layer's set-up
    ),
}


def group_of(nodeid: str) -> str | None:
    """The group of a test, by its pytest node id (`path::name[params]`), or None."""
    return next((name for name, prefixes in GROUPS.items() if nodeid.startswith(prefixes)), None)


@pytest.hookimpl(tryfirst=True)  # before xdist reads the marks
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        group = group_of(item.nodeid)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))


def pytest_configure(config: pytest.Config) -> None:
    """Before any test module imports torch (no installed pytest plugin does), so its pool reads it."""
    if os.environ.get("PYTEST_XDIST_WORKER") and int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")) > 1:
        os.environ.setdefault("OMP_NUM_THREADS", "1")

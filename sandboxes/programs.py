"""The programs shipped into the sandbox, as source text: each is `wire.py` followed by its parts.

Both run standard-library-only under `python3 -I -S`; neither can import the host's packages, so
the codec they share is prepended rather than imported. `-S` (no site-packages) is the same
interpreter the program meets on both backends (the Docker image has no third-party packages) and
starts in 9 ms instead of 45 ms here, which is most of a short solution's cost.
"""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).parent
PYTHON_FLAGS = ["-I", "-S"]


def _program(*parts: str) -> str:
    return "\n\n".join((HERE / f"{part}.py").read_text() for part in ("wire", *parts))


CANDIDATE = _program(
    "rlimits", "preload", "seccomp", "zygote", "candidate"
)  # the only process that runs the model's code
# runner and judge: reads the job, runs the tests against the program's process, reports nonce-tagged
# records; it starts the sandbox's zygote from the candidate program before any job arrives
RUNNER = f"CANDIDATE_SOURCE, PYTHON_FLAGS = {CANDIDATE!r}, {PYTHON_FLAGS!r}\n\n" + _program(
    "rlimits", "preload", "seccomp", "child", "proxies", "literals", "judge", "runner"
)

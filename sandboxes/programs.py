"""The programs shipped into the sandbox, as source text: each is `wire.py` followed by its role.

Both run standard-library-only under `python3 -I -S`; neither can import the host's packages, so
the codec they share is prepended rather than imported. `-S` (no site-packages) is the same
interpreter the program meets on both backends (the Docker image has no third-party packages) and
starts in 9 ms instead of 45 ms here, which is most of a short solution's cost.
"""
from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).parent
PYTHON_FLAGS = ["-I", "-S"]


def _program(role: str) -> str:
    return (HERE / "wire.py").read_text() + "\n\n" + (HERE / f"{role}.py").read_text()


RUNNER = _program("runner")        # runner and judge: reads the job, reports nonce-tagged records
CANDIDATE = _program("candidate")  # the only process that runs the model's code

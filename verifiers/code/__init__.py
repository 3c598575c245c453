"""Code verifier: the model's code runs against tests in a sandbox (Docker pool or bubblewrap)."""

from .extract import extract_code
from .formats import prepare, sample_tests
from .tasks import PROBLEMS, reference_completion
from .verifier import CodeConfig, CodeVerifier, make_backend

__all__ = [
    "PROBLEMS",
    "CodeConfig",
    "CodeVerifier",
    "extract_code",
    "make_backend",
    "prepare",
    "reference_completion",
    "sample_tests",
]

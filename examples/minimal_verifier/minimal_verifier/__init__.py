"""A minimal third-party evalkit verifier: reverse a word. See ../README.md."""

from .verifier import ReverseConfig, ReverseVerifier

__all__ = ["ReverseConfig", "ReverseVerifier"]

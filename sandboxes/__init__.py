"""Execution backends for untrusted code (Docker with a warm pool, and a local namespaced backend)."""

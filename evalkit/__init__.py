"""evalkit: batch evaluation, metrics, reports, the GRPO loop, framework adapters and the CLI.

It builds on the `verifiers` package (the score API) and never the other way round.
"""
__version__ = "0.1.0"

"""evalkit's pytest plugin: fixtures, markers and assertions that make reward behaviour testable."""

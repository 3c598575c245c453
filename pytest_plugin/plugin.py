"""Entry point registered under `pytest11`; pytest loads it when evalkit is installed."""

"""The `evalkit` subcommands, one module each (`add_arguments(parser)`, `run(args) -> int`).

`CommandError` lives here, not in `evalkit.cli`, so commands never import the CLI that imports
them: `python -m evalkit.cli` and the `evalkit` script then raise and catch the same class."""


class CommandError(Exception):
    """A user-facing failure: printed as one line, exit code 2."""


def check_count(flag: str, value: int | None, least: int = 1) -> None:
    """A count the user gave that cannot work, refused in one line before anything loads: -3 workers
    meant 'the default' and -1 threads a traceback. `--workers 0` is allowed where it means 'score in
    this process' (`score_batch(workers=0)`)."""
    if value is not None and value < least:
        raise CommandError(f"{flag} must be at least {least}, got {value}")

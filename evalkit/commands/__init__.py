"""The `evalkit` subcommands, one module each (`add_arguments(parser)`, `run(args) -> int`).

`CommandError` lives here, not in `evalkit.cli`, so commands never import the CLI that imports
them: `python -m evalkit.cli` and the `evalkit` script then raise and catch the same class."""


class CommandError(Exception):
    """A user-facing failure: printed as one line, exit code 2."""

"""The `evalkit` command. Each subcommand lives in `evalkit/commands/<name>.py` with two functions:
`add_arguments(parser)` and `run(args) -> int`. Modules import heavy libraries inside `run`,
so `evalkit --help` stays fast.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Sequence

from evalkit.commands import CommandError

# subcommand -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "score": ("evalkit.commands.score", "score a JSONL of completions with a verifier"),
    "verifiers": ("evalkit.commands.list_verifiers", "list verifiers and their default config"),
    "accuracy": ("evalkit.commands.accuracy", "how accurate a cheaper reward setting is (tests, rollouts)"),
    "eval": ("evalkit.commands.eval", "generate with a model and score it on a verifier's tasks"),
    "report": ("evalkit.commands.report", "rebuild the reports of an evaluation run"),
    "compare": ("evalkit.commands.compare", "show two evaluation runs side by side"),
    "sandbox": ("evalkit.commands.sandbox", "build the Docker image for the code sandbox"),
    "grpo": ("evalkit.commands.grpo", "train a model with GRPO on a verifier's rewards"),
    "serve": ("evalkit.commands.serve", "serve verifiers over HTTP (batch scoring, OpenRLHF protocol)"),
}


class DefaultsShown(argparse.HelpFormatter):
    """Every option's help ends with its default, where it has one and does not say it already."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        default = action.default
        if not action.option_strings or default in (None, argparse.SUPPRESS, False) or "default" in text:
            return text
        return f"{text} (default: %(default)s)"


def first_paragraph(text: str) -> str:
    """A module docstring's first paragraph as one line: a description that ends its sentence."""
    return " ".join(text.strip().split("\n\n")[0].split())


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="evalkit",
        description="Evaluation and reward verification for RL on LLMs.",
        epilog="`evalkit sandbox build` and `evalkit sandbox check` build or check the code sandbox's Docker image; `evalkit sandbox clean` releases what a "
        "crashed job left. `evalkit COMMAND --help` for each command.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module, help_text) in COMMANDS.items():
        mod = importlib.import_module(module)
        description = first_paragraph(mod.__doc__ or help_text)
        p = sub.add_parser(name, help=help_text, description=description, formatter_class=DefaultsShown)
        mod.add_arguments(p)
        p.set_defaults(_run=mod.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "_run", None):
        parser.print_help()
        return 2
    try:
        return int(args._run(args) or 0)
    except CommandError as exc:
        print(f"evalkit {args.command}: {exc}", file=sys.stderr)
        return 2
    except ModuleNotFoundError as exc:  # an optional part the set-up left out: one line, how to get it
        from evalkit.install_hints import missing_part

        message = missing_part(exc)
        if message is None:
            raise
        print(f"evalkit {args.command}: {message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(
            f"evalkit {args.command}: interrupted; what was written before it is on disk, rerun to resume",
            file=sys.stderr,
        )
        _exit_even_if_shutdown_hangs(130)
        return 130


INTERRUPTED_EXIT_SECONDS = 10.0


def _exit_even_if_shutdown_hangs(code: int) -> None:
    """After Ctrl-C, clean-up (sandboxes, worker pools) runs as usual; a thread still waiting on a
    hung server must not keep the command alive past a few seconds."""
    import os
    import threading

    def force() -> None:
        sys.stderr.flush()
        os._exit(code)

    timer = threading.Timer(INTERRUPTED_EXIT_SECONDS, force)
    timer.daemon = True
    timer.start()


if __name__ == "__main__":
    sys.exit(main())

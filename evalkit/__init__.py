"""evalkit: batch evaluation, metrics, reports, the GRPO loop, framework adapters and the CLI.

It builds on the `verifiers` package (the score API) and never the other way round.
"""

import os as _os
import sys as _sys

from pytest_plugin.coexist import conflict_message as _conflict_message
from pytest_plugin.coexist import foreign_verifiers as _foreign_verifiers

__version__ = "0.1.0"

if _foreign_verifiers():  # another `verifiers` shadows ours: say so in one line, not "cannot import name 'Score'"
    _cli = _os.path.basename(_sys.argv[0]) == "evalkit" or _sys.orig_argv[1:3] == ["-m", "evalkit"]
    if _cli:
        raise SystemExit(f"evalkit: {_conflict_message()}")
    raise ImportError(f"evalkit: {_conflict_message()}")

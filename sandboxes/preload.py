"""The sandbox's allowed packages imported once, before any job (shipped into the sandbox as source
text, in the runner and in the candidate program; see `programs.py`).

A sandbox serves one set of allowed packages (`Limits.packages`: its mounts are made for them), and
LeetCode's preamble imports one of them (`sortedcontainers`) in every judge and every candidate:
2-3 ms each, a tenth of a short program's cost. The runner imports them before it forks any judge
and the zygote before it forks any candidate, so both find them loaded. Only modules of packages
every job of the sandbox may import are loaded, and a fork's changes to them stay in the fork.
"""

import json
import sys

PRELOAD_FLAG = "--preload"  # the runner's option: the sandbox's allowed packages, JSON [name, path] pairs


def preload_arguments(packages, paths):
    """The command-line option that names the sandbox's allowed packages and their paths (the
    runner's, and the zygote's, which the runner passes it on to)."""
    return [PRELOAD_FLAG, json.dumps([[name, path] for name, path in zip(packages, paths)])] if packages else []


def import_packages(packages):
    """Import each allowed package from its own directory ([name, path] pairs). One that fails to
    import is left alone: the job that imports it meets the same failure and reports it."""
    for name, path in packages:
        sys.path.insert(0, path)
        try:
            __import__(name)
        except Exception:
            pass
        finally:
            sys.path.remove(path)


def packages_argument(argv):
    """The [name, path] pairs `preload_arguments` put on the command line (none when absent)."""
    if PRELOAD_FLAG in argv[:-1]:
        return json.loads(argv[argv.index(PRELOAD_FLAG) + 1])
    return []

"""The two users of a sandbox, the same on both backends: the runner, which holds the host's channel
and never runs job code, and the job user, which runs everything of a job (the judge, the zygote and
every candidate). With another uid than the runner's, job code can neither signal the runner nor
write its /proc files, whatever the seccomp filter would also refuse.

A Docker container has both users as it is. A bubblewrap sandbox maps only one user of its own, so
where the host may map more (it runs as root) `two_user_namespace` makes a user namespace with
both, which bubblewrap enters instead of making its own (`--userns`). Each sandbox gets its own: the
kernel counts a user's processes (RLIMIT_NPROC) per user namespace, so in one shared namespace a
program that forks to its limit would leave programs in every other sandbox unable to fork.
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys

RUNNER_UID = "0"  # the sandbox's root, with only the capabilities below
SANDBOX_UID = "10001"  # the job user: the judge, the zygote and every candidate (the model's code)
# what the runner needs and job code never gets (dropping to SANDBOX_UID clears them for good, and
# no-new-privileges keeps them out of reach): to make its forks the job user, to signal the job
# user's processes (stop a judge, kill a job's leftovers), and to empty what a job left between jobs
# (files in the job user's own directories, SysV IPC it made) without a process of that user
RUNNER_CAPABILITIES = ["SETUID", "SETGID", "KILL", "DAC_OVERRIDE", "FOWNER", "IPC_OWNER"]

CLONE_NEWUSER = 0x10000000
# a process that makes a user namespace, says so, and waits (its parent writes the maps, then keeps a
# descriptor of the namespace, which outlives this process)
_HOLD = (
    "import ctypes, sys\n"
    "if ctypes.CDLL(None, use_errno=True).unshare(%d) != 0: sys.exit(1)\n"
    "sys.stdout.write('ready'); sys.stdout.flush(); sys.stdin.read()\n" % CLONE_NEWUSER
)


@functools.lru_cache(maxsize=1)
def one_user_reason() -> str | None:
    """Why local sandboxes run the runner and job code as one user here, or None where they do not."""
    userns = two_user_namespace()
    if userns is not None:
        os.close(userns)
        return None
    if os.geteuid() != 0:
        return "a second user needs the host's root (bubblewrap maps only the caller's uid)"
    return "this kernel refused a user namespace with two users"


def two_user_namespace() -> int | None:
    """A descriptor (the caller's to close) of a new user namespace where the runner is this host's
    user and the job user is the host's SANDBOX_UID (the uid a Docker sandbox's job code has on the
    host too), or None where this host may not map a second uid."""
    if os.geteuid() != 0:
        return None
    holder = subprocess.Popen([sys.executable, "-I", "-S", "-c", _HOLD], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        if holder.stdout is None or holder.stdout.read(5) != b"ready":
            return None
        for name, host_id in (("uid_map", os.geteuid()), ("gid_map", os.getegid())):
            with open(f"/proc/{holder.pid}/{name}", "w") as maps:
                maps.write(f"{RUNNER_UID} {host_id} 1\n{SANDBOX_UID} {SANDBOX_UID} 1\n")
        return os.open(f"/proc/{holder.pid}/ns/user", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    finally:
        holder.kill()
        holder.wait()
